package org.iwarp4j.mpa.internal;

import static org.iwarp4j.mpa.MpaConstants.MARKER_INTERVAL;
import static org.iwarp4j.mpa.MpaConstants.MARKER_LENGTH;

/**
 * Where markers stand (RFC 5044 §4.3): at every stream offset that is a multiple of 512, counted
 * from the first octet of Full Operation in that direction (SeqStart; MPA-R-016, MPA-R-019). Offsets are kept as
 * {@code long} from SeqStart, so the RFC's modulo-2^32 sequence arithmetic never wraps here;
 * 2^32 is a multiple of 512, so the positions are the same.
 */
public final class MarkerSpacing {

    private MarkerSpacing() {
    }

    /** A marker begins at this stream offset. */
    public static boolean isMarkerOffset(long streamOffset) {
        return streamOffset % MARKER_INTERVAL == 0;
    }

    /** The first marker offset at or after {@code streamOffset}. */
    public static long markerAtOrAfter(long streamOffset) {
        long rest = streamOffset % MARKER_INTERVAL;
        return rest == 0 ? streamOffset : streamOffset + MARKER_INTERVAL - rest;
    }

    /**
     * How many markers an FPDU holds after its ULPDU_Length field starts at {@code fpduStart}:
     * those inside the ULPDU or PAD and one that directly precedes the CRC field (§4.4 rule 3).
     * A marker after the CRC belongs to the next FPDU.
     *
     * @param preCrcLength octets of ULPDU_Length + ULPDU + PAD, markers not counted
     */
    public static int markersBeforeCrc(long fpduStart, int preCrcLength) {
        // The first marker stands this many FPDU octets in; each later one 508 octets further
        // (512 of stream less the 4-octet marker before it). One at exactly the CRC counts.
        long before = markerAtOrAfter(fpduStart + 1) - fpduStart;
        if (preCrcLength < before) {
            return 0;
        }
        return 1 + (int) ((preCrcLength - before) / (MARKER_INTERVAL - MARKER_LENGTH));
    }
}
