package org.iwarp4j.tools.loopback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.Transport;

/**
 * Two RNICs in this JVM with one event loop each, a queue pair connected over loopback between
 * them, and one registered direct region of {@code regionSize} octets on each side. Each side
 * has its own meter registry, so a run can read what the other end placed.
 */
final class RnicPair implements AutoCloseable {

    final SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
    final SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
    final Rnic serverRnic;
    final Rnic clientRnic;
    final ByteBuf serverMemory;
    final ByteBuf clientMemory;
    final MemoryRegion serverRegion;
    final MemoryRegion clientRegion;
    final CompletionQueue serverCq;
    final CompletionQueue clientCq;
    final QueuePair server;
    final QueuePair client;
    private final Listener listener;

    RnicPair(Transport transport, MpaSettings mpa, int regionSize, int queueDepth) throws Exception {
        serverRnic = Rnic.builder().eventLoopThreads(1).transport(transport).meterRegistry(serverMeters)
                .name("server").build();
        clientRnic = Rnic.builder().eventLoopThreads(1).transport(transport).meterRegistry(clientMeters)
                .name("client").build();
        serverMemory = ByteBufAllocator.DEFAULT.directBuffer(regionSize).writeZero(regionSize);
        clientMemory = ByteBufAllocator.DEFAULT.directBuffer(regionSize).writeZero(regionSize);
        ProtectionDomain serverPd = serverRnic.allocateProtectionDomain();
        ProtectionDomain clientPd = clientRnic.allocateProtectionDomain();
        serverRegion = serverPd.register(serverMemory, EnumSet.allOf(Access.class));
        clientRegion = clientPd.register(clientMemory, EnumSet.allOf(Access.class));
        serverCq = serverRnic.createCompletionQueue(4 * queueDepth + 4);
        clientCq = clientRnic.createCompletionQueue(4 * queueDepth + 4);
        server = serverRnic.createQueuePair(QueuePairSettings.builder(serverPd, serverCq)
                .sendQueueDepth(queueDepth + 1).receiveQueueDepth(queueDepth + 1).mpa(mpa).build());
        client = clientRnic.createQueuePair(QueuePairSettings.builder(clientPd, clientCq)
                .sendQueueDepth(queueDepth + 1).receiveQueueDepth(queueDepth + 1).mpa(mpa).build());
        listener = serverRnic.listen(new InetSocketAddress("127.0.0.1", 0), mpa, r -> r.accept(server));
    }

    /** Connects; call after posting the receives the first messages need. */
    void connect() throws Exception {
        client.connect(listener.localAddress()).get(30, TimeUnit.SECONDS);
        server.established().get(30, TimeUnit.SECONDS);
    }

    /** Payload octets DDP placed so far at the server (Writes, Sends) or the client (Read Responses). */
    double placed(boolean atServer, String model) {
        return (atServer ? serverMeters : clientMeters).get("iwarp.ddp.placed").tag("model", model).counter()
                .count();
    }

    @Override
    public void close() throws Exception {
        listener.close();
        client.close().get(30, TimeUnit.SECONDS);
        server.closeFuture().get(30, TimeUnit.SECONDS);
        clientRnic.close();
        serverRnic.close();
        serverMemory.release();
        clientMemory.release();
    }
}
