package org.iwarp4j.ddp;

/**
 * The Data Source's Message Sequence Numbers of one queue on one stream (RFC 5041 §4.3,
 * DDP-R-025): 1 for the first message, then +1 per message modulo 2^32, so 0xFFFFFFFF is followed
 * by 0. Not thread-safe: a stream's sender runs on its event loop.
 */
public final class MsnSequence {

    private int next;

    /** A sequence starting at 1. */
    public MsnSequence() {
        this(DdpConstants.INITIAL_MSN);
    }

    /** A sequence starting at {@code first}: for tests of the wrap (the protocol always starts at 1). */
    public MsnSequence(int first) {
        this.next = first;
    }

    /** The MSN for the next message, without taking it. */
    public int peek() {
        return next;
    }

    /** Takes the MSN for the next message. */
    public int next() {
        return next++;
    }

    @Override
    public String toString() {
        return "MsnSequence[next " + Integer.toUnsignedLong(next) + "]";
    }
}
