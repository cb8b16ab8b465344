package org.iwarp4j.rpcrdma;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.sample.EchoBinding;

/**
 * Two RNICs on loopback: an {@link RpcRdmaServer} serving the echo program and an {@link
 * RpcRdmaRequester} with an {@link RpcClient} and {@link EchoClient} on top.
 */
final class RpcRdmaPair implements AutoCloseable {

    static final long WAIT_SECONDS = 30;

    /** The server's RNIC and dispatcher meters (RPC-over-RDMA's go to the RNIC's registry). */
    final io.micrometer.core.instrument.MeterRegistry serverMeters =
            new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    final Rnic serverRnic = Rnic.builder().eventLoopThreads(1).meterRegistry(serverMeters).build();
    final Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
    final RpcDispatcher dispatcher = new RpcDispatcher(serverMeters);
    final RpcRdmaServer server;
    final RpcRdmaRequester requester;
    final RpcClient client;
    final EchoClient echo;
    final WireLog serverWire = new WireLog();
    final WireLog clientWire = new WireLog();
    final java.util.concurrent.LinkedBlockingQueue<RpcRdmaResponder> connections =
            new java.util.concurrent.LinkedBlockingQueue<>();
    private RpcRdmaResponder first;

    RpcRdmaPair(RpcRdmaSettings serverSettings, RpcRdmaSettings clientSettings) throws Exception {
        this(serverSettings, clientSettings, io.netty.buffer.PooledByteBufAllocator.DEFAULT);
    }

    /** With the server's Responders allocating from {@code serverAlloc}. */
    RpcRdmaPair(RpcRdmaSettings serverSettings, RpcRdmaSettings clientSettings, io.netty.buffer.ByteBufAllocator serverAlloc)
            throws Exception {
        try {
            dispatcher.register(EchoProgram.create());
            server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0), dispatcher, serverSettings,
                    serverAlloc);
            server.onConnection(r -> {
                serverWire.attach(r.endpoint());
                connections.add(r);
            });
            requester = RpcRdmaRequester.connect(clientRnic, server.localAddress(), clientSettings)
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            clientWire.attach(requester.endpoint());
            client = RpcClient.builder(requester).timeout(Duration.ofSeconds(WAIT_SECONDS)).build();
            echo = new EchoClient(client);
        } catch (Exception | AssertionError e) {
            closeRnics();
            throw e;
        }
    }

    /** Both ends with the echo binding and otherwise {@code base}. */
    static RpcRdmaPair echo(RpcRdmaSettings.Builder base) throws Exception {
        RpcRdmaSettings s = base.binding(new EchoBinding()).build();
        return new RpcRdmaPair(s, s);
    }

    static RpcRdmaSettings.Builder settings() {
        return RpcRdmaSettings.builder().binding(new EchoBinding());
    }

    /** The server's first connection. */
    synchronized RpcRdmaResponder responder() throws InterruptedException {
        if (first == null) {
            first = nextConnection();
        }
        return first;
    }

    /** The next connection the server accepts (in order). */
    RpcRdmaResponder nextConnection() throws InterruptedException {
        RpcRdmaResponder r = connections.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        if (r == null) {
            throw new AssertionError("no connection at the server");
        }
        return r;
    }

    static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * {@code count}'s value once it has reached {@code expected}, or after {@link #WAIT_SECONDS}: for
     * the Responder's counts of Replies, taken when a Reply's Send has completed on the server's
     * event loop, which may be after the Requester already holds that Reply.
     */
    static long awaitCount(java.util.function.LongSupplier count, long expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        long value;
        while ((value = count.getAsLong()) < expected && System.nanoTime() < deadline) {
            Thread.yield();
        }
        return value;
    }

    private void closeRnics() {
        clientRnic.close();
        serverRnic.close();
    }

    @Override
    public void close() {
        try {
            if (client != null) {
                client.close();
            }
            if (server != null) {
                server.close();
            }
        } finally {
            closeRnics();
        }
    }
}
