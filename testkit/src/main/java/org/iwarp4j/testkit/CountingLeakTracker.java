package org.iwarp4j.testkit;

import io.netty.util.ResourceLeakTracker;

/**
 * Netty's tracker for one object, plus a count in {@link AllocationsSinceSweep} of the interval
 * the object was allocated in, so the count drops when the object is released.
 */
final class CountingLeakTracker<T> implements ResourceLeakTracker<T> {

    private final ResourceLeakTracker<T> tracker;
    private final AllocationsSinceSweep interval;

    CountingLeakTracker(ResourceLeakTracker<T> tracker, AllocationsSinceSweep interval) {
        this.tracker = tracker;
        this.interval = interval;
        interval.allocated();
    }

    @Override
    public void record() {
        tracker.record();
    }

    @Override
    public void record(Object hint) {
        tracker.record(hint);
    }

    @Override
    public boolean close(T trackedObject) {
        boolean closed = tracker.close(trackedObject);
        if (closed) {
            interval.released();
        }
        return closed;
    }

    /** Delegated so that Netty can still say where a buffer released twice was first released. */
    @Override
    public Throwable getCloseStackTraceIfAny() {
        return tracker.getCloseStackTraceIfAny();
    }
}
