package org.iwarp4j.rdmap;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;

/**
 * Two RNICs connected over loopback TCP: a listener's queue pair ("server") and a connecting one
 * ("client"), each with its own protection domain and completion queue.
 */
final class RdmaPair implements AutoCloseable {

    static final long WAIT_SECONDS = 30;
    static final EnumSet<Access> ALL = EnumSet.allOf(Access.class);

    final Rnic serverRnic;
    final Rnic clientRnic;
    final ProtectionDomain serverPd;
    final ProtectionDomain clientPd;
    final CompletionQueue serverCq;
    final CompletionQueue clientCq;
    final QueuePair server;
    final QueuePair client;
    private final Listener listener;

    RdmaPair(MpaSettings mpa, Consumer<QueuePair> beforeServerConnects, Consumer<QueuePair> beforeClientConnects)
            throws Exception {
        this(mpa, b -> b, b -> b, beforeServerConnects, beforeClientConnects);
    }

    /** A pair whose queue pair settings (depths, MPA of the client) the caller adjusts. */
    RdmaPair(MpaSettings mpa, UnaryOperator<QueuePairSettings.Builder> serverSettings,
             UnaryOperator<QueuePairSettings.Builder> clientSettings, Consumer<QueuePair> beforeServerConnects,
             Consumer<QueuePair> beforeClientConnects) throws Exception {
        this(Rnic.builder(), Rnic.builder(), mpa, serverSettings, clientSettings, beforeServerConnects,
                beforeClientConnects);
    }

    /** A pair whose RNICs the caller configures too (meter registries, ...); one event loop each. */
    RdmaPair(Rnic.Builder serverRnicBuilder, Rnic.Builder clientRnicBuilder, MpaSettings mpa,
             UnaryOperator<QueuePairSettings.Builder> serverSettings,
             UnaryOperator<QueuePairSettings.Builder> clientSettings, Consumer<QueuePair> beforeServerConnects,
             Consumer<QueuePair> beforeClientConnects) throws Exception {
        serverRnic = serverRnicBuilder.eventLoopThreads(1).build();
        clientRnic = clientRnicBuilder.eventLoopThreads(1).build();
        serverPd = serverRnic.allocateProtectionDomain();
        clientPd = clientRnic.allocateProtectionDomain();
        serverCq = serverRnic.createCompletionQueue(4096);
        clientCq = clientRnic.createCompletionQueue(4096);
        server = serverRnic.createQueuePair(serverSettings.apply(QueuePairSettings.builder(serverPd, serverCq)
                .mpa(mpa)).build());
        client = clientRnic.createQueuePair(clientSettings.apply(QueuePairSettings.builder(clientPd, clientCq)
                .mpa(mpa)).build());
        beforeServerConnects.accept(server);
        beforeClientConnects.accept(client);
        CompletableFuture<QueuePair> accepted = new CompletableFuture<>();
        listener = serverRnic.listen(new InetSocketAddress("127.0.0.1", 0), mpa, request -> {
            accepted.complete(server);
            return request.accept(server);
        });
        client.connect(listener.localAddress()).get(WAIT_SECONDS, TimeUnit.SECONDS);
        accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);
        server.established().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    static WorkCompletion next(CompletionQueue cq) throws InterruptedException {
        WorkCompletion c = cq.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        if (c == null) {
            throw new AssertionError("no completion within " + WAIT_SECONDS + " s");
        }
        return c;
    }

    /**
     * Cleanup for a test that already closed an RNIC or the connection: closes whatever is left,
     * without waiting for an orderly close.
     */
    void closeAbruptly() {
        try {
            listener.close();
        } catch (RuntimeException ignored) {
            // the server RNIC's event loop may be gone already
        }
        clientRnic.close();
        serverRnic.close();
    }

    /**
     * Whether two ranges hold the same octets. Compares NIO views, so that a leak-tracked buffer
     * records one access instead of one per 8 octets (PARANOID leak detection makes that slow).
     */
    static boolean sameOctets(io.netty.buffer.ByteBuf a, int aIndex, io.netty.buffer.ByteBuf b, int bIndex,
                              int length) {
        return a.nioBuffer(aIndex, length).equals(b.nioBuffer(bIndex, length));
    }

    @Override
    public void close() throws Exception {
        listener.close();
        client.close().get(WAIT_SECONDS, TimeUnit.SECONDS);
        server.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        clientRnic.close();
        serverRnic.close();
    }
}
