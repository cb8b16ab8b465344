package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.iwarp4j.rpcrdma.Messages.call;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.echoCall;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.words;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The limits of our Responder against a hand-made Requester: an idle connection is closed, one with a
 * Call in service is not, and an RDMA Read the Requester never answers (it stopped reading its TCP
 * connection, so the Read Request is never served) fails the Call and aborts the connection instead
 * of pinning it. Limits are set short; every wait has a timeout.
 */
class RpcRdmaLimitsTest {

    private static final long WAIT_SECONDS = 10;
    private static final int SLOW_PROGRAM = 0x2049_5777;
    /** Three idle timeouts of the test below: the timer would fire twice while the call is in service. */
    private static final long SLOW_CALL_MILLIS = 3_000;

    private final Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
    private final CompletableFuture<Channel> peerChannel = new CompletableFuture<>();
    private final Rnic clientRnic = Rnic.builder().eventLoopThreads(1).channelInitializer(peerChannel::complete).build();
    private RpcRdmaServer server;
    private RawPeer peer;

    @AfterEach
    void close() {
        try {
            if (peer != null) {
                peer.close();
            }
            if (server != null) {
                server.close();
            }
        } finally {
            clientRnic.close();
            serverRnic.close();
        }
    }

    private void serve(RpcRdmaSettings.Builder settings) throws Exception {
        RpcProgram slow = RpcProgram.builder(SLOW_PROGRAM, 1).procedure(1, (ctx, args) -> {
            XdrMessage results = ctx.newEncoder().toMessage();
            return CompletableFuture.supplyAsync(() -> results,
                    CompletableFuture.delayedExecutor(SLOW_CALL_MILLIS, TimeUnit.MILLISECONDS));
        }).build();
        RpcDispatcher dispatcher = new RpcDispatcher().register(EchoProgram.create()).register(slow);
        server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0), dispatcher,
                settings.binding(new EchoBinding()).build());
        peer = RawPeer.requester(clientRnic, server.localAddress());
    }

    @Test
    void aConnectionThatNeverSendsAnythingIsClosedGracefullyAfterTheIdleTimeout() throws Exception {
        // Before the connection: the idle clock starts when it is established, after this. (Taken
        // after serve() returned, it could follow the establishment by any time a loaded machine
        // holds this thread up, and the close seem early.)
        long start = System.nanoTime();
        serve(RpcRdmaSettings.builder().idleTimeout(Duration.ofMillis(200)));
        peer.qp.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(server.idleClosedConnections()).isEqualTo(1);
        assertThat(peer.qp.terminateReason()).as("closed without a Terminate").isNull();
    }

    @Test
    void aConnectionIsClosedAfterItsLastCallWasAnsweredAndItStayedIdle() throws Exception {
        // The idle timer runs from establishment: the call must arrive before it expires, which 200 ms
        // does not promise on a loaded machine (the next test says so); the timeout of the next test.
        serve(RpcRdmaSettings.builder().idleTimeout(Duration.ofMillis(SLOW_CALL_MILLIS / 3)));
        peer.send(concat(fixed(0x31, 1, 1, 0), words(0, 0, 0), echoCall(0x31, EchoProgram.PROC_NULL, new byte[0])));
        assertThat(peer.receive()).startsWith(words(0x31, 1));
        peer.qp.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(server.idleClosedConnections()).isEqualTo(1);
    }

    @Test
    void aCallInServiceLongerThanTheIdleTimeoutKeepsItsConnection() throws Exception {
        // The idle timer runs from establishment, so the timeout must exceed the time our first Send
        // takes to arrive even on a loaded machine (200 ms did not: the connection was closed as idle
        // before the call came); the call is then in service for three timeouts.
        // A Call in service is no work outstanding either: the reply send bound does not count it.
        serve(RpcRdmaSettings.builder().idleTimeout(Duration.ofMillis(SLOW_CALL_MILLIS / 3))
                .maxReplySendTime(Duration.ofMillis(SLOW_CALL_MILLIS / 3)));
        peer.send(concat(fixed(0x41, 1, 1, 0), words(0, 0, 0), call(0x41, SLOW_PROGRAM, 1, 1, new byte[0])));
        byte[] reply = peer.receive(); // 3 s later; a close while serving would flush the Receive instead
        assertThat(reply).startsWith(words(0x41, 1));
        assertThat(server.idleClosedConnections()).isZero();
        assertThat(server.replyTimeoutClosedConnections()).isZero();
    }

    /**
     * A Requester that stops reading its TCP connection after sending a Call whose result is RDMA
     * Written into an 8 MiB Write chunk (more than the sockets between them hold): the Writes stop
     * completing, and {@link RpcRdmaSettings#maxReplySendTime()} after the last one completed the
     * connection is aborted, which answers the Call and gives its place in service back. Without the
     * bound the place was held for as long as the Requester stayed connected, the idle timeout
     * never firing while work is outstanding.
     */
    @Test
    void aRequesterThatReadsNothingLosesItsConnectionAndItsPlaceInService() throws Exception { // RPC-R-069
        int segments = 8;
        int segment = 1 << 20;
        serve(RpcRdmaSettings.builder().idleTimeout(Duration.ZERO).maxReplySendTime(Duration.ofMillis(300)));
        RpcRdmaResponder responder = server.responders().get(0);
        ByteBuf memory = Unpooled.directBuffer(segments * segment).writeZero(segments * segment);
        try (MemoryRegion sink = peer.qp.register(memory, EnumSet.of(Access.REMOTE_WRITE))) {
            Channel channel = peerChannel.get(WAIT_SECONDS, TimeUnit.SECONDS);
            channel.eventLoop().submit(() -> channel.config().setAutoRead(false)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            // One Write chunk of 8 segments of 1 MiB (RFC 8166 §3.4.6), then no Reply chunk.
            peer.send(concat(fixed(0x71, 1, 1, 0), Messages.oneWriteChunk(sink, segments, segment),
                    echoCall(0x71, EchoProgram.PROC_SOURCE, words(segments * segment))));
            responder.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(server.replyTimeoutClosedConnections()).isEqualTo(1);
            assertThat(responder.queuePair().state()).as("aborted").isEqualTo(QueuePairState.ERROR);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (server.callsInService() != 0) {
                assertThat(System.nanoTime()).as("the Call's place given back").isLessThan(deadline);
                Thread.onSpinWait();
            }
        } finally {
            memory.release();
        }
    }

    @Test
    void anRdmaReadTheRequesterNeverAnswersFailsTheCallAndAbortsTheConnection() throws Exception {
        serve(RpcRdmaSettings.builder().idleTimeout(Duration.ZERO).rdmaReadTimeout(Duration.ofMillis(300)));
        RpcRdmaResponder responder = server.responders().get(0);
        ByteBuf memory = Unpooled.directBuffer(8).writeZero(8);
        try (MemoryRegion source = peer.qp.register(memory, EnumSet.of(Access.REMOTE_READ))) {
            // The Requester stops reading its connection: our Read Request is never served.
            Channel channel = peerChannel.get(WAIT_SECONDS, TimeUnit.SECONDS);
            channel.eventLoop().submit(() -> channel.config().setAutoRead(false)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            // Before the call: the Read's clock starts when the server, having read the call, issues it.
            long start = System.nanoTime();
            // SINK with its 8 octets in a Read chunk at Position 44 (RFC 8166 §3.4.5).
            peer.send(concat(fixed(0x51, 1, 1, 0), words(1, 44, source.stag(), 8,
                    (int) (source.baseTaggedOffset() >>> 32), (int) source.baseTaggedOffset(), 0, 0, 0),
                    echoCall(0x51, EchoProgram.PROC_SINK, words(8))));
            responder.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
            assertThat(responder.endpoint().readsTimedOut()).isEqualTo(1);
            assertThat(responder.queuePair().state()).isEqualTo(QueuePairState.ERROR);
        } finally {
            memory.release();
        }
    }

    @Test
    void aResponderReadChunkTheResponderNeverServesFailsTheCallAtTheRequester() throws Exception {
        CompletableFuture<Channel> rawChannel = new CompletableFuture<>();
        try (Rnic rawRnic = Rnic.builder().eventLoopThreads(1).channelInitializer(rawChannel::complete).build();
             RawPeer raw = RawPeer.responder(rawRnic, new byte[0])) {
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic, raw.address(), RpcRdmaSettings.builder()
                    .binding(new EchoBinding()).responderReadChunks(true).reconnect(false)
                    .rdmaReadTimeout(Duration.ofMillis(300)).build()).get(WAIT_SECONDS, TimeUnit.SECONDS);
            ByteBuf memory = Unpooled.directBuffer(64).writeZero(64);
            try (MemoryRegion reply = raw.qp.register(memory, EnumSet.of(Access.REMOTE_READ))) {
                raw.accepted().get(WAIT_SECONDS, TimeUnit.SECONDS);
                CompletableFuture<XdrMessage> call = requester.call(
                        new RpcCallInfo(0x61, EchoProgram.PROGRAM, EchoProgram.VERSION, 0),
                        XdrMessage.of(Unpooled.wrappedBuffer(echoCall(0x61, 0, new byte[0]))));
                raw.receive();
                // The Responder stops reading its connection, then offers the Reply in a Position-Zero
                // Read chunk (RDMA_NOMSG): the Requester's Read Request is never served.
                Channel channel = rawChannel.get(WAIT_SECONDS, TimeUnit.SECONDS);
                channel.eventLoop().submit(() -> channel.config().setAutoRead(false)).get(WAIT_SECONDS, TimeUnit.SECONDS);
                raw.send(concat(fixed(0x61, 1, 4, 1), words(1, 0, reply.stag(), 64,
                        (int) (reply.baseTaggedOffset() >>> 32), (int) reply.baseTaggedOffset(), 0, 0, 0)));
                Throwable failure = catchThrowable(() -> call.get(WAIT_SECONDS, TimeUnit.SECONDS));
                assertThat(failure).isInstanceOf(ExecutionException.class);
                assertThat(failure.getCause()).isInstanceOf(RpcTransportException.class)
                        .hasMessageContaining("not answered within");
            } finally {
                memory.release();
                requester.close();
                Channel channel = rawChannel.getNow(null);
                if (channel != null) {
                    channel.config().setAutoRead(true); // lets the raw peer see the close and shut down
                }
            }
        }
    }
}
