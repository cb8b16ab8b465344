package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.echoCall;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.reply;
import static org.iwarp4j.rpcrdma.Messages.words;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.RpcReply;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.Test;

/** Connection loss: retransmission after reconnect (RFC 8166 §4.5.5) and ERR_CHUNK for a failed XID (§4.5.3). */
class ReconnectTest {

    @Test
    void aCallWithoutAReplyIsRetransmittedWithTheSameXidOnANewConnection() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            p.dispatcher.register(gate.program());
            CompletableFuture<RpcReply> call = p.client.call(GateProgram.PROGRAM, GateProgram.VERSION,
                    GateProgram.HOLD, a -> { });
            gate.awaitHeld(1);
            p.responder().close(); // the server drops the connection while the Call is being served
            RpcRdmaResponder second = p.nextConnection();
            gate.awaitHeld(2); // the retransmission reached the new connection
            gate.releaseOne(); // the first answer has no connection to go to
            gate.releaseOne();
            await(call).close();
            assertThat(p.requester.connections()).isEqualTo(2);
            assertThat(p.requester.retransmissions()).isEqualTo(1);
            List<Integer> xids = p.serverWire.received().stream().map(m -> m.header().xid()).collect(Collectors.toList());
            assertThat(xids).hasSize(2);
            assertThat(xids.get(1)).isEqualTo(xids.get(0));
            assertThat(second.callsReceived()).isEqualTo(1);
            await(p.echo.nullCall()); // and the new connection carries on
        }
    }

    /**
     * The same loss for a non-idempotent procedure: the retransmission reaches the new connection
     * while the first transmission still runs, waits for it in the dispatcher's duplicate request
     * cache instead of running again, and gets its reply.
     */
    @Test
    void aNonIdempotentCallRetransmittedAfterTheReconnectRunsOnceAndGetsTheFirstReply() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            Retransmitted r = heldAndRetransmitted(p, gate);
            assertThat(gate.held()).as("and did not run again").isEqualTo(1);
            gate.releaseOne(); // the first answer has no connection to go to: its copy answers the retransmission
            await(r.call()).close();
            assertThat(gate.served).hasValue(1);
            assertThat(p.requester.retransmissions()).isEqualTo(1);
            List<Integer> xids = p.serverWire.received().stream().map(m -> m.header().xid()).collect(Collectors.toList());
            assertThat(xids).hasSize(2);
            assertThat(xids.get(1)).isEqualTo(xids.get(0));
            await(p.echo.nullCall());
        }
    }

    /**
     * A retransmission whose first reply is not kept (longer than the cache's 1 KiB) cannot be
     * answered from the cache and must not run again: it gets nothing at all, as from knfsd — no
     * RDMA_ERROR, which would end the call at the Requester for good. (Until the Requester gives up
     * or retransmits, the call holds its credit; on a new connection, with the one credit a
     * Requester assumes before the first Reply, that is every credit.)
     */
    @Test
    void aRetransmissionWhoseFirstReplyIsNotKeptIsDroppedWithoutAnRdmaError() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            Retransmitted r = heldAndRetransmitted(p, gate);
            // Completes the first transmission and, on this thread, whatever the Responder does with
            // the waiting retransmission: an RDMA_ERROR would be counted before releaseOne returns.
            gate.releaseOne(out -> out.writeOpaque(new byte[2000], 2000));
            assertThat(p.serverMeters.get("iwarp.oncrpc.duplicates").tag("outcome", "dropped").counter().count())
                    .isEqualTo(1);
            assertThat(r.second().errChunkSent()).isZero();
            assertThat(r.second().errVersSent()).isZero();
            assertThat(r.call()).isNotDone(); // until the Requester's own timeout (the Linux client's: it retransmits)
            assertThat(gate.served).hasValue(1);
        }
    }

    /** A Call to the gate's non-idempotent HOLD, and the server's connection its retransmission came on. */
    private record Retransmitted(CompletableFuture<RpcReply> call, RpcRdmaResponder second) {
    }

    /**
     * Calls HOLD, drops the server's connection while the gate holds it, and waits until the
     * retransmission on the next connection waits in the dispatcher's duplicate request cache.
     */
    private static Retransmitted heldAndRetransmitted(RpcRdmaPair p, GateProgram gate) throws Exception {
        Retransmitted r = heldAndDropped(p, gate, gate.nonIdempotentProgram());
        assertThat(RpcRdmaPair.awaitCount(() -> (long) p.serverMeters.get("iwarp.oncrpc.duplicates.waited")
                .counter().count(), 1)).as("the retransmission waits for the first in the cache").isEqualTo(1);
        return r;
    }

    /** Calls HOLD of {@code program}, drops the server's connection while the gate holds it and takes the next one. */
    private static Retransmitted heldAndDropped(RpcRdmaPair p, GateProgram gate, RpcProgram program) throws Exception {
        p.dispatcher.register(program);
        CompletableFuture<RpcReply> call = p.client.call(GateProgram.PROGRAM, GateProgram.VERSION,
                GateProgram.HOLD, a -> { });
        gate.awaitHeld(1);
        p.responder().close();
        return new Retransmitted(call, p.nextConnection());
    }

    /**
     * A Call the server loses the connection for every time it is sent fails once it was sent 1 +
     * maxRetransmissions times, instead of going round for ever.
     */
    @Test
    void aCallIsSentAtMostOnePlusMaxRetransmissionsTimes() throws Exception {
        GateProgram gate = new GateProgram();
        Duration quick = Duration.ofMillis(50);
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().maxRetransmissions(1).reconnectDelay(quick, quick))) {
            Retransmitted r = heldAndDropped(p, gate, gate.program());
            gate.awaitHeld(2); // sent again
            r.second().close();
            try {
                r.call().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                throw new AssertionError("expected the call to fail");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(RpcTransportException.class).hasMessageContaining("sent 2 times");
            }
            assertThat(p.requester.retransmissions()).isEqualTo(1);
            gate.releaseOne();
            gate.releaseOne();
        }
    }

    /**
     * A server that closes an idle connection (its idle timeout) is not connected to again until
     * there is a Call: before, the Requester connected again at once, holding a connection of the
     * server's for ever.
     */
    @Test
    void anIdleRequesterConnectsAgainOnlyForItsNextCall() throws Exception {
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().idleTimeout(Duration.ofMillis(200)))) {
            await(p.echo.nullCall());
            p.responder().closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            String state = awaitState(p.requester, s -> !s.startsWith("connection 1 open")
                    && !s.startsWith("connection 1 closing"));
            assertThat(state).as("lost, and not connecting again").startsWith("connection 1 lost, 0 calls");
            assertThat(p.requester.connections()).isEqualTo(1);
            await(p.echo.nullCall());
            assertThat(p.requester.connections()).isEqualTo(2);
        }
    }

    /**
     * A server that accepts every connection and closes it at once: the Requester's attempts are
     * spaced by the reconnect delay (before, it connected again the moment each closed, allocating
     * a protection domain, queues and buffers every round), and it stops once no Call waits.
     */
    @Test
    void againstAServerThatClosesEveryConnectionAttemptsAreSpacedByTheDelay() throws Exception {
        Duration delay = Duration.ofMillis(200);
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RawPeer.Listening closer = RawPeer.listening(serverRnic, RpcRdmaPrivateData.of(true, 4096, 4096).encode(),
                     true)) {
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic, closer.address(), RpcRdmaSettings.builder()
                    .binding(new EchoBinding()).reconnectDelay(delay, delay).build())
                    .get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            try (RpcClient client = RpcClient.builder(requester).timeout(Duration.ofSeconds(2)).build()) {
                long start = System.nanoTime();
                CompletableFuture<Void> call = new EchoClient(client).nullCall();
                assertThatThrownBy(() -> call.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class);
                long elapsed = System.nanoTime() - start;
                // The first connection, one at once for the Call, then one per delay at most.
                assertThat(closer.count()).isLessThanOrEqualTo((int) (2 + elapsed / delay.toNanos() + 1));
                String state = awaitState(requester, s -> s.contains(" lost, 0 calls"));
                assertThat(state).contains(" lost, 0 calls");
            }
        }
    }

    /** The Requester's state once {@code done} holds of it, or after {@link RpcRdmaPair#WAIT_SECONDS}. */
    private static String awaitState(RpcRdmaRequester requester, Predicate<String> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RpcRdmaPair.WAIT_SECONDS);
        String state;
        while (!done.test(state = requester.state()) && System.nanoTime() < deadline) {
            Thread.yield();
        }
        return state;
    }

    @Test
    void withoutReconnectCallsFailWhenTheConnectionIsLost() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().reconnect(false))) {
            p.dispatcher.register(gate.program());
            CompletableFuture<RpcReply> call = p.client.call(GateProgram.PROGRAM, GateProgram.VERSION,
                    GateProgram.HOLD, a -> { });
            gate.awaitHeld(1);
            p.responder().close();
            try {
                call.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                throw new AssertionError("expected the call to fail");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(RpcTransportException.class).hasMessageContaining("lost");
            }
            gate.releaseOne();
            // Later Calls fail at once instead of waiting for a connection that will not come.
            try {
                p.echo.nullCall().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                throw new AssertionError("expected the call to fail");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(RpcTransportException.class);
            }
        }
    }

    @Test
    void whenTheServerIsGoneReconnectingFailsTheCallsAndALaterCallTriesAgain() throws Exception {
        Duration quick = Duration.ofMillis(50); // the second attempt comes a delay after the first
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().reconnectDelay(quick, quick))) {
            await(p.echo.nullCall());
            p.server.close(); // stops listening and drops the connection
            for (int attempt = 0; attempt < 2; attempt++) {
                try {
                    p.echo.nullCall().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                    throw new AssertionError("expected the call to fail");
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(RpcTransportException.class);
                }
            }
            assertThat(p.requester.connections()).isEqualTo(1);
        }
    }

    private static final int GRANT = 4;

    private static RpcRdmaServer echoServer(Rnic rnic) throws InterruptedException {
        return RpcRdmaServer.listen(rnic, new InetSocketAddress("127.0.0.1", 0),
                new RpcDispatcher().register(EchoProgram.create()),
                RpcRdmaSettings.builder().credits(GRANT).binding(new EchoBinding()).build());
    }

    /** SOURCE of {@code count} octets into a one-segment Write chunk (handle, length, offset). */
    private static byte[] sourceIntoWriteChunk(int xid, int handle, int length, long offset, int count) {
        return concat(fixed(xid, 1, 1, 0), words(0, 1, 1, handle, length, (int) (offset >>> 32), (int) offset, 0, 0),
                echoCall(xid, EchoProgram.PROC_SOURCE, words(count)));
    }

    /** SOURCE of 3000 octets into a Write chunk whose STag the Requester never registered. */
    private static byte[] sourceIntoAnUnregisteredChunk(int xid) {
        return sourceIntoWriteChunk(xid, 0x0BAD0BAD, 3000, 0x7f00_0000_0000L, 3000);
    }

    private static byte[] nullCall(int xid) {
        return concat(fixed(xid, 1, 1, 0), words(0, 0, 0), echoCall(xid, EchoProgram.PROC_NULL, new byte[0]));
    }

    /** The whole answer to {@link #nullCall}: RDMA_MSG with three empty lists, then an empty accepted Reply. */
    private static byte[] nullReply(int xid) {
        return concat(words(xid, 1, GRANT, 0, 0, 0, 0), reply(xid, new byte[0]));
    }

    private static byte[] errChunk(int xid) {
        return words(xid, 1, GRANT, 4, 2);
    }

    /** Connects, sends {@code call} and waits until the peer's RNIC ended the connection with a Terminate. */
    private static void failOnce(Rnic rnic, RpcRdmaServer server, byte[] call) throws Exception {
        try (RawPeer peer = RawPeer.requester(rnic, server.localAddress())) {
            peer.send(call);
            peer.qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(peer.qp.terminateReason().errorType()).isEqualTo(0x1); // a protection error
            assertThat(peer.qp.terminateReceived()).isFalse(); // our RNIC refused the server's RDMA operation
        }
    }

    /** SINK of {@code length} octets in a Read chunk at Position 44 (after the call header and the length word). */
    private static byte[] sinkFromReadChunk(int xid, int handle, int length, long offset) {
        return concat(fixed(xid, 1, 1, 0), words(1, 44, handle, length, (int) (offset >>> 32), (int) offset, 0, 0, 0),
                echoCall(xid, EchoProgram.PROC_SINK, words(length)));
    }

    @Test
    void anXidWhoseRdmaReadKilledTheConnectionGetsErrChunkAfterTheReconnect() throws Exception { // RPC-R-067
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer server = echoServer(serverRnic)) {
            byte[] call = sinkFromReadChunk(0x5555, 0x0BAD0BAD, 8, 0x1000);
            failOnce(clientRnic, server, call);
            try (RawPeer again = RawPeer.requester(clientRnic, server.localAddress())) {
                again.send(call);
                assertThat(again.receive()).isEqualTo(errChunk(0x5555));
            }
        }
    }

    /** SINK from a good Read chunk and SOURCE into a good Write chunk on {@code peer}: both answered. */
    private static void twoGoodCalls(RawPeer peer, int sinkXid, int sourceXid) throws Exception {
        ByteBuf data = Unpooled.directBuffer(8).writeLong(0x0102030405060708L);
        ByteBuf sink = Unpooled.directBuffer(100).writeZero(100);
        try (MemoryRegion source = peer.qp.register(data, EnumSet.of(Access.REMOTE_READ));
             MemoryRegion target = peer.qp.register(sink, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
            peer.send(sinkFromReadChunk(sinkXid, source.stag(), 8, source.baseTaggedOffset()));
            assertThat(peer.receive()).startsWith(words(sinkXid, 1, GRANT, 0, 0, 0, 0, sinkXid, 1, 0, 0, 0, 0, 8));
            peer.send(sourceIntoWriteChunk(sourceXid, target.stag(), 100, target.baseTaggedOffset(), 100));
            assertThat(peer.receive()).startsWith(words(sourceXid, 1, GRANT, 0, 0, 1, 1, target.stag(), 100));
        } finally {
            data.release();
            sink.release();
        }
    }

    @Test
    void answeredCallsAreNotBlamedForAnotherCallsFailedWrite() throws Exception { // RPC-R-067
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer server = echoServer(serverRnic)) {
            try (RawPeer peer = RawPeer.requester(clientRnic, server.localAddress())) {
                twoGoodCalls(peer, 0x5656, 0x5658);
                peer.send(sourceIntoAnUnregisteredChunk(0x5657)); // this one kills the connection
                peer.qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(peer.qp.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
            }
            try (RawPeer peer = RawPeer.requester(clientRnic, server.localAddress())) {
                // Sent again (same XIDs, same shapes): served. Their RDMA Reads came back; their RDMA
                // Writes were to another STag than the one the Requester's Terminate named.
                twoGoodCalls(peer, 0x5656, 0x5658);
                peer.send(sourceIntoAnUnregisteredChunk(0x5657)); // the failed one is remembered
                assertThat(peer.receive()).isEqualTo(errChunk(0x5657));
            }
        }
    }

    @Test
    void anXidWhoseRdmaWriteKilledTheConnectionGetsErrChunkOnceAfterTheReconnect() throws Exception { // RPC-R-067
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer server = echoServer(serverRnic)) {
            byte[] call = sourceIntoAnUnregisteredChunk(0x5151);
            failOnce(clientRnic, server, call);
            try (RawPeer again = RawPeer.requester(clientRnic, server.localAddress())) {
                again.send(call); // retransmitted on the new connection: no second RDMA Write, ERR_CHUNK
                assertThat(again.receive()).isEqualTo(errChunk(0x5151));
                // Remembered for one answer only: a Requester that sends the XID once more is served
                // (here the Write fails again, since the chunk is still bad).
                again.send(call);
                again.qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(again.qp.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
            }
        }
    }

    @Test
    void anotherClientOnTheSameHostReusingAFailedXidForANullCallIsServed() throws Exception { // RPC-R-067
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer server = echoServer(serverRnic)) {
            byte[] call = sourceIntoAnUnregisteredChunk(0x5252);
            failOnce(clientRnic, server, call);
            // A different client on the same host, whose XIDs happen to collide: its NULL Call asks
            // for no RDMA at all, so it cannot repeat the failure, and it is answered as usual.
            try (RawPeer other = RawPeer.requester(clientRnic, server.localAddress())) {
                other.send(nullCall(0x5252));
                assertThat(other.receive()).isEqualTo(nullReply(0x5252));
            }
            // ... and that did not use up the first client's entry: its retransmission still gets ERR_CHUNK.
            try (RawPeer again = RawPeer.requester(clientRnic, server.localAddress())) {
                again.send(call);
                assertThat(again.receive()).isEqualTo(errChunk(0x5252));
            }
        }
    }

    @Test
    void aCallOfAnotherShapeWithAFailedXidIsServed() throws Exception { // RPC-R-067
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer server = echoServer(serverRnic)) {
            failOnce(clientRnic, server, sourceIntoAnUnregisteredChunk(0x5353));
            // Same XID and it asks for RDMA Writes too, but it is not the failed Call: another procedure.
            ByteBuf memory = Unpooled.directBuffer(64).writeZero(64);
            try (RawPeer other = RawPeer.requester(clientRnic, server.localAddress());
                 MemoryRegion target = other.qp.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
                byte[] echo = concat(fixed(0x5353, 1, 1, 0), words(0, 0, 1, 1, target.stag(), 64,
                                (int) (target.baseTaggedOffset() >>> 32), (int) target.baseTaggedOffset()),
                        echoCall(0x5353, EchoProgram.PROC_ECHO, words(4, 0x61626364)));
                other.send(echo);
                assertThat(other.receive()).isEqualTo(concat(words(0x5353, 1, GRANT, 0, 0, 0, 1, 1, target.stag(), 0,
                        (int) (target.baseTaggedOffset() >>> 32), (int) target.baseTaggedOffset()),
                        reply(0x5353, words(4, 0x61626364))));
            } finally {
                memory.release();
            }
        }
    }

    @Test
    void aTerminateTheServerSentForThePeersFaultMakesNoXidFail() throws Exception { // RPC-R-067
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer server = echoServer(serverRnic)) {
            // A hostile client: its SOURCE into a good Write chunk is answered, then it writes into
            // server memory it was never given, and the server's RNIC ends the connection.
            ByteBuf memory = Unpooled.directBuffer(3000).writeZero(3000);
            ByteBuf junk = Unpooled.directBuffer(16).writeZero(16);
            try (RawPeer hostile = RawPeer.requester(clientRnic, server.localAddress());
                 MemoryRegion target = hostile.qp.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                 MemoryRegion source = hostile.pd.register(junk, EnumSet.of(Access.LOCAL_WRITE))) {
                hostile.send(sourceIntoWriteChunk(0x5454, target.stag(), 3000, target.baseTaggedOffset(), 3000));
                assertThat(hostile.receive()).startsWith(words(0x5454, 1, GRANT, 0, 0, 1, 1, target.stag(), 3000));
                hostile.qp.postSend(SendWorkRequest.rdmaWrite(1, 0x0BAD0BAD, 0, source.sge()));
                hostile.qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(hostile.qp.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
                assertThat(hostile.qp.terminateReceived()).isTrue(); // the server's RNIC sent it
            } finally {
                memory.release();
                junk.release();
            }
            // Another client on the host sends the very same Call with its own good chunk: served.
            ByteBuf mine = Unpooled.directBuffer(3000).writeZero(3000);
            try (RawPeer other = RawPeer.requester(clientRnic, server.localAddress());
                 MemoryRegion target = other.qp.register(mine, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
                other.send(sourceIntoWriteChunk(0x5454, target.stag(), 3000, target.baseTaggedOffset(), 3000));
                assertThat(other.receive()).startsWith(words(0x5454, 1, GRANT, 0, 0, 1, 1, target.stag(), 3000));
                assertThat(mine.getByte(2999)).isEqualTo(EchoProgram.sourceByte(2999));
            } finally {
                mine.release();
            }
        }
    }
}
