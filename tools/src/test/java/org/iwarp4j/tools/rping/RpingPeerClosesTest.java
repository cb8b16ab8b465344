package org.iwarp4j.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.tools.rping.internal.RpingFailure;
import org.iwarp4j.tools.rping.internal.RpingLog;
import org.iwarp4j.tools.rping.internal.RpingRdmaInfo;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * A peer that closes or resets the connection between two steps of a ping: the next post finds
 * the queue pair past RTS, which refuses it, or the work posted fails, flushed or (a Send being
 * written) FATAL with the connection's I/O error. Each is rping's DISCONNECT event, never an exception or a
 * "cq completion failed". Each test holds this end back until its queue pair has seen the close
 * (its close future), so the post comes after the close every time; run freely, which of them a
 * peer's close gives is a race.
 */
class RpingPeerClosesTest {

    private static final int WAIT = Rpings.WAIT_SECONDS;

    @Test
    void anEndlessClientWhoseServerClosedBeforeItsFirstPostEndsWithTheDisconnectEvent() throws Exception {
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CLOSE_AFTER_HANDSHAKE)) {
            Rpings.Output output = new Rpings.Output();
            RpingOptions options = Rpings.client(server.port()).build();
            RpingResult result = pingAfterThePeerClosed(options, output);

            // rping's normal end of a run without -C: the server went away between pings.
            assertThat(result.failure()).isNull();
            assertThat(result.completed()).isZero();
            assertThat(output.err.toString().lines()).containsExactly("client DISCONNECT EVENT...");
            server.done.get(WAIT, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientWithACountWhoseServerClosedBeforeItsFirstPostFailsSayingSo() throws Exception {
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CLOSE_AFTER_HANDSHAKE)) {
            Rpings.Output output = new Rpings.Output();
            RpingResult result = pingAfterThePeerClosed(Rpings.client(server.port()).count(3).build(), output);

            assertThat(result.failure()).isEqualTo("the peer disconnected before this end could post the Send of the"
                    + " start buffer (0 iterations completed)");
            assertThat(output.err.toString().lines()).containsExactly("client DISCONNECT EVENT...",
                    "rping client failed: " + result.failure());
        }
    }

    /** Connects {@code options}' client, waits until its queue pair has seen the server's close, then pings. */
    private static RpingResult pingAfterThePeerClosed(RpingOptions options, Rpings.Output output) throws Exception {
        RpingClient client = new RpingClient(options, output.outWriter, output.errWriter);
        try (RpingEndpoint endpoint = new RpingEndpoint(options, silent())) {
            endpoint.postReceive();
            endpoint.queuePair.connect(options.socketAddress()).get(WAIT, TimeUnit.SECONDS);
            endpoint.queuePair.closeFuture().get(WAIT, TimeUnit.SECONDS);
            assertThat(endpoint.queuePair.state()).isEqualTo(QueuePairState.ERROR);
            return client.ping(endpoint, endpoint.queuePair.negotiated());
        }
    }

    @Test
    void aServerWhoseClientClosedAfterItsStartBufferFailsAsADisconnectMidPing() throws Exception {
        RpingOptions serverOptions = RpingOptions.serverBuilder().address(InetAddress.getLoopbackAddress()).port(0)
                .timeout(Rpings.STEP_TIMEOUT).build();
        Rpings.Output output = new Rpings.Output();
        RpingLog log = new RpingLog(output.outWriter, output.errWriter, false);
        try (RpingEndpoint server = new RpingEndpoint(serverOptions, log)) {
            server.postReceive();
            Listener listener = server.rnic.listen(serverOptions.socketAddress(), serverOptions.mpaSettings(),
                    r -> r.accept(server.queuePair));
            try (RpingEndpoint client = connectedClient((InetSocketAddress) listener.localAddress())) {
                // The client's start buffer, then its FIN, in that order: the Send arrives whole.
                client.send(RpingEndpoint.describe(client.startMr, serverOptions.size()), "the start buffer");
                client.queuePair.close().get(WAIT, TimeUnit.SECONDS);
                server.queuePair.closeFuture().get(WAIT, TimeUnit.SECONDS);

                RpingResult served = new ServerPingLoop(serverOptions, log, server, () -> false, null)
                        .run(server.queuePair.negotiated());

                // The client left in the middle of a ping: a failure, as a flushed RDMA Read would be.
                assertThat(served.failure()).isEqualTo("the peer disconnected before this end could post the RDMA"
                        + " Read of the client's start buffer (0 iterations completed)");
                assertThat(output.err.toString().lines()).containsExactly("rping server failed: " + served.failure());
            } finally {
                listener.close();
            }
        }
    }

    @Test
    void aMessageThatArrivedBeforeTheCloseIsReceivedAndTheNextStepIsTheDisconnect() throws Exception {
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CLOSE_AFTER_FIRST_PING);
             RpingEndpoint client = connectedClient(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                     server.port()))) {
            RpingRdmaInfo start = RpingEndpoint.describe(client.startMr, client.startMr.length());
            client.send(start, "the start buffer");
            assertThat(client.receive("the first go ahead")).isEqualTo(RpingRdmaInfo.GO_AHEAD);
            client.send(RpingEndpoint.describe(client.rdmaMr, client.rdmaMr.length()), "the sink buffer");
            // The server's last go ahead and then its FIN; the receive is posted again only after both.
            client.queuePair.closeFuture().get(WAIT, TimeUnit.SECONDS);

            // The go ahead arrived whole: it completes the ping (a client's last go ahead, its last ping).
            assertThat(client.receive("the second go ahead")).isEqualTo(RpingRdmaInfo.GO_AHEAD);
            assertDisconnected(() -> client.send(start, "the start buffer"),
                    "the peer disconnected before this end could post the start buffer");
            // No receive could be posted again: a wait for one reports the disconnect, not a timeout.
            assertDisconnected(() -> client.receive("the next go ahead"),
                    "the peer disconnected while this end waited for the next go ahead");
            server.done.get(WAIT, TimeUnit.SECONDS);
        }
    }

    /**
     * A Send whose write fails with an I/O error (the socket's reset, or a write still pending when
     * the peer's FIN closed the connection) completes FATAL with that cause, ahead of the flushed
     * receive: a peer's close between pings gives this instead of a refused post or a flush when it
     * meets the client's Send on its way out. The write fails here at the head of the client's
     * pipeline, next to the socket, to take that side every time.
     */
    @Test
    void aSendFailedByTheConnectionsIoErrorIsTheDisconnect() throws Exception {
        RpingFailure failure = receiveAfterAFailedSend(new IOException("Broken pipe"));
        assertThat(failure.disconnected()).as(failure.getMessage()).isTrue();
        assertThat(failure).hasMessage("the peer disconnected (Broken pipe) while this end waited for the go ahead");
    }

    @Test
    void aSendFailedByAFailureOfThisStacksIsNoDisconnect() throws Exception {
        RpingFailure failure = receiveAfterAFailedSend(new IllegalStateException("a bug"));
        assertThat(failure.disconnected()).as(failure.getMessage()).isFalse();
        assertThat(failure).hasMessage("cq completion failed status FATAL while waiting for the go ahead");
    }

    /** Connects a client, makes its first Send's write fail with {@code cause} and waits for the go ahead. */
    private static RpingFailure receiveAfterAFailedSend(Throwable cause) throws Exception {
        FailingWrites writes = new FailingWrites();
        Rnic rnic = Rnic.builder().eventLoopThreads(1).channelInitializer(ch -> ch.pipeline().addLast(writes)).build();
        // A server that waits for the client's first Send, which never comes: its fault plays no part.
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CLOSE_AFTER_FIRST_PING)) {
            RpingOptions options = Rpings.client(server.port()).build();
            try (RpingEndpoint client = new RpingEndpoint(options, silent(), rnic, Rpings.STEP_TIMEOUT)) {
                client.postReceive();
                client.queuePair.connect(options.socketAddress()).get(WAIT, TimeUnit.SECONDS);
                writes.failure = cause;
                client.send(RpingEndpoint.describe(client.startMr, options.size()), "the start buffer");
                Throwable thrown = catchThrowable(() -> client.receive("the go ahead"));
                assertThat(thrown).isInstanceOf(RpingFailure.class);
                return (RpingFailure) thrown;
            }
        } finally {
            rnic.close();
        }
    }

    /** Fails every write once {@link #failure} is set, as the socket fails one with an error. */
    private static final class FailingWrites extends ChannelOutboundHandlerAdapter {
        volatile Throwable failure;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            Throwable f = failure;
            if (f == null) {
                ctx.write(msg, promise);
                return;
            }
            ReferenceCountUtil.release(msg);
            promise.setFailure(f);
        }
    }

    private static void assertDisconnected(ThrowingCallable step, String message) {
        assertThatThrownBy(step).isInstanceOfSatisfying(RpingFailure.class, e -> {
            assertThat(e.disconnected()).as(e.getMessage()).isTrue();
            assertThat(e).hasMessage(message);
        });
    }

    private static RpingEndpoint connectedClient(InetSocketAddress server) throws Exception {
        RpingOptions options = Rpings.client(server.getPort()).build();
        RpingEndpoint client = new RpingEndpoint(options, silent());
        try {
            client.postReceive();
            client.queuePair.connect(server).get(WAIT, TimeUnit.SECONDS);
            return client;
        } catch (Exception e) {
            client.close();
            throw e;
        }
    }

    private static RpingLog silent() {
        java.io.PrintWriter none = new java.io.PrintWriter(java.io.Writer.nullWriter());
        return new RpingLog(none, none, false);
    }
}
