package org.iwarp4j.conformance.decode.internal;

import org.iwarp4j.conformance.decode.Check;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;

/**
 * The Read Responses one side sends, paired with the other side's outstanding Read Requests: each
 * answers the oldest, at its sink STag and TO, as long as it asked (RDMAP-R-016), in the order the
 * Requests came (RDMAP-R-017, reported under RDMAP-R-016).
 *
 * <p>Octets the capture lacks leave a Response unjudged only where they could explain it. When the
 * Requester's octets were lost, a Response found in no outstanding Request's sink buffer may
 * answer a Request among them; one found in a Request's sink buffer is judged as ever. When the
 * Responder's own octets were lost, Responses to the oldest Requests may be among them, and the
 * next segment may continue one: until a Response is found in a Request's sink buffer, the
 * Responses are paired that way, and the Requests older than the one found were answered in the
 * lost octets.
 */
final class ReadResponses {

    private final Findings out;
    private final int index;
    private final String direction;
    private final OutstandingReads requests;
    /** The Read Request the Response in progress answers; null if it is not judged. */
    private OutstandingReads.Outstanding responding;
    /** Octets of {@link #responding}'s size not yet seen. */
    private long remaining;
    private boolean ownOctetsLost;
    private ReadRequestHeader answering;

    /** @param requests the Read Requests the other side sent */
    ReadResponses(Findings out, int index, String direction, OutstandingReads requests) {
        this.out = out;
        this.index = index;
        this.direction = direction;
        this.requests = requests;
    }

    /** This side's octets were lost from here on: Responses may be among them. */
    void lostSync() {
        ownOctetsLost = true;
        responding = null;
    }

    /**
     * Judges one Read Response segment; returns where the Read Request it answers read (the Call
     * and Read chunk, on RPC-over-RDMA), or "".
     *
     * @param first whether it starts a Response (DDP-R-030 found no message in progress)
     * @param requesterLostOctets whether the Requester's octets were lost so far (or came before a
     *     mid-stream capture)
     * @param responderLostOctets whether this side's were
     */
    String segment(long frame, boolean first, int stag, long to, int payload, boolean last,
            boolean requesterLostOctets, boolean responderLostOctets) {
        answering = null;
        if (first) {
            responding = answers(frame, stag, to, requesterLostOctets, responderLostOctets);
        }
        if (responding == null) {
            return "";
        }
        ReadRequestHeader rr = responding.request();
        String target = rr.sinkStag() == stag ? responding.target() : "";
        if (rr.sinkStag() == stag && Long.compareUnsigned(to, rr.sinkTaggedOffset()) >= 0
                && to - rr.sinkTaggedOffset() + payload <= rr.readMessageSize()) {
            answering = rr;
        }
        remaining -= payload;
        boolean over = remaining < 0 || last && remaining != 0;
        if (over) {
            out.violation(Check.RDMAP_READ_RESPONSE, frame, index, direction, "Read Response of "
                    + (rr.readMessageSize() - remaining) + " octets" + (last ? "" : " so far")
                    + " for a Read Request of " + rr.readMessageSize());
        }
        if (last || over) { // past its size, the rest of this Response is not judged
            requests.answered(responding);
            responding = null;
        }
        return target;
    }

    /** The Read Request the Read Response segment just judged lies inside, if it does; else null. */
    ReadRequestHeader answering() {
        return answering;
    }

    /** The outstanding Read Request a Response's first segment answers; null when it is not judged. */
    private OutstandingReads.Outstanding answers(long frame, int stag, long to, boolean requesterLostOctets,
            boolean responderLostOctets) {
        OutstandingReads.Outstanding oldest = requests.oldest();
        boolean answersOldest = oldest != null && oldest.request().sinkStag() == stag
                && oldest.request().sinkTaggedOffset() == to;
        OutstandingReads.Outstanding holder = answersOldest ? oldest : requests.holding(stag, to);
        if (ownOctetsLost) {
            if (holder == null) {
                return null;
            }
            ownOctetsLost = false;
            requests.answeredBefore(holder);
            return continuing(holder, to);
        }
        if (answersOldest) {
            return continuing(oldest, to);
        }
        if (holder == null && requesterLostOctets) {
            return null;
        }
        if (oldest == null) {
            if (!responderLostOctets) {
                out.violation(Check.RDMAP_READ_RESPONSE, frame, index, direction, "Read Response with no Read"
                        + " Request outstanding");
            }
            return null;
        }
        ReadRequestHeader o = oldest.request();
        String found = holder == null ? "" : holder == oldest ? " (inside that Request's sink buffer)"
                : String.format(" (the sink buffer of a later one, STag 0x%08x TO 0x%x: out of order)",
                        holder.request().sinkStag(), holder.request().sinkTaggedOffset());
        out.violation(Check.RDMAP_READ_RESPONSE, frame, index, direction, String.format("Read Response to STag"
                + " 0x%08x TO 0x%x, the oldest Read Request asked for 0x%08x TO 0x%x", stag, to, o.sinkStag(),
                o.sinkTaggedOffset()) + found);
        if (holder == null) { // taken as the oldest one's, as long as it asked
            remaining = o.readMessageSize();
            return oldest;
        }
        return continuing(holder, to);
    }

    /** {@code holder}, whose Response goes on at {@code to} of its sink buffer. */
    private OutstandingReads.Outstanding continuing(OutstandingReads.Outstanding holder, long to) {
        remaining = holder.request().readMessageSize() - (to - holder.request().sinkTaggedOffset());
        return holder;
    }
}
