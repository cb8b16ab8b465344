package org.iwarp4j.testkit;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.List;

/**
 * Makes Netty notice leaked buffers now rather than at some later allocation.
 *
 * <p>Netty learns that a tracked buffer was leaked when the garbage collector clears the weak
 * reference to it, and it only looks at those cleared references when the next buffer is
 * allocated. So a sweep collects garbage, waits until the JVM has enqueued the cleared references
 * (a sentinel reference of our own, cleared by the same collection, tells when that has happened;
 * no sleeping), then allocates and releases buffers so the buffer detector polls its queue.
 *
 * <p>The collections are skipped when every object tracked since the previous sweep has been
 * released ({@link AllocationsSinceSweep}): then nothing new can have leaked, and the poll alone
 * picks up anything the collector found on its own meanwhile.
 *
 * <p>Two confirmed collections are done because the JVM's single reference-handler thread
 * finishes enqueuing one collection's references before it starts on the next one's: when the
 * second sentinel arrives, everything cleared by the first collection is enqueued. The number of
 * attempts is bounded, so a JVM that ignores {@link System#gc()} makes the sweep weaker, not
 * endless. {@code System.runFinalization()} is not used: Netty's tracking relies on weak
 * references, not on finalizers.
 */
final class LeakSweep {

    private static final int MAX_COLLECTIONS = 5;
    private static final int CONFIRMED_COLLECTIONS_WANTED = 2;
    private static final long SENTINEL_WAIT_MILLIS = 500;

    private LeakSweep() {
    }

    /** Runs the sweep and returns every leak reported since the previous sweep. */
    static List<String> run() {
        AllocationsSinceSweep ended = AllocationsSinceSweep.startNew();
        if (ended.unreleased() == 0 && AttributingLeakDetectorFactory.createdBufferDetector()) {
            makeBufferDetectorPoll();
            return LeakReports.INSTANCE.drain();
        }
        int confirmed = 0;
        for (int attempt = 0; attempt < MAX_COLLECTIONS && confirmed < CONFIRMED_COLLECTIONS_WANTED; attempt++) {
            if (collectGarbage()) {
                confirmed++;
            }
            makeBufferDetectorPoll();
        }
        return LeakReports.INSTANCE.drain();
    }

    /** Returns whether the collection is known to have run and its cleared references to be enqueued. */
    private static boolean collectGarbage() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
        System.gc();
        try {
            Reference<?> enqueued = queue.remove(SENTINEL_WAIT_MILLIS);
            return enqueued == sentinel;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Every tracked allocation makes the detector report what the collector has cleared so far. */
    private static void makeBufferDetectorPoll() {
        PooledByteBufAllocator.DEFAULT.directBuffer(1).release();
        UnpooledByteBufAllocator.DEFAULT.directBuffer(1).release();
    }
}
