package org.iwarp4j.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;

/**
 * Creates Netty leak detectors that name the test during which a leaked object was allocated.
 *
 * <p>Why not Netty's own detector: it reports each distinct record text only once per JVM, so a
 * second test leaking through the same code path would pass; and a leak is often noticed only
 * during a later test, which then needs to say where the buffer came from. Adding the running
 * test's name as the creation hint solves both: the record text differs per test and says which
 * test allocated the object. The detectors also report regardless of the logger's level, and pass
 * every report to {@link LeakReports} instead of logging it, so that a report appears once, in the
 * failing test's {@code AssertionError}; and they count unreleased objects (see
 * {@link AllocationsSinceSweep}) so that a sweep can tell when it has nothing to look for.
 *
 * <p>Netty asks the factory for a detector once per resource type, in a static initializer
 * ({@code AbstractByteBuf.leakDetector} for buffers). This factory therefore only affects detectors
 * created after it was installed; see {@link LeakDetectionExtension} for what happens otherwise.
 */
final class AttributingLeakDetectorFactory extends ResourceLeakDetectorFactory {

    private static volatile String allocatingTest = "outside any test";
    private static volatile boolean createdBufferDetector;

    /** Names the test that allocations from now on belong to; returns the previous name. */
    static String attributeAllocationsTo(String test) {
        String previous = allocatingTest;
        allocatingTest = test;
        return previous;
    }

    /**
     * Whether Netty's buffer detector is one of ours. If not, {@link AllocationsSinceSweep} never
     * counts a buffer, and only a full sweep can be trusted.
     */
    static boolean createdBufferDetector() {
        return createdBufferDetector;
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
        if (resource == ByteBuf.class) {
            createdBufferDetector = true;
        }
        ResourceLeakDetector<T> detector = new AttributingLeakDetector<>(resource, samplingInterval);
        detector.setLeakListener(LeakReports.INSTANCE);
        return detector;
    }

    /** Required by the abstract class; {@code maxActive} has been ignored by Netty since 4.1. */
    @Deprecated
    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
            Class<T> resource, int samplingInterval, long maxActive) {
        return newResourceLeakDetector(resource, samplingInterval);
    }

    private static final class AttributingLeakDetector<T> extends ResourceLeakDetector<T> {

        AttributingLeakDetector(Class<?> resourceType, int samplingInterval) {
            super(resourceType, samplingInterval);
        }

        @Override
        public ResourceLeakTracker<T> track(T object) {
            return counted(super.track(object));
        }

        @Override
        public ResourceLeakTracker<T> trackForcibly(T object) {
            return counted(super.trackForcibly(object));
        }

        private static <T> ResourceLeakTracker<T> counted(ResourceLeakTracker<T> tracker) {
            return tracker == null ? null : new CountingLeakTracker<>(tracker, AllocationsSinceSweep.current());
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        /** Not logged: the records go into the failing test's AssertionError instead. */
        @Override
        protected void reportTracedLeak(String resourceType, String records) {
        }

        /** Not logged: see {@link #reportTracedLeak}. */
        @Override
        protected void reportUntracedLeak(String resourceType) {
        }

        @Override
        protected Object getInitialHint(String resourceType) {
            return "allocated during " + allocatingTest;
        }
    }
}
