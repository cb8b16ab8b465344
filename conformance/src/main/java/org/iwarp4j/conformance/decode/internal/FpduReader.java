package org.iwarp4j.conformance.decode.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.iwarp4j.ddp.DdpConstants;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.rdmap.internal.wire.RdmapControl;

/**
 * Cuts one direction's stream after the startup frame into FPDUs (RFC 5044 §4), removing markers
 * when the peer asked for them: one every 512 octets counted from the first octet of Full
 * Operation (MPA-R-016, MPA-R-019). Boundaries come from ULPDU_Length alone (MPA-R-038); markers
 * are checked, never trusted, except to find an FPDU again after octets the capture lacks.
 */
final class FpduReader {

    /** Why reading stopped at an offset. */
    enum Stop { NONE, END_OF_CAPTURE, GAP, FRAMING }

    /** The result of reading one FPDU at an offset. */
    record Attempt(Fpdu fpdu, Stop stop, long stopOffset, String detail) {
    }

    private static final int MIN_ULPDU = DdpConstants.TAGGED_HEADER_LENGTH;
    /**
     * What resynchronising may read of whole FPDUs, beyond {@link #RESYNC_PER_OCTET} per captured
     * octet: a few hundred full-size candidates, for a short stream.
     */
    private static final long RESYNC_ALLOWANCE = 64L * MpaConstants.MAX_ULPDU;
    /**
     * Octets resynchronising may read whole per captured octet. Real data passes the header test at
     * about one offset in 16,000, so a real stream needs a few; data built to pass it everywhere
     * would otherwise cost each offset up to 64 KiB of reading and CRC, some 16,000 times the input.
     */
    private static final int RESYNC_PER_OCTET = 16;

    private final ByteStream stream;
    private final long fullOperationStart;
    private final boolean markers;
    /** The stream's captured octets: {@link ByteStream#index} finds an offset's. */
    private final byte[] data;
    private final long length;
    private final long resyncBudget;
    private long resyncOctets;

    FpduReader(ByteStream stream, long fullOperationStart, boolean markers) {
        this.stream = stream;
        this.fullOperationStart = fullOperationStart;
        this.markers = markers;
        this.data = stream.data();
        this.length = stream.length();
        this.resyncBudget = RESYNC_ALLOWANCE + RESYNC_PER_OCTET * (long) data.length;
    }

    boolean markers() {
        return markers;
    }

    private boolean isMarker(long offset) {
        return markers && offset >= fullOperationStart
                && (offset - fullOperationStart) % MpaConstants.MARKER_INTERVAL == 0;
    }

    /** A cursor over the stream that steps over markers and remembers them. */
    private final class Cursor {
        long pos;
        final long lengthField;
        final List<Fpdu.Marker> found = new ArrayList<>();
        Stop stop = Stop.NONE;
        long stopAt;

        Cursor(long pos, long lengthField) {
            this.pos = pos;
            this.lengthField = lengthField;
        }

        boolean available(long from, int count) {
            if (from + count > length) {
                stop = Stop.END_OF_CAPTURE;
                stopAt = from;
                return false;
            }
            ByteStream.Gap gap = stream.gapIn(from, from + count);
            if (gap != null) {
                stop = Stop.GAP;
                stopAt = gap.offset();
                return false;
            }
            return true;
        }

        /** Consumes a marker at the current position if one stands there. */
        boolean skipMarker() {
            if (!isMarker(pos)) {
                return true;
            }
            if (!available(pos, MpaConstants.MARKER_LENGTH)) {
                return false;
            }
            int value = getInt(pos);
            int expected = pos < lengthField ? 0 : (int) (pos - lengthField);
            found.add(new Fpdu.Marker(pos, value, expected));
            pos += MpaConstants.MARKER_LENGTH;
            return true;
        }

        /** Reads {@code count} octets into {@code out} from {@code at}, stepping over markers. */
        boolean read(byte[] out, int at, int count) {
            int done = 0;
            while (done < count) {
                if (!skipMarker()) {
                    return false;
                }
                long next = markers ? Math.min(nextMarker(pos + 1), pos + (count - done)) : pos + (count - done);
                int run = (int) (next - pos);
                if (!available(pos, run)) {
                    return false;
                }
                System.arraycopy(data, stream.index(pos), out, at + done, run);
                done += run;
                pos += run;
            }
            return true;
        }
    }

    private long nextMarker(long from) {
        long rel = from - fullOperationStart;
        long rest = Math.floorMod(rel, (long) MpaConstants.MARKER_INTERVAL);
        return rest == 0 ? from : from + MpaConstants.MARKER_INTERVAL - rest;
    }

    /** The four octets at {@code at}, which the capture holds. */
    private int getInt(long at) {
        int i = stream.index(at);
        return (data[i] & 0xff) << 24 | (data[i + 1] & 0xff) << 16 | (data[i + 2] & 0xff) << 8 | data[i + 3] & 0xff;
    }

    /** A cursor at the FPDU that starts at {@code start} (a marker there belongs to it, MPA-R-018). */
    private Cursor fpduAt(long start) {
        return new Cursor(start, isMarker(start) ? start + MpaConstants.MARKER_LENGTH : start);
    }

    /** Reads ULPDU_Length; -1 if the capture stops first ({@code c} says where). */
    private static int ulpduLength(Cursor c) {
        byte[] octets = new byte[2];
        return c.read(octets, 0, 2) ? (octets[0] & 0xff) << 8 | octets[1] & 0xff : -1;
    }

    /** Reads the FPDU that starts at {@code start}. */
    Attempt read(long start) {
        Cursor c = fpduAt(start);
        int length = ulpduLength(c);
        if (length < 0) {
            return new Attempt(null, c.stop, c.stopAt, null);
        }
        if (length < MIN_ULPDU) {
            return new Attempt(null, Stop.FRAMING, start, "ULPDU_Length " + length
                    + " is shorter than any DDP header: the stream is not FPDUs from offset " + start);
        }
        byte[] ulpdu = new byte[length];
        int padLength = (4 - (2 + length) % 4) % 4;
        byte[] pad = new byte[padLength];
        if (!c.read(ulpdu, 0, length) || !c.read(pad, 0, padLength) || !c.skipMarker()) {
            return new Attempt(null, c.stop, c.stopAt, null);
        }
        long crcAt = c.pos;
        byte[] crcOctets = new byte[4];
        if (!c.read(crcOctets, 0, 4)) {
            return new Attempt(null, c.stop, c.stopAt, null);
        }
        CRC32C crc = new CRC32C();
        // Read without a gap, so its octets are consecutive in data.
        crc.update(data, stream.index(start), (int) (crcAt - start));
        // The CRC goes on the wire least significant octet first, as an iSCSI digest does (RFC 3385).
        int received = (crcOctets[3] & 0xff) << 24 | (crcOctets[2] & 0xff) << 16 | (crcOctets[1] & 0xff) << 8
                | crcOctets[0] & 0xff;
        // A marker that stands inside the CRC field was read but points back to this FPDU too.
        Fpdu fpdu = new Fpdu(start, c.pos, stream.frameAt(start), stream.frameAt(c.pos - 1), ulpdu, pad, received,
                (int) crc.getValue(), List.copyOf(c.found));
        return new Attempt(fpdu, Stop.NONE, c.pos, null);
    }

    /**
     * Finds where FPDUs start again at or after {@code from}, after octets the capture lacks or a
     * framing error: with markers, the first marker whose FPDUPTR names a readable FPDU; without,
     * the first offset where an FPDU with a plausible DDP/RDMAP header (and a matching CRC, when
     * CRCs are in use) is followed by another or by the end of what was captured. It looks at two
     * ULPDUs' worth of captured octets after {@code from} and after each gap it meets. -1 if none,
     * or once this reader has read as many octets resynchronising as its stream allows.
     */
    long resynchronise(long from, boolean crc) {
        long limit = Math.min(length, from + 2L * MpaConstants.MAX_ULPDU + 64);
        for (long p = from; p < limit; p++) {
            if (resyncOctets > resyncBudget) {
                return -1;
            }
            ByteStream.Gap g = stream.gapIn(p, p + 1);
            if (g != null) {
                p = g.offset() + g.length() - 1;
                // The window is for octets the capture holds: one gap after a fragment of an FPDU would
                // otherwise use it up, and that direction would not be decoded again. The octet budget
                // still bounds the search.
                limit = Math.min(length, Math.max(limit, p + 1 + 2L * MpaConstants.MAX_ULPDU + 64));
                continue;
            }
            if (markers) {
                long m = nextMarker(p);
                if (m + 4 > length) {
                    return -1;
                }
                if (stream.gapIn(m, m + 4) != null) {
                    p = m + 3;
                    continue;
                }
                int pointer = getInt(m) & 0xffff;
                long candidate = m - pointer;
                if (candidate >= from && plausible(candidate, crc, true)) {
                    return candidate;
                }
                p = m + 3;
                continue;
            }
            if (plausible(p, crc, true)) {
                return p;
            }
        }
        return -1;
    }

    /**
     * Whether an FPDU starts at {@code p}: its header plausible, its CRC matching when CRCs are in
     * use, and (with {@code lookAhead}) the same of the FPDU after it unless the capture stops first.
     * Whole FPDUs (up to 64 KiB each) are read and their CRCs computed only where the first octets
     * pass {@link #headerPlausibleAt}.
     */
    private boolean plausible(long p, boolean crc, boolean lookAhead) {
        if (!headerPlausibleAt(p)) {
            return false;
        }
        Attempt a = examine(p);
        if (a.fpdu() == null || crc && !a.fpdu().crcMatches()) {
            return false;
        }
        long next = a.fpdu().end();
        if (!lookAhead || next >= length) {
            return true;
        }
        if (!headerPlausibleAt(next)) {
            return false;
        }
        Attempt b = examine(next);
        if (b.stop() == Stop.END_OF_CAPTURE || b.stop() == Stop.GAP) {
            return true;
        }
        return b.fpdu() != null && (!crc || b.fpdu().crcMatches());
    }

    /** {@link #read}, counting the octets it covered against the budget of resynchronising. */
    private Attempt examine(long p) {
        Attempt a = read(p);
        resyncOctets += (a.fpdu() != null ? a.fpdu().end() : a.stopOffset()) - p;
        return a;
    }

    /** Octets read whole while resynchronising, so far. */
    long resyncOctets() {
        return resyncOctets;
    }

    /**
     * Whether the FPDU at {@code p} can be one by its first octets alone: a ULPDU_Length that holds
     * a DDP header and a plausible DDP/RDMAP header (RFC 5041 §4, RFC 5040 §4). Where the capture
     * stops within them, the full read says so as cheaply.
     */
    private boolean headerPlausibleAt(long p) {
        Cursor c = fpduAt(p);
        int length = ulpduLength(c);
        if (length < 0) {
            return true;
        }
        if (length < MIN_ULPDU) {
            return false;
        }
        byte[] header = new byte[Math.min(length, DdpConstants.UNTAGGED_HEADER_LENGTH)];
        return !c.read(header, 0, header.length) || headerPlausible(header);
    }

    static boolean headerPlausible(byte[] ulpdu) {
        int ddp = ulpdu[0] & 0xff;
        int rdmap = ulpdu[1] & 0xff;
        if ((ddp & DdpConstants.CONTROL_VERSION_MASK) != DdpConstants.DDP_VERSION
                || (ddp & DdpConstants.CONTROL_RESERVED_MASK) != 0) {
            return false;
        }
        boolean tagged = (ddp & DdpConstants.CONTROL_TAGGED) != 0;
        if (!tagged && ulpdu.length < DdpConstants.UNTAGGED_HEADER_LENGTH) {
            return false;
        }
        long qn = tagged ? 0 : (ulpdu[6] & 0xffL) << 24 | (ulpdu[7] & 0xff) << 16 | (ulpdu[8] & 0xff) << 8
                | ulpdu[9] & 0xff;
        return RdmapControl.check(ddp, rdmap, qn).isValid();
    }
}
