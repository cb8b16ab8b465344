package org.iwarp4j.testkit;

import java.time.Instant;

/**
 * The TCP part of one captured frame, before it is placed in its connection.
 *
 * @param sequence the raw 32-bit sequence number, unsigned
 * @param mss the maximum segment size option, or -1 when absent (it is only sent with SYN)
 * @param payload the payload bytes that were captured, which is less than the segment carried if
 *     the frame was cut at the snapshot length
 */
record TcpPacket(int frameNumber, Instant timestamp, TcpEndpoint source, TcpEndpoint destination,
        long sequence, int flags, int mss, byte[] payload) {

    static final int SYN = 0x02;
    static final int ACK = 0x10;

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** The first payload byte's sequence number: a SYN occupies one sequence number before the data. */
    long payloadSequence() {
        return has(SYN) ? (sequence + 1) & 0xffffffffL : sequence;
    }
}
