package org.iwarp4j.conformance.decode.internal;

/**
 * The steps the decoder's indexes took to answer lookups (nodes of an {@link OfferedSegments}
 * treap looked at), counted per thread. A capture from a stranger chooses what is looked up and
 * how often; a walk over everything outstanding at each lookup makes decoding quadratic, and a
 * test bounds this count, which does not depend on the machine's speed, to show it is not.
 */
public final class LookupSteps {

    private static final ThreadLocal<long[]> STEPS = ThreadLocal.withInitial(() -> new long[1]);

    private LookupSteps() {
    }

    static void add(long steps) {
        STEPS.get()[0] += steps;
    }

    /** The steps taken so far by the calling thread. */
    public static long ofThisThread() {
        return STEPS.get()[0];
    }
}
