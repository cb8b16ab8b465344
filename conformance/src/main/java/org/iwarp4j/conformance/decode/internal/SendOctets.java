package org.iwarp4j.conformance.decode.internal;

import java.util.Arrays;

/**
 * The payload of the Send one direction is sending on queue 0, collected segment by segment until
 * the one with L, for RPC-over-RDMA (each Send is one RPC-over-RDMA message, RFC 8166 §4). Only a
 * message seen from its first octet is collected: a segment's MO is its place in the message (RFC
 * 5041 §5.3, DDP-R-026, DDP-R-029), so one that does not start at MO 0, or continue where the
 * previous one ended, has lost octets in front of it (a gap, or a capture started mid-stream), and
 * what follows would be read as a transport header that is not one.
 *
 * <p>The buffer grows by doubling, so a long Send costs time in proportion to its length; it holds
 * at most {@link #LIMIT} octets, beyond which the message is counted and not kept.
 */
final class SendOctets {

    /** The most one Send may hold: far beyond any inline threshold (RFC 8797 allows 256 KiB). */
    static final int LIMIT = 16 << 20;

    /** What a segment leaves the message at. */
    enum Outcome {
        /** Not the last segment: nothing to decode yet. */
        MORE,
        /** The last segment of a message held from its first octet: {@link #message()} has it. */
        WHOLE,
        /** The last segment of a message whose first octets, or some in its middle, are not here. */
        INCOMPLETE,
        /** The last segment of a message longer than the limit. */
        TOO_LONG
    }

    private final int limit;
    private long msn = -1;
    private long nextMo;
    private boolean incomplete;
    private long length;
    private byte[] octets = new byte[0];
    private byte[] message;
    private long ended;

    SendOctets() {
        this(LIMIT);
    }

    SendOctets(int limit) {
        this.limit = limit;
    }

    /** Takes the payload {@code u[from...]} of one segment of queue 0 with this MSN and MO. */
    Outcome add(long msn, long mo, byte[] u, int from, boolean last) {
        int n = u.length - from;
        if (mo == 0 || msn != this.msn) {
            // A new message: what was collected for another one never had its last segment.
            this.msn = msn;
            incomplete = mo != 0;
            length = 0;
            nextMo = mo;
        }
        if (mo != nextMo) {
            incomplete = true;
        }
        nextMo = mo + n;
        if (!incomplete) {
            length += n;
            if (length <= limit) {
                append(u, from, n);
            }
        }
        if (!last) {
            return Outcome.MORE;
        }
        Outcome outcome = incomplete ? Outcome.INCOMPLETE : length > limit ? Outcome.TOO_LONG : Outcome.WHOLE;
        message = outcome == Outcome.WHOLE ? Arrays.copyOf(octets, (int) length) : null;
        ended = length;
        reset();
        return outcome;
    }

    private void append(byte[] u, int from, int n) {
        int at = (int) length - n;
        if (length > octets.length) {
            octets = Arrays.copyOf(octets, (int) Math.min(limit, Math.max(length, 2L * octets.length)));
        }
        System.arraycopy(u, from, octets, at, n);
    }

    /** The message the last {@link Outcome#WHOLE} completed. */
    byte[] message() {
        return message;
    }

    /** How many octets the message just ended had from its first one (0 when incomplete). */
    long length() {
        return ended;
    }

    /** Forgets the message in progress: octets are lost, the next segment may be anywhere. */
    void reset() {
        msn = -1;
        length = 0;
        incomplete = false;
        if (octets.length > 1 << 16) {
            octets = new byte[0]; // a long Send's buffer is not kept for the rest of the capture
        }
    }
}
