package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaDecision;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.RtrType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An Initiator whose connection never reaches Full Operation still completes the work posted
 * before {@code connect}, as flushed (RFC 5040 §6.2.1, RDMAP-R-035; what
 * {@link UnconnectedQueuePairFlushTest} asks of a queue pair that never connected at all). A
 * refused TCP connection never becomes active, so its engine sees no channelInactive; a rejected
 * MPA Request leaves TCP open (RFC 5044 §7.1.2, MPA-R-056), so nothing ended the connection.
 */
@Timeout(30)
class StartupFailureFlushTest {

    private static final long WAIT = 5;

    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(8);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
    private final MemoryRegion region = pd.register(memory, RdmaPair.ALL);
    private final QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).build());

    @AfterEach
    void tearDown() {
        rnic.close();
        region.close();
        memory.release();
    }

    @Test
    void workPostedBeforeARefusedConnectIsFlushed() throws Exception {
        InetSocketAddress closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = (InetSocketAddress) socket.getLocalSocketAddress();
        }
        postReceiveAndSend();

        CompletableFuture<QueuePair> established = qp.connect(closedPort);

        expectFlushed(java.net.ConnectException.class);
        assertThat(established).failsWithin(WAIT, TimeUnit.SECONDS);
        assertThat(qp.closeFuture().get(WAIT, TimeUnit.SECONDS)).isSameAs(qp);
        assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(qp.close().get(WAIT, TimeUnit.SECONDS)).isSameAs(qp);
        assertThat(cq.poll()).isNull();
    }

    @Test
    void workPostedBeforeAConnectOnAClosedRnicIsFlushed() throws Exception {
        // The channel is never registered, so no engine is ever bound to flush the work.
        postReceiveAndSend();
        rnic.close();

        CompletableFuture<QueuePair> established = qp.connect(new InetSocketAddress("127.0.0.1", 9));

        assertThat(established).failsWithin(WAIT, TimeUnit.SECONDS);
        expectFlushed(Exception.class);
        assertThat(qp.closeFuture().get(WAIT, TimeUnit.SECONDS)).isSameAs(qp);
        assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
    }

    @Test
    void workPostedBeforeAnMpaRejectIsFlushedAndCloseCompletes() throws Exception {
        // A Responder that rejects and, as RFC 5044 §7.1.2 allows, keeps the TCP connection open.
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(MpaStartupHandler.responder(MpaSettings.builder().build(),
                                    request -> CompletableFuture.completedFuture(
                                            MpaDecision.reject(new byte[0], "rejected by the test"))));
                            accepted.complete(ch);
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            postReceiveAndSend();

            CompletableFuture<QueuePair> established = qp.connect(server.localAddress());

            assertThat(established).failsWithin(WAIT, TimeUnit.SECONDS)
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(MpaRejectedException.class);
            assertThat(qp.close().get(WAIT, TimeUnit.SECONDS)).isSameAs(qp);
            expectFlushed(MpaRejectedException.class);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(cq.poll()).isNull();
            // The Initiator ended the connection the reject left open.
            assertThat(accepted.get(WAIT, TimeUnit.SECONDS).closeFuture().await(WAIT, TimeUnit.SECONDS)).isTrue();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * A startup that ends in our Terminate (RFC 6581 §9.2, MPA2-R-010: the Reply names no RTR this
     * end can send) flushes the work posted before the connect at once, ahead of work posted after
     * a close in the failed connect's own callback (RDMAP-R-031, completions in posting order). That
     * callback runs on the event loop that failed the connect, while the Terminate is still being
     * written, and a post there takes effect before it returns: the work posted first used to wait
     * for the teardown after that write, and the later work, flushed at once, overtook it.
     */
    @Test
    void workPostedBeforeAStartupThatEndsInATerminateIsFlushedAheadOfWorkPostedAfterTheClose() throws Exception {
        MpaSettings writeRtrOnly = MpaSettings.builder().peerToPeer(true).ird(8).ord(8)
                .rtrTypes(EnumSet.of(RtrType.WRITE)).build();
        QueuePair terminating = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(writeRtrOnly).build());
        terminating.postReceive(new ReceiveWorkRequest(1, region.sge(0, 16)));
        terminating.postSend(SendWorkRequest.send(2, region.sge(32, 16)));
        try (HardwarePeer peer = HardwarePeer.listening(HardwarePeer.Profile.CHELSIO)) {
            CompletableFuture<QueuePair> established = terminating.connect(peer.address());
            CompletableFuture<Void> postedAfterClose = established.handle((q, failure) -> {
                assertThat(failure).as("the startup fails").isNotNull();
                terminating.close();
                terminating.postReceive(new ReceiveWorkRequest(3, region.sge(16, 16)));
                terminating.postSend(SendWorkRequest.send(4, region.sge(48, 16)));
                return null;
            });
            // The Chelsio-like Reply names the Read RTR only: we send a Terminate code 7 instead.
            assertThat(peer.acceptAsResponder(4, 4)).isFalse();
            assertThat(peer.receivedTerminate).isNotNull();
            postedAfterClose.get(WAIT, TimeUnit.SECONDS);

            long[] order = new long[4];
            for (int i = 0; i < order.length; i++) {
                WorkCompletion c = cq.poll(WAIT, TimeUnit.SECONDS);
                assertThat(c).as("completion %d", i + 1).isNotNull();
                assertThat(c.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                order[i] = c.workRequestId();
                if (order[i] <= 2) {
                    assertThat(c.terminateReason()).as("why the work posted first never ran")
                            .isEqualTo(TerminateReason.LLP_NO_MATCHING_RTR);
                }
            }
            assertThat(indexOf(order, 1)).as("receive 1 before receive 3").isLessThan(indexOf(order, 3));
            assertThat(indexOf(order, 2)).as("send 2 before send 4").isLessThan(indexOf(order, 4));
            assertThat(terminating.closeFuture().get(WAIT, TimeUnit.SECONDS)).isSameAs(terminating);
            assertThat(cq.poll()).isNull();
        }
    }

    private static int indexOf(long[] ids, long id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        throw new AssertionError("no completion of work request " + id + " in " + java.util.Arrays.toString(ids));
    }

    private void postReceiveAndSend() {
        qp.postReceive(new ReceiveWorkRequest(1, region.sge(0, 32)));
        qp.postSend(SendWorkRequest.send(2, region.sge(32, 16)));
    }

    /** The receive and the send completed FLUSHED, each carrying why the connection never came. */
    private void expectFlushed(Class<? extends Throwable> cause) throws InterruptedException {
        WorkCompletion first = cq.poll(WAIT, TimeUnit.SECONDS);
        WorkCompletion second = cq.poll(WAIT, TimeUnit.SECONDS);
        assertThat(first).as("first completion").isNotNull();
        assertThat(second).as("second completion").isNotNull();
        WorkCompletion receive = first.opcode() == WorkCompletionOpcode.RECEIVE ? first : second;
        WorkCompletion send = receive == first ? second : first;
        assertThat(receive.workRequestId()).isEqualTo(1);
        assertThat(receive.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
        assertThat(receive.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        assertThat(send.workRequestId()).isEqualTo(2);
        assertThat(send.opcode()).isEqualTo(WorkCompletionOpcode.SEND);
        assertThat(send.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        assertThat(receive.failureCause()).isInstanceOf(cause);
        assertThat(send.failureCause()).isInstanceOf(cause);
        assertThat(qp.failureCause()).isInstanceOf(cause);
    }
}
