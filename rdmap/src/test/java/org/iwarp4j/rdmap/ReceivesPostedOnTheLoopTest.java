package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/**
 * Receives posted by a completion queue listener, on the queue pair's own event loop, take effect
 * at once instead of through the work queue; these tests pin what must not change with that:
 * Sends fill receives in posting order (RFC 5040 §5.3, RDMAP-R-020) whether they were posted on
 * the loop or from another thread, one-element and scattered receives alike; a flush completes
 * every posted receive once, in posting order (RFC 5040 §6.2.1); and a receive that fails at
 * posting completes outside the listener call that posted it.
 */
class ReceivesPostedOnTheLoopTest {

    private static final int SLOT = 128;

    /** Server-side completions as the listener saw them. */
    private final BlockingQueue<WorkCompletion> seen = new LinkedBlockingQueue<>();

    private static WorkCompletion take(BlockingQueue<WorkCompletion> q) throws InterruptedException {
        WorkCompletion c = q.poll(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        if (c == null) {
            throw new AssertionError("no completion within " + RdmaPair.WAIT_SECONDS + " s");
        }
        return c;
    }

    /** The client sends {@code length} octets of {@code fill} and waits for the send's completion. */
    private static void send(RdmaPair pair, MemoryRegion source, int fill, int length) throws InterruptedException {
        source.memory().setBytes(0, new byte[length]);
        for (int i = 0; i < length; i++) {
            source.memory().setByte(i, fill);
        }
        pair.client.postSend(SendWorkRequest.send(fill, source.sge(0, length)));
        WorkCompletion sent = RdmaPair.next(pair.clientCq);
        assertThat(sent.status()).as(sent.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    private static void assertFilled(ByteBuf memory, int index, int length, int fill) {
        for (int i = 0; i < length; i++) {
            assertThat(memory.getByte(index + i)).as("octet %d", index + i).isEqualTo((byte) fill);
        }
    }

    private static ByteBuf zeroed(int octets) {
        return ByteBufAllocator.DEFAULT.directBuffer(octets).writeZero(octets);
    }

    /** Cleanup after a test whose server aborted: no orderly close to wait for. */
    private static void closeAbruptly(RdmaPair pair, ByteBuf... buffers) {
        pair.serverCq.setListener(null);
        pair.closeAbruptly();
        for (ByteBuf b : buffers) {
            b.release();
        }
    }

    /** Waits on the event loop (inside a listener) for the test thread, at most the usual time. */
    private static boolean awaitOnLoop(CountDownLatch latch) {
        try {
            return latch.await(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static RdmaPair pair(Consumer<QueuePair> server) throws Exception {
        return new RdmaPair(MpaSettings.builder().build(), server, c -> { });
    }

    @Test
    void aReceivePostedByTheListenerQueuesBehindOneAnotherThreadPostedBeforeIt() throws Exception {
        ByteBuf sink = zeroed(4 * SLOT);
        ByteBuf src = zeroed(SLOT);
        MemoryRegion[] region = new MemoryRegion[1];
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch otherThreadPosted = new CountDownLatch(1);
        try (RdmaPair pair = pair(s -> {
            region[0] = s.settings().protectionDomain().register(sink, RdmaPair.ALL);
            s.postReceive(new ReceiveWorkRequest(1, region[0].sge(0, SLOT)));
        })) {
            pair.serverCq.setListener(c -> {
                if (c.workRequestId() == 1) {
                    // The loop waits here while the main thread posts receive 2: its command is
                    // queued, and its drain can only run after this call. Receive 3, posted on the
                    // loop afterwards, must still come second.
                    inListener.countDown();
                    if (awaitOnLoop(otherThreadPosted)) {
                        pair.server.postReceive(new ReceiveWorkRequest(3, region[0].sge(2 * SLOT, SLOT)));
                    }
                }
                seen.add(c);
            });
            MemoryRegion source = pair.clientPd.register(src, RdmaPair.ALL);
            send(pair, source, 0xA1, 50);
            assertThat(inListener.await(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            pair.server.postReceive(new ReceiveWorkRequest(2, region[0].sge(SLOT, SLOT)));
            otherThreadPosted.countDown();
            send(pair, source, 0xB2, 50);
            send(pair, source, 0xC3, 60);

            List<Long> ids = new ArrayList<>();
            List<Integer> lengths = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                WorkCompletion c = take(seen);
                assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                ids.add(c.workRequestId());
                lengths.add(c.byteLength());
            }
            assertThat(ids).containsExactly(1L, 2L, 3L);
            assertThat(lengths).containsExactly(50, 50, 60);
            assertFilled(sink, 0, 50, 0xA1);
            assertFilled(sink, SLOT, 50, 0xB2);
            assertFilled(sink, 2 * SLOT, 60, 0xC3);
            pair.serverCq.setListener(null);
        } finally {
            sink.release();
            src.release();
        }
    }

    @Test
    void receivesRepostedOnTheLoopFillInPostingOrderAndAnAbortFlushesEveryOneInThatOrder() throws Exception {
        ByteBuf sink = zeroed(16 * SLOT);
        ByteBuf src = zeroed(SLOT);
        MemoryRegion[] region = new MemoryRegion[1];
        RdmaPair pair = pair(s -> {
            region[0] = s.settings().protectionDomain().register(sink, RdmaPair.ALL);
            MemoryRegion r = region[0];
            // 1 scatters over two elements, 2 is one element
            s.postReceive(new ReceiveWorkRequest(1, r.sge(0, 30), r.sge(SLOT, 30)),
                    new ReceiveWorkRequest(2, r.sge(2 * SLOT, 60)));
        });
        try {
            MemoryRegion r = region[0];
            CountDownLatch inListenerFor11 = new CountDownLatch(1);
            CountDownLatch posted20 = new CountDownLatch(1);
            pair.serverCq.setListener(c -> {
                // on the loop: 1 -> 11 (two elements), 2 -> 12 (one), 11 -> 30 (one); nothing for a flush
                if (c.isSuccess()) {
                    long id = c.workRequestId();
                    if (id == 1) {
                        pair.server.postReceive(new ReceiveWorkRequest(11, r.sge(4 * SLOT, 30), r.sge(5 * SLOT, 30)));
                    } else if (id == 2) {
                        pair.server.postReceive(new ReceiveWorkRequest(12, r.sge(6 * SLOT, 60)));
                    } else if (id == 11) {
                        // the loop waits here while the main thread posts 20, so 20 is certainly
                        // still queued when 30 is posted: 30 must come after it
                        inListenerFor11.countDown();
                        if (awaitOnLoop(posted20)) {
                            pair.server.postReceive(new ReceiveWorkRequest(30, r.sge(8 * SLOT, 60)));
                        }
                    }
                }
                seen.add(c);
            });
            MemoryRegion source = pair.clientPd.register(src, RdmaPair.ALL);
            send(pair, source, 0x11, 60);
            send(pair, source, 0x22, 60);
            assertThat(take(seen).workRequestId()).isEqualTo(1);
            assertThat(take(seen).workRequestId()).isEqualTo(2);
            // 11 and 12 were reposted on the loop before those completions reached this thread
            send(pair, source, 0x33, 60);
            assertThat(inListenerFor11.await(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            pair.server.postReceive(new ReceiveWorkRequest(20, r.sge(7 * SLOT, 60))); // from this thread
            posted20.countDown();
            WorkCompletion third = take(seen);
            assertThat(third.workRequestId()).isEqualTo(11);
            assertThat(third.byteLength()).isEqualTo(60);
            assertFilled(sink, 0, 30, 0x11);
            assertFilled(sink, SLOT, 30, 0x11);
            assertFilled(sink, 2 * SLOT, 60, 0x22);
            assertFilled(sink, 4 * SLOT, 30, 0x33);
            assertFilled(sink, 5 * SLOT, 30, 0x33);

            // posted now, in this order: 12 (on the loop), 20 (this thread), 30 (on the loop)
            pair.server.abort().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            // the flush reaches the listener before the close future completes: all of it is here
            List<WorkCompletion> rest = new ArrayList<>(seen);
            assertThat(rest).as("each receive completes once").hasSize(3);
            List<Long> flushed = new ArrayList<>();
            for (WorkCompletion c : rest) {
                assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.FLUSHED);
                assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
                flushed.add(c.workRequestId());
            }
            assertThat(flushed).containsExactly(12L, 20L, 30L);
            assertFilled(sink, 6 * SLOT, 2 * SLOT + 60, 0);
        } finally {
            closeAbruptly(pair, sink, src);
        }
    }

    @Test
    void aReceivePostedByTheListenerAfterAbortIsFlushedNotFilledByTheNextSendOfTheSameRead() throws Exception {
        ByteBuf sink = zeroed(4 * SLOT);
        ByteBuf src = zeroed(SLOT);
        MemoryRegion[] region = new MemoryRegion[1];
        CountDownLatch inListenerFor1 = new CountDownLatch(1);
        CountDownLatch bothSent = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<QueuePair>> aborted =
                new java.util.concurrent.atomic.AtomicReference<>();
        RdmaPair pair = pair(s -> {
            region[0] = s.settings().protectionDomain().register(sink, RdmaPair.ALL);
            s.postReceive(new ReceiveWorkRequest(1, region[0].sge(0, SLOT)),
                    new ReceiveWorkRequest(2, region[0].sge(SLOT, SLOT)));
        });
        try {
            pair.serverCq.setListener(c -> {
                if (c.workRequestId() == 1) {
                    // the loop waits here until both further Sends are on the wire, so that they
                    // arrive in one read after this one
                    inListenerFor1.countDown();
                    awaitOnLoop(bothSent);
                } else if (c.workRequestId() == 2) {
                    // the Send for 3 follows in the same read; 3 is posted after the abort
                    aborted.set(pair.server.abort());
                    pair.server.postReceive(new ReceiveWorkRequest(3, region[0].sge(2 * SLOT, SLOT)));
                }
                seen.add(c);
            });
            MemoryRegion source = pair.clientPd.register(src, RdmaPair.ALL);
            send(pair, source, 0x61, 40);
            assertThat(inListenerFor1.await(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            pair.client.postSend(SendWorkRequest.send(0x62, source.sge(0, 40)),
                    SendWorkRequest.send(0x63, source.sge(0, 40)));
            for (int i = 0; i < 2; i++) {
                WorkCompletion sent = RdmaPair.next(pair.clientCq);
                assertThat(sent.status()).as(sent.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            }
            bothSent.countDown();
            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(aborted.get()).isNotNull();

            List<WorkCompletion> all = new ArrayList<>(seen);
            assertThat(all).extracting(WorkCompletion::workRequestId).containsExactly(1L, 2L, 3L);
            assertThat(all.get(0).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(all.get(1).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(all.get(2).status()).as(all.get(2).toString()).isEqualTo(WorkCompletionStatus.FLUSHED);
            assertFilled(sink, 2 * SLOT, SLOT, 0);
        } finally {
            closeAbruptly(pair, sink, src);
        }
    }

    @Test
    void aPostWithANullRequestPostsNoneAndTakesNoSlot() throws Exception {
        ByteBuf sink = zeroed(2 * SLOT);
        ByteBuf src = zeroed(SLOT);
        List<Throwable> thrown = new ArrayList<>();
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b.receiveQueueDepth(2), b -> b, s -> {
            MemoryRegion r = s.settings().protectionDomain().register(sink, RdmaPair.ALL);
            try {
                s.postReceive(new ReceiveWorkRequest(9, r.sge(0, SLOT)), null);
            } catch (NullPointerException e) {
                thrown.add(e);
            }
            // both slots are still free, and 9 was not posted: 1 takes the first Send
            s.postReceive(new ReceiveWorkRequest(1, r.sge(0, SLOT)), new ReceiveWorkRequest(2, r.sge(SLOT, SLOT)));
        }, c -> { })) {
            assertThat(thrown).as("the null is refused at posting").hasSize(1);
            MemoryRegion source = pair.clientPd.register(src, RdmaPair.ALL);
            send(pair, source, 0x71, 30);
            send(pair, source, 0x72, 30);
            WorkCompletion first = RdmaPair.next(pair.serverCq);
            WorkCompletion second = RdmaPair.next(pair.serverCq);
            assertThat(first.workRequestId()).isEqualTo(1);
            assertThat(first.status()).as(first.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(second.workRequestId()).isEqualTo(2);
            assertThat(second.status()).as(second.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
        } finally {
            sink.release();
            src.release();
        }
    }

    @Test
    void aReceiveThatFailsAtPostingOnTheLoopCompletesOutsideTheListenerAndTheNextTakesTheSend() throws Exception {
        ByteBuf sink = zeroed(4 * SLOT);
        ByteBuf readOnly = zeroed(SLOT);
        ByteBuf src = zeroed(SLOT);
        MemoryRegion[] region = new MemoryRegion[2];
        AtomicInteger depth = new AtomicInteger();
        AtomicInteger nested = new AtomicInteger();
        try (RdmaPair pair = pair(s -> {
            region[0] = s.settings().protectionDomain().register(sink, RdmaPair.ALL);
            region[1] = s.settings().protectionDomain().register(readOnly, EnumSet.of(Access.REMOTE_READ));
            s.postReceive(new ReceiveWorkRequest(1, region[0].sge(0, SLOT)));
        })) {
            pair.serverCq.setListener(c -> {
                if (depth.incrementAndGet() > 1) {
                    nested.incrementAndGet();
                }
                try {
                    if (c.workRequestId() == 1) {
                        // 5 lacks local write access (a protection error at posting); 6 is fine
                        pair.server.postReceive(new ReceiveWorkRequest(5, region[1].sge(0, SLOT)),
                                new ReceiveWorkRequest(6, region[0].sge(SLOT, SLOT)));
                    }
                    seen.add(c);
                } finally {
                    depth.decrementAndGet();
                }
            });
            MemoryRegion source = pair.clientPd.register(src, RdmaPair.ALL);
            send(pair, source, 0x44, 40);
            // 5 completes in the drain that posts 6: once 5 is seen, 0x55 has a receive waiting
            // (sent earlier, it could share a read with 0x44 and find none)
            WorkCompletion first = take(seen);
            WorkCompletion failed = take(seen);
            send(pair, source, 0x55, 40);
            WorkCompletion second = take(seen);
            assertThat(first.workRequestId()).isEqualTo(1);
            assertThat(failed.workRequestId()).isEqualTo(5);
            assertThat(failed.status()).isEqualTo(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
            assertThat(second.workRequestId()).isEqualTo(6);
            assertThat(second.status()).as(second.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertFilled(sink, SLOT, 40, 0x55);
            assertThat(nested.get()).as("listener calls from inside the listener").isZero();
            pair.serverCq.setListener(null);
        } finally {
            sink.release();
            readOnly.release();
            src.release();
        }
    }
}
