package org.iwarp4j.conformance.decode.internal;

import java.lang.management.ManagementFactory;

/** Heap octets allocated so far by the calling thread (HotSpot's count): what a piece of work cost. */
public final class AllocatedBytes {

    private AllocatedBytes() {
    }

    public static long ofThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
