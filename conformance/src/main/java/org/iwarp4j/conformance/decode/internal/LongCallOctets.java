package org.iwarp4j.conformance.decode.internal;

import java.util.BitSet;
import java.util.List;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;

/**
 * The RPC message of a Long Call (RFC 8166 §3.5.3: an RDMA_NOMSG Call whose whole Payload stream
 * is in a Read chunk at Position zero), put back together from the RDMA Read Responses that carry
 * it to the Responder. The chunk's segments are the message in order; a Response may cover any
 * part of any of them, in any order, more than once. Complete once every octet has come.
 *
 * <p>Holds the whole message, so the caller bounds what it creates ({@link #length} is the sum of
 * the offered segment lengths, a number from the peer).
 */
final class LongCallOctets {

    private final List<RdmaSegment> segments;
    private final byte[] message;
    private final BitSet filled;
    private int missing;

    /**
     * @param segments the segments of the Position-zero Read chunk, in the order the Call listed them
     * @param length their total length, at most {@link Integer#MAX_VALUE}
     */
    LongCallOctets(List<RdmaSegment> segments, int length) {
        this.segments = List.copyOf(segments);
        this.message = new byte[length];
        this.filled = new BitSet(length);
        this.missing = length;
    }

    /** Total length of the Position-zero chunk's segments; {@code -1} if over {@code limit}. */
    static long length(List<RdmaSegment> segments, long limit) {
        long total = 0;
        for (RdmaSegment s : segments) {
            total += s.length();
            if (total > limit) {
                return -1;
            }
        }
        return total;
    }

    int length() {
        return message.length;
    }

    /** The segments of the Position-zero Read chunk, in the order the Call listed them. */
    List<RdmaSegment> segments() {
        return segments;
    }

    /**
     * Takes {@code length} octets a Read Response carried for {@code [at, at + length)} of the
     * message (the caller found the segment that holds them).
     */
    void take(long at, byte[] octets, int from, int length) {
        int start = (int) at;
        System.arraycopy(octets, from, message, start, length);
        missing -= length - filled.get(start, start + length).cardinality(); // octets sent again count once
        filled.set(start, start + length);
    }

    boolean complete() {
        return missing == 0;
    }

    /** The message; only meaningful once {@link #complete()}. */
    byte[] message() {
        return message;
    }
}
