package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The STag table is shared by every connection of an RNIC, so it is used from many event loops at
 * once. Outcomes here do not depend on the interleaving: every check below must hold whatever the
 * scheduler does.
 */
class StagTableConcurrencyTest {

    private static final Set<Access> WRITE = EnumSet.of(Access.REMOTE_WRITE);
    private static final int THREADS = 8;
    private static final int ROUNDS = 400;
    private static final int STRANGER_PD = -1;

    @Test
    @Timeout(60)
    void manyThreadsRegisterPlaceInvalidateAndProbe() throws Exception {
        // A small table, so indexes are reused (with new keys) all the time.
        StagTable table = new StagTable(THREADS * 4);
        AtomicIntegerArray published = new AtomicIntegerArray(64);
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int pd = t;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    run(table, pd, published);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "stag-worker-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(failures).isEmpty();
        assertThat(table.size()).as("everything deregistered").isZero();
    }

    /** One worker: its own buffers in PD {@code pd}; probes of other workers' STags from a PD that owns nothing. */
    private static void run(StagTable table, int pd, AtomicIntegerArray published) throws DdpException {
        SplittableRandom random = new SplittableRandom(pd);
        byte mark = (byte) (pd + 1);
        for (int round = 0; round < ROUNDS; round++) {
            ByteBuf memory = ByteBufAllocator.DEFAULT.heapBuffer(32).writeZero(32);
            ByteBuf mine = ByteBufAllocator.DEFAULT.buffer(8).writeZero(8);
            ByteBuf foreign = ByteBufAllocator.DEFAULT.buffer(8);
            try {
                for (int i = 0; i < 8; i++) {
                    mine.setByte(i, mark);
                    foreign.writeByte(0xEE);
                }
                long base = (long) pd << 40 | (long) round << 8;
                int stag = table.register(pd, base, 32, WRITE, memory).stag();
                published.set(random.nextInt(published.length()), stag);

                table.place(stag, pd, 1, Access.REMOTE_WRITE, base + 8, mine);

                // Whatever someone else's STag is doing (valid, invalidated, gone, reused), a stranger's
                // write never lands (DDP-R-051, §8.3.1 #1).
                for (int probe = 0; probe < 4; probe++) {
                    int other = published.get(random.nextInt(published.length()));
                    StagCheck result = table.check(other, STRANGER_PD, 1, Access.REMOTE_WRITE, base, 8);
                    assertThat(result).isIn(StagCheck.NOT_ASSOCIATED, StagCheck.INVALID_STAG);
                    try {
                        table.place(other, STRANGER_PD, 1, Access.REMOTE_WRITE, base, foreign);
                        throw new AssertionError("a stranger placed into STag " + Integer.toHexString(other));
                    } catch (DdpException expected) {
                        assertThat(expected.error()).isIn(DdpError.STAG_NOT_ASSOCIATED, DdpError.INVALID_STAG);
                    }
                }

                assertThat(table.check(stag, pd, 1, Access.REMOTE_WRITE, base, 32)).isEqualTo(StagCheck.VALID);
                assertThat(table.invalidate(stag)).isTrue();
                assertThat(table.check(stag, pd, 1, Access.REMOTE_WRITE, base, 32)).isEqualTo(StagCheck.INVALID_STAG);
                try {
                    table.place(stag, pd, 1, Access.REMOTE_WRITE, base, mine);
                    throw new AssertionError("placed after invalidation");
                } catch (DdpException expected) {
                    assertThat(expected.error()).isEqualTo(DdpError.INVALID_STAG);
                }
                assertThat(table.deregister(stag)).isTrue();

                byte[] expected = new byte[32];
                for (int i = 8; i < 16; i++) {
                    expected[i] = mark;
                }
                assertThat(Bufs.peek(memory)).as("only our own placement, once").isEqualTo(expected);
            } finally {
                memory.release();
                mine.release();
                foreign.release();
            }
        }
    }

    /** A payload whose copy-out waits for a signal, to hold a placement in the middle of its copy. */
    private static final class GatedPayload extends UnpooledHeapByteBuf {
        final CountDownLatch copying = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);

        GatedPayload(byte[] octets) {
            super(UnpooledByteBufAllocator.DEFAULT, octets.length, octets.length);
            writeBytes(octets);
        }

        private void gate() {
            copying.countDown();
            try {
                proceed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
            gate();
            return super.getBytes(index, dst, dstIndex, length);
        }

        @Override
        public ByteBuf getBytes(int index, java.nio.ByteBuffer dst) {
            gate();
            return super.getBytes(index, dst);
        }
    }

    @Test
    @Timeout(30)
    void invalidateWaitsForARunningPlacement() throws Exception {
        // §8.3.1 #6: once revocation returns, the buffer can no longer be modified, so revocation must
        // wait for a placement that already passed its checks.
        StagTable table = new StagTable(4);
        ByteBuf memory = Bufs.buf(new byte[16]);
        int stag = table.register(1, 0x1000, 16, WRITE, memory).stag();
        GatedPayload payload = new GatedPayload(new byte[] {1, 2, 3, 4});
        AtomicReference<Throwable> placeFailure = new AtomicReference<>();
        Thread placer = new Thread(() -> {
            try {
                table.place(stag, 1, 1, Access.REMOTE_WRITE, 0x1004, payload);
            } catch (Throwable e) {
                placeFailure.set(e);
            }
        }, "placer");
        AtomicBoolean invalidated = new AtomicBoolean();
        AtomicBoolean placedBeforeInvalidate = new AtomicBoolean();
        Thread revoker = new Thread(() -> {
            invalidated.set(table.invalidate(stag));
            placedBeforeInvalidate.set(memory.getByte(7) == 4);
        }, "revoker");
        try {
            placer.start();
            payload.copying.await();
            revoker.start();
            // The revoker parks on the buffer's write lock while the placer holds the read lock.
            while (revoker.getState() != Thread.State.WAITING) {
                assertThat(revoker.getState()).isNotEqualTo(Thread.State.TERMINATED);
                Thread.onSpinWait();
            }
            assertThat(invalidated).isFalse();
            assertThat(table.lookup(stag)).as("still valid while the copy runs").isNotNull();
        } finally {
            payload.proceed.countDown();
            placer.join();
            revoker.join();
            payload.release();
        }
        assertThat(placeFailure.get()).isNull();
        assertThat(invalidated).isTrue();
        assertThat(placedBeforeInvalidate).as("the placement finished before invalidate returned").isTrue();
        assertThat(table.check(stag, 1, 1, Access.REMOTE_WRITE, 0x1000, 1)).isEqualTo(StagCheck.INVALID_STAG);
        memory.release();
    }
}
