package org.iwarp4j.tools.bench;

/**
 * How the latency tests' application threads wait for the peer's answer, on both transports alike.
 *
 * <p>{@link #BUSY} is perftest's default: the thread polls the completion queue (or, for RDMA
 * Write, the target memory) without ever sleeping, as {@code ib_send_lat} does without
 * {@code -e}; the plain-TCP comparison's threads poll a counter that the event loop advances.
 * (Both yield the core now and then, as the event loops that do the transfer need it; they never
 * sleep.)
 * {@link #EVENT} is perftest's {@code -e}: a Send's answer is waited for in the completion queue
 * and the completing event loop wakes the thread; TCP's threads block on a semaphore. An RDMA
 * Write has no completion at its target, so {@code lat-write} in this mode still watches memory,
 * briefly spinning, then yielding, then parking (perftest offers no events for it either).
 */
public enum PollMode {
    /** Spin on the completion queue or memory until the answer is there (perftest's default). */
    BUSY,
    /** Block until the answer's completion wakes the thread (perftest's {@code -e}). */
    EVENT;

    /** The option's spelling: {@code busy} or {@code event}. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
