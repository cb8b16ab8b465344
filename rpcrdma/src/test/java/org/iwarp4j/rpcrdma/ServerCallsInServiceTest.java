package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.rdmap.Rnic;
import org.junit.jupiter.api.Test;

/**
 * The Calls in service on all connections of one RPC-over-RDMA server are bounded
 * ({@link RpcRdmaSettings#serverCallsInService()}): without it a server's memory for Calls was
 * connections × twice the credits × (a pulled Read chunk + a Reply). A Call past the bound waits
 * in its connection, the connection waits its turn, and the Call is served once another is
 * answered; when every Call is answered nothing stays counted.
 */
class ServerCallsInServiceTest {

    private static final int GRANT = 4;

    /** A Call to the gate's HOLD (answered only when the test says), with no chunks (RDMA_MSG). */
    private static byte[] hold(int xid) {
        return GateProgram.holdCall(xid, GRANT);
    }

    private static void await(IntSupplier value, int expected, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RpcRdmaPair.WAIT_SECONDS);
        while (value.getAsInt() != expected) {
            assertThat(System.nanoTime()).as(what + ": " + value.getAsInt() + ", expected " + expected)
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void aCallPastTheServersBoundWaitsInItsConnectionUntilAnotherIsAnswered() throws Exception {
        twoHeldAndAThirdWaits(RpcRdmaSettings.builder().credits(GRANT).serverLimits(2, 64)
                .serverCallsInServicePerClient(2).build(), "the server's bound", server -> { });
    }

    /**
     * One client's connections together hold no more places than its share
     * ({@link RpcRdmaSettings#serverCallsInServicePerClient()}), however much room the server has:
     * without the share, one host opening a few connections held all the server's places (the
     * thirteenth review's item 6). Both RawPeers connect from 127.0.0.1, one client.
     */
    @Test
    void oneClientsConnectionsTogetherHoldNoMoreThanItsShare() throws Exception {
        twoHeldAndAThirdWaits(RpcRdmaSettings.builder().credits(GRANT).serverLimits(8, 64)
                .serverCallsInServicePerClient(2).build(), "the client's share", server ->
                assertThat(server.callsInService(InetAddress.getByName("127.0.0.1")))
                        .as("six places free, none of them this client's").isEqualTo(2));
    }

    /**
     * Two Calls on one connection are held in service; a third, on a second connection from the
     * same address, waits in the server's queue for {@code bound}, and is served once one of the
     * first two is answered. {@code whileWaiting} checks the server while it waits.
     */
    private void twoHeldAndAThirdWaits(RpcRdmaSettings settings, String bound,
                                       org.assertj.core.api.ThrowingConsumer<RpcRdmaServer> whileWaiting)
            throws Exception {
        GateProgram gate = new GateProgram();
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build()) {
            RpcRdmaServer server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                    new RpcDispatcher().register(gate.program()), settings);
            try (RawPeer first = RawPeer.requester(clientRnic, server.localAddress());
                 RawPeer second = RawPeer.requester(clientRnic, server.localAddress())) {
                first.send(hold(1));
                first.send(hold(2));
                gate.awaitHeld(2);
                second.send(hold(3));
                await(server::connectionsWaitingForBudget, 1, "connections waiting");
                assertThat(gate.served).as("the third Call waits for " + bound).hasValue(2);
                assertThat(server.callsInService()).isEqualTo(2);
                whileWaiting.accept(server);

                gate.releaseOne();
                assertThat(first.receive()).as("the first Reply").isNotEmpty();
                gate.awaitHeld(2);
                assertThat(gate.served).as("answered: the waiting Call goes on").hasValue(3);
                assertThat(server.connectionsWaitingForBudget()).isZero();

                gate.releaseOne();
                gate.releaseOne();
                assertThat(first.receive()).isNotEmpty();
                assertThat(second.receive()).isNotEmpty();
                await(server::callsInService, 0, "calls in service once all are answered");
                assertThat(gate.maxServing).as("never more than " + bound + " at once").hasValue(2);
            } finally {
                while (gate.held() > 0) {
                    gate.releaseOne();
                }
                server.close();
            }
        }
    }

    /**
     * The octets the Read chunks of all Calls in service pull are bounded
     * ({@link RpcRdmaSettings#serverReadChunkOctets()}): a Call whose Read chunk does not fit beside
     * those in service waits, unpulled, though the server has places, and goes on once room is
     * given back. Before, 256 Calls could pull 16 MiB each, beyond the direct memory, failing
     * whichever connection's allocation came last (the thirteenth review's item 1, left open).
     */
    @Test
    void aCallWhoseReadChunkDoesNotFitBesideThoseInServiceWaitsForRoom() throws Exception {
        GateProgram gate = new GateProgram();
        int octets = 64 << 10;
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build()) {
            RpcRdmaServer server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                    new RpcDispatcher().register(gate.holding(org.iwarp4j.oncrpc.sample.EchoProgram.PROGRAM,
                            org.iwarp4j.oncrpc.sample.EchoProgram.VERSION, org.iwarp4j.oncrpc.sample.EchoProgram.PROC_SINK)),
                    RpcRdmaPair.settings().serverReadChunkOctets(octets + octets / 2).build());
            RpcRdmaSettings settings = RpcRdmaPair.settings().build();
            try (org.iwarp4j.oncrpc.RpcClient a = client(clientRnic, server, settings);
                 org.iwarp4j.oncrpc.RpcClient b = client(clientRnic, server, settings)) {
                CompletableFuture<org.iwarp4j.oncrpc.sample.SinkResult> first =
                        new org.iwarp4j.oncrpc.sample.EchoClient(a).sink(zeroes(octets));
                gate.awaitHeld(1);
                assertThat(server.readChunkOctetsInService()).isEqualTo(octets);
                CompletableFuture<org.iwarp4j.oncrpc.sample.SinkResult> second =
                        new org.iwarp4j.oncrpc.sample.EchoClient(b).sink(zeroes(octets));
                await(server::connectionsWaitingForBudget, 1, "connections waiting for Read chunk octets");
                assertThat(gate.served).as("the second Call waits for room for its Read chunk").hasValue(1);
                assertThat(server.callsInService()).as("places enough: octets hold it").isEqualTo(1);

                gate.releaseOne(out -> out.writeUnsignedInt(octets).writeInt(0));
                assertThat(first).succeedsWithin(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                gate.awaitHeld(1);
                assertThat(gate.served).as("room given back: the second is pulled and served").hasValue(2);
                assertThat(server.readChunkOctetsInService()).isEqualTo(octets);

                gate.releaseOne(out -> out.writeUnsignedInt(octets).writeInt(0));
                assertThat(second).succeedsWithin(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                await(server::callsInService, 0, "calls in service once all are answered");
                assertThat(server.readChunkOctetsInService()).isZero();
                assertThat(gate.maxServing).hasValue(1);
            } finally {
                while (gate.held() > 0) {
                    gate.releaseOne();
                }
                server.close();
            }
        }
    }

    private static org.iwarp4j.oncrpc.RpcClient client(Rnic rnic, RpcRdmaServer server, RpcRdmaSettings settings)
            throws Exception {
        RpcRdmaRequester requester = RpcRdmaRequester.connect(rnic, server.localAddress(), settings)
                .get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        return org.iwarp4j.oncrpc.RpcClient.builder(requester)
                .timeout(java.time.Duration.ofSeconds(RpcRdmaPair.WAIT_SECONDS)).build();
    }

    private static io.netty.buffer.ByteBuf zeroes(int octets) {
        return io.netty.buffer.Unpooled.directBuffer(octets).writeZero(octets);
    }

    /** A connection that goes away while its Calls wait gives back what it held, and the next connection goes on. */
    @Test
    void aConnectionClosedWhileItsCallsWaitLeavesNothingCounted() throws Exception {
        GateProgram gate = new GateProgram();
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build()) {
            RpcRdmaServer server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                    new RpcDispatcher().register(gate.program()),
                    RpcRdmaSettings.builder().credits(GRANT).serverLimits(1, 64).build());
            try (RawPeer holder = RawPeer.requester(clientRnic, server.localAddress());
                 RawPeer next = RawPeer.requester(clientRnic, server.localAddress())) {
                holder.send(hold(1));
                gate.awaitHeld(1);
                try (RawPeer gone = RawPeer.requester(clientRnic, server.localAddress())) {
                    gone.send(hold(2));
                    gone.send(hold(3));
                    await(server::connectionsWaitingForBudget, 1, "connections waiting");
                }
                await(() -> server.responders().size(), 2, "connections open once the gone one is closed");
                await(server::connectionsWaitingForBudget, 0, "the gone one left the queue");
                next.send(hold(4));
                await(server::connectionsWaitingForBudget, 1, "only the next one waits, the gone one left");
                gate.releaseOne();
                gate.awaitHeld(1);
                assertThat(gate.served).as("the next connection's Call, not the gone one's").hasValue(2);
                gate.releaseOne();
                assertThat(next.receive()).isNotEmpty();
                await(server::callsInService, 0, "calls in service");
            } finally {
                while (gate.held() > 0) {
                    gate.releaseOne();
                }
                server.close();
            }
        }
    }

    /**
     * A Read sink the server cannot allocate (direct memory exhausted: an {@link OutOfMemoryError},
     * no RuntimeException) fails the pull as a failed Read does: the connection ends and the
     * Call's place in the server's budget is given back. The Error escaped the Call's start and
     * the place stayed taken for good: a few rounds of large Read chunks left a server with no
     * place to serve anyone (the thirteenth review's item 1). The server runs in a JVM of its own
     * with 12 MiB of direct memory and a budget of one Call, so a lost place shows as the next
     * client's NULL Call never being answered.
     */
    @Test
    void aReadSinkBeyondTheDirectMemoryGivesTheCallsPlaceBack() throws Exception {
        java.nio.file.Path javaCommand = java.nio.file.Paths.get(System.getProperty("java.home"), "bin", "java");
        Process server = new ProcessBuilder(java.util.List.of(javaCommand.toString(), "-XX:MaxDirectMemorySize=12m",
                "-cp", System.getProperty("java.class.path"), OneCallServerMain.class.getName()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build()) {
            java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(
                    server.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
            String announced = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return lines.readLine();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).get(60, TimeUnit.SECONDS);
            assertThat(announced).startsWith("rdma ");
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", Integer.parseInt(announced.substring(5)));
            RpcRdmaSettings settings = RpcRdmaPair.settings().build();

            RpcRdmaRequester first = RpcRdmaRequester.connect(clientRnic, address, settings)
                    .get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            try (org.iwarp4j.oncrpc.RpcClient client = org.iwarp4j.oncrpc.RpcClient.builder(first)
                    .timeout(java.time.Duration.ofSeconds(RpcRdmaPair.WAIT_SECONDS)).build()) {
                int length = 16 << 20; // a Read chunk the server cannot pull into 12 MiB
                io.netty.buffer.ByteBuf data = io.netty.buffer.Unpooled.buffer(length).writeZero(length);
                assertThat(new org.iwarp4j.oncrpc.sample.EchoClient(client).sink(data))
                        .failsWithin(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            }

            RpcRdmaRequester second = RpcRdmaRequester.connect(clientRnic, address, settings)
                    .get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            try (org.iwarp4j.oncrpc.RpcClient client = org.iwarp4j.oncrpc.RpcClient.builder(second)
                    .timeout(java.time.Duration.ofSeconds(RpcRdmaPair.WAIT_SECONDS)).build()) {
                assertThat(new org.iwarp4j.oncrpc.sample.EchoClient(client).nullCall())
                        .as("a NULL Call on a new connection, which needs the server's only place")
                        .succeedsWithin(10, TimeUnit.SECONDS);
            }
        } finally {
            server.getOutputStream().close();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }
}
