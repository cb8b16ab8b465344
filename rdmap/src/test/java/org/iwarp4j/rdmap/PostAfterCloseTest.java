package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Work posted once {@link QueuePair#close()} or {@link QueuePair#abort()} was called is not carried
 * out: it completes {@link WorkCompletionStatus#FLUSHED} (RFC 5040 §6.2.1), as libibverbs providers
 * flush work posted to a queue pair in the error state, whether the close has run on the event loop
 * yet or not; a receive posted after the close is never filled by a Send that arrives while the
 * close waits for its last Read Response; and a completion queue listener that reposts during the
 * close does not break it. Before, a post was accepted until the close ran on the event loop: a
 * Send posted right after {@code close()} completed FATAL with no reason, a receive posted after it
 * could be filled during the linger, and a listener's repost during CLOSING threw an
 * IllegalStateException that failed the queue pair, cutting off the Read Response under way.
 */
@Timeout(60)
class PostAfterCloseTest {

    /** The peer's RDMA Read of this much, which a peer that reads nothing holds up: the close lingers. */
    private static final int REGION = 16 << 20;
    private static final int SOCKET_BUFFER = 64 * 1024;
    private static final MpaSettings MPA = MpaSettings.builder().build();

    private final List<ByteBuf> memory = new ArrayList<>();

    @AfterEach
    void release() {
        memory.forEach(ByteBuf::release);
    }

    private ByteBuf zeroed(int octets) {
        ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(octets).writeZero(octets);
        memory.add(b);
        return b;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"close", "abort"})
    void aSendPostedRightAfterTheCloseReturnedCompletesFlushed(String how) throws Exception {
        // DDP-R-040: a send request made after the ULP's close fails (flushed), it is not sent.
        CompletableFuture<Channel> connection = new CompletableFuture<>();
        RdmaPair pair = new RdmaPair(Rnic.builder(), Rnic.builder().channelInitializer(connection::complete), MPA,
                b -> b, b -> b, s -> { }, c -> { });
        try {
            MemoryRegion region = pair.client.register(zeroed(16), RdmaPair.ALL);
            // The close and the Send run in one drain, the Send right after the close (else it
            // might reach the loop only once the close is over).
            List<CompletableFuture<QueuePair>> closed = new ArrayList<>();
            whileTheLoopIsHeld(connection, () -> {
                closed.add(how.equals("close") ? pair.client.close() : pair.client.abort());
                pair.client.postSend(SendWorkRequest.send(1, region.sge(0, 16)));
            });

            WorkCompletion send = RdmaPair.next(pair.clientCq);
            assertThat(send.workRequestId()).isEqualTo(1);
            assertThat(send.opcode()).isEqualTo(WorkCompletionOpcode.SEND);
            assertThat(send.status()).as(send.toString()).isEqualTo(WorkCompletionStatus.FLUSHED);
            assertThat(send.terminateReason()).isNull();
            closed.get(0).get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);

            // Once the queue pair has closed down as well: flushed, not refused.
            pair.client.postSend(SendWorkRequest.rdmaWrite(2, 0x100, 0, region.sge(0, 16)));
            WorkCompletion write = RdmaPair.next(pair.clientCq);
            assertThat(write.workRequestId()).isEqualTo(2);
            assertThat(write.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);
            assertThat(write.status()).isEqualTo(WorkCompletionStatus.FLUSHED);

            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pair.server.terminateReason()).as("nothing reached the peer as an error").isNull();
            assertThat(pair.client.failureCause()).isNull();
            assertThat(pair.clientCq.poll()).isNull();
        } finally {
            pair.closeAbruptly();
        }
    }

    /**
     * A queue pair whose peer ({@link RawMpaPeer}) has one RDMA Read of {@link #REGION} under way and
     * reads nothing, so that a close waits for the Read Response (the linger); the peer has sent
     * one Send, into the receive posted first.
     */
    private final class LingeringPeer implements AutoCloseable {
        final CompletableFuture<Channel> connection = new CompletableFuture<>();
        final Rnic rnic = Rnic.builder().eventLoopThreads(1).channelInitializer(connection::complete).build();
        final CompletionQueue cq = rnic.createCompletionQueue(64);
        final QueuePair qp;
        final MemoryRegion receives;
        final RawMpaPeer peer;
        private int msn = 1;

        LingeringPeer(int receivesBefore) throws Exception {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA)
                    .closeLinger(Duration.ofSeconds(RdmaPair.WAIT_SECONDS))
                    .terminateCloseTimeout(Duration.ofSeconds(RdmaPair.WAIT_SECONDS)).build());
            MemoryRegion source = pd.register(zeroed(REGION), EnumSet.of(Access.REMOTE_READ));
            receives = pd.register(zeroed(16 * 64), EnumSet.of(Access.LOCAL_WRITE));
            for (int i = 1; i <= receivesBefore; i++) {
                qp.postReceive(receive(i));
            }
            peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA);
            peer.limitReceiveBuffer(SOCKET_BUFFER);
            peer.setAutoRead(false);
            peer.send(TerminateOnTheWireTest.readRequest(1, 0x0A0B0C00, 0, REGION, source.stag(),
                    source.baseTaggedOffset()));
        }

        /** Receive {@code id}: 16 octets of its own. */
        ReceiveWorkRequest receive(long id) {
            return new ReceiveWorkRequest(id, receives.sge(16 * id, 16));
        }

        /** A 4-octet Send from the peer, into the next receive (after the Read Request: it was answered first). */
        void peerSends() {
            peer.send(Hex.decode(String.format("4143 00000000 00000000 %08x 00000000 cafebabe", msn++)));
        }

        /** Runs on the connection's event loop after everything queued there so far (a drain included). */
        <T> T onLoop(java.util.concurrent.Callable<T> task) throws Exception {
            return connection.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS).eventLoop().submit(task)
                    .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        }

        /** Closes and waits until the close has run: the queue pair lingers for the Read Response. */
        void closeAndLinger() throws Exception {
            qp.close();
            assertThat(onLoop(qp::state)).as("the close waits for the Read Response").isEqualTo(QueuePairState.CLOSING);
        }

        boolean filled(long id) {
            return receives.memory().getInt((int) (16 * id)) != 0;
        }

        @Override
        public void close() {
            try {
                peer.close();
            } finally {
                rnic.close();
            }
        }
    }

    @Test
    void aReceivePostedAfterCloseIsNeverFilledByASendThatArrivesDuringTheLinger() throws Exception {
        try (LingeringPeer p = new LingeringPeer(1)) {
            p.peerSends();
            WorkCompletion first = RdmaPair.next(p.cq);
            assertThat(first.workRequestId()).isEqualTo(1);
            assertThat(first.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            // 2 right after close() returned, in the drain that runs the close; 3 once it has run.
            whileTheLoopIsHeld(p.connection, () -> {
                p.qp.close();
                p.qp.postReceive(p.receive(2));
            });
            assertThat(p.onLoop(p.qp::state)).as("the close waits for the Read Response")
                    .isEqualTo(QueuePairState.CLOSING);
            p.qp.postReceive(p.receive(3));
            p.onLoop(() -> null); // the drain of 3 has run
            p.peerSends();
            p.peer.setAutoRead(true);

            for (long id = 2; id <= 3; id++) {
                WorkCompletion c = RdmaPair.next(p.cq);
                assertThat(c.workRequestId()).isEqualTo(id);
                assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.FLUSHED);
                assertThat(p.filled(id)).as("receive %d was filled", id).isFalse();
            }
            p.qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            // The Send found no receive posted before the close: the usual Terminate for it, after
            // the Read Response.
            assertThat(p.qp.terminateReason()).isEqualTo(TerminateReason.DDP_UNTAGGED_NO_BUFFER);
            List<byte[]> rest = p.peer.takeAllUntilClosed();
            assertThat(rest.get(rest.size() - 1)[1] & 0x0F).as("RDMAP opcode: Terminate").isEqualTo(7);
            assertThat(p.cq.poll()).isNull();
        }
    }

    @Test
    void aListenerThatRepostsOnEveryCompletionDuringTheCloseLeavesItOrderly() throws Exception {
        try (LingeringPeer p = new LingeringPeer(2)) {
            BlockingQueue<WorkCompletion> seen = new LinkedBlockingQueue<>();
            AtomicLong nextId = new AtomicLong(3);
            p.cq.setListener(c -> {
                seen.add(c);
                if (!p.qp.closeFuture().isDone()) {
                    p.qp.postReceive(p.receive(nextId.getAndIncrement() % 64));
                }
            });
            p.peerSends(); // into 1 (RTS): 3 is reposted
            assertThat(take(seen).workRequestId()).isEqualTo(1);
            p.closeAndLinger();
            p.peerSends(); // into 2 (CLOSING): 4 is reposted, after the close
            WorkCompletion second = take(seen);
            assertThat(second.workRequestId()).isEqualTo(2);
            assertThat(second.status()).isEqualTo(WorkCompletionStatus.SUCCESS);

            p.peer.setAutoRead(true);
            List<byte[]> rest = p.peer.takeAllUntilClosed();
            p.qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(p.qp.failureCause()).as("no local failure").isNull();
            assertThat(p.qp.terminateReason()).isNull();
            assertThat(p.qp.state()).isEqualTo(QueuePairState.ERROR);
            // The peer saw its whole Read Response, then the close: no Terminate.
            long responseOctets = 0;
            for (byte[] ulpdu : rest) {
                int opcode = ulpdu[1] & 0x0F;
                assertThat(opcode).as("RDMAP opcode: no Terminate").isNotEqualTo(7);
                if (opcode == 2) {
                    responseOctets += ulpdu.length - 14; // after the tagged DDP header (RFC 5041 §4.3)
                }
            }
            assertThat(responseOctets).isEqualTo(REGION);

            // Every repost completed, flushed, once; the listener stopped when the queue pair closed.
            p.onLoop(() -> null);
            List<WorkCompletion> flushed = new ArrayList<>(seen);
            assertThat(flushed).isNotEmpty().allSatisfy(c ->
                    assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.FLUSHED));
            assertThat(flushed).extracting(WorkCompletion::workRequestId)
                    .containsExactlyElementsOf(ids(3, nextId.get()));
            assertThat(p.filled(4)).isFalse();
        }
    }

    /**
     * Runs {@code posts} while a task holds the event loop of {@code connection}: whatever they
     * queue there runs in one drain, after.
     */
    private static void whileTheLoopIsHeld(CompletableFuture<Channel> connection, Runnable posts) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        var held = connection.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS).eventLoop()
                .submit(() -> done.await(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS));
        try {
            posts.run();
        } finally {
            done.countDown();
        }
        assertThat(held.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    private static List<Long> ids(long from, long to) {
        List<Long> ids = new ArrayList<>();
        for (long id = from; id < to; id++) {
            ids.add(id % 64);
        }
        return ids;
    }

    private static WorkCompletion take(BlockingQueue<WorkCompletion> q) throws InterruptedException {
        WorkCompletion c = q.poll(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(c).as("a completion within " + RdmaPair.WAIT_SECONDS + " s").isNotNull();
        return c;
    }
}
