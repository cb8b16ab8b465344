package org.iwarp4j.rdmap.internal.qp;

import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateCause;

/**
 * An RDMA Read Request sent and not yet fully answered, and how far its Read Response has come.
 *
 * <p>Every segment of the Read Response is compared with the request before anything is placed
 * (RFC 5040 §5.2.2 and §7.1 let the requester do so, RDMAP-R-018; Linux siw does it in {@code
 * siw_rresp_check_ntoh}): a Data Source answers with the Data Sink STag and TO of the request,
 * the TO advancing by the octets of each segment, and exactly the Read Message Size in all, L set
 * on the last segment only (RFC 5040 §4.4, §5.2.1, RDMAP-R-016; RFC 5041 §5.2, DDP-R-030). DDP's
 * own checks would let a segment go anywhere in the sink's registered region, and a zero-length
 * segment with L set would complete the Read with nothing placed: stale octets of a reused sink
 * buffer taken for the data (RDMAP-R-019 completes a Read once the whole message was delivered).
 *
 * <p>Zero-length segments carry no STag or TO that means anything (RFC 5041 §5.2, DDP-R-031):
 * only their L bit is checked.
 */
final class OutstandingRead {

    /** The work request, or {@code null} for a Read RTR (RFC 6581 §9.2), which no work request posted. */
    final Transmitter.SendEntry entry;
    final ReadRequestHeader header;
    /** The TO the next non-empty segment must carry. */
    private long nextTo;
    /** Octets of the Read Message Size not placed yet. */
    private long remaining;

    OutstandingRead(Transmitter.SendEntry entry, ReadRequestHeader header) {
        this.entry = entry;
        this.header = header;
        this.nextTo = header.sinkTaggedOffset();
        this.remaining = header.readMessageSize();
    }

    /**
     * Why a Read Response segment with header {@code tagged} (STag, TO, L) and {@code length}
     * payload octets does not continue this Read's response, or {@code null} if it does. Changes nothing:
     * direct placement asks before reading the payload into place, the ordinary path before placing.
     */
    TerminateCause refusal(TaggedHeader tagged, int length) {
        if (length > 0) {
            if (tagged.stag() != header.sinkStag()) {
                return TerminateCause.TAGGED_INVALID_STAG;
            }
            if (tagged.to() != nextTo) {
                return TerminateCause.READ_RESPONSE_WRONG_TO;
            }
            if (length > remaining) {
                return TerminateCause.READ_RESPONSE_WRONG_LENGTH;
            }
        }
        if (tagged.last() && length != remaining) {
            return TerminateCause.READ_RESPONSE_WRONG_LENGTH;
        }
        return null;
    }

    /** A segment that passed {@link #refusal} was placed. */
    void placed(int length) {
        nextTo += length;
        remaining -= length;
    }
}
