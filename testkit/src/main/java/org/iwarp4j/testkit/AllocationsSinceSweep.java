package org.iwarp4j.testkit;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the tracked objects allocated since the last leak sweep that have not been released yet.
 *
 * <p>A sweep costs two full garbage collections (tens of milliseconds), and most tests release
 * everything they allocate. When this count is zero, nothing allocated since the last sweep can
 * have leaked, so the sweep can skip the collections.
 */
final class AllocationsSinceSweep {

    private static volatile AllocationsSinceSweep current = new AllocationsSinceSweep();

    private final AtomicInteger unreleased = new AtomicInteger();

    private AllocationsSinceSweep() {
    }

    /** The interval new allocations are counted in. */
    static AllocationsSinceSweep current() {
        return current;
    }

    /** Starts counting afresh and returns the interval that just ended. */
    static AllocationsSinceSweep startNew() {
        AllocationsSinceSweep ended = current;
        current = new AllocationsSinceSweep();
        return ended;
    }

    void allocated() {
        unreleased.incrementAndGet();
    }

    void released() {
        unreleased.decrementAndGet();
    }

    int unreleased() {
        return unreleased.get();
    }
}
