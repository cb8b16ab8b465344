package org.iwarp4j.rdmap.internal.wire;

import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_CONTROL_LAST;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_CONTROL_TAGGED;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_SEGMENT_LENGTH_FIELD;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_TAGGED_HEADER_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_UNTAGGED_HEADER_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_VERSION;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.QN_TERMINATE;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.RDMAP_CONTROL_OFFSET;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATED_RDMA_HEADER_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_CODE_MASK;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_CODE_SHIFT;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_CONTROL_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_ETYPE_MASK;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_ETYPE_SHIFT;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_FLAG_D;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_FLAG_M;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_FLAG_R;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_LAYER_MASK;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_LAYER_SHIFT;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_MSN;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.TERMINATE_RESERVED_MASK;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;
import java.util.Objects;
import org.iwarp4j.rdmap.TerminateReason;

/**
 * An RDMAP Terminate header (RFC 5040 §4.8, Fig. 7 and 8; App. A.6), immutable. On the wire it
 * follows the 18-octet untagged DDP header (QN 2, MSN 1, MO 0, L=1):
 *
 * <pre>
 * | Layer | EType | Error Code |M|D|R| Reserved (13) |  Terminate Control, 4 octets
 * | DDP Segment Length (2)  |                          present if D
 * | Terminated DDP Header (14 tagged / 18 untagged)   present if D
 * | Terminated RDMA Header (28, a Read Request header) present if R
 * </pre>
 *
 * <p>The HdrCt bits are kept as sent and the optional fields as present, independently, so that a
 * decoded Terminate from a sloppy peer re-encodes to the same octets. Messages this stack sends
 * come from {@link TerminateBuilder}, which sets bits and fields per RFC 5040 Fig. 10.
 *
 * <p>Decoding is lenient where Linux siw needs it (RDMAP-R-003, RDMAP-R-013, RDMAP-R-024, RDMAP-R-026): the DDP Segment
 * Length is taken as sent (siw writes the payload length), R may be set without an RDMA header
 * (siw does so for Send with Invalidate), headers may come with codes for which we would send none
 * ({@code 02 05 c0 00} + headers), and reserved bits are ignored (RDMAP-R-040). The only decode
 * failure is fewer than the 4 octets of the Terminate Control field.
 */
public final class TerminateMessage {

    private final TerminateReason reason;
    private final boolean m;
    private final boolean d;
    private final boolean r;
    private final int reservedBits;
    private final int ddpSegmentLength;
    private final byte[] ddpHeader;
    private final ReadRequestHeader rdmaHeader;

    private TerminateMessage(TerminateReason reason, boolean m, boolean d, boolean r, int reservedBits,
                             int ddpSegmentLength, byte[] ddpHeader, ReadRequestHeader rdmaHeader) {
        this.reason = Objects.requireNonNull(reason, "reason");
        this.m = m;
        this.d = d;
        this.r = r;
        this.reservedBits = reservedBits;
        this.ddpSegmentLength = ddpSegmentLength;
        this.ddpHeader = ddpHeader;
        this.rdmaHeader = rdmaHeader;
    }

    /** A Terminate with no HdrCt bits and no echoed fields: 4 octets, a 22-octet ULPDU. */
    public static TerminateMessage withoutHeaders(TerminateReason reason) {
        return new TerminateMessage(reason, false, false, false, 0, -1, null, null);
    }

    /**
     * A Terminate with every field given; used by the decoder and {@link TerminateBuilder}, and for
     * tests that need a peer's odd shapes. Fields are positional: the length is written iff {@code
     * ddpSegmentLength >= 0}, then the DDP header iff not {@code null}, then the RDMA header iff not
     * {@code null}; the flags are written as given.
     *
     * @param reservedBits the 13 reserved bits (0 for anything we send)
     * @param ddpSegmentLength 0..65535, or -1 for absent
     * @param ddpHeader 14 octets if its T bit is set, else 18 (copied); or {@code null}
     * @param rdmaHeader or {@code null}
     * @throws IllegalArgumentException if a field does not fit, a present field lacks its flag (D
     *     for length and DDP header, R for the RDMA header), or a DDP header comes without a length
     */
    public static TerminateMessage of(TerminateReason reason, boolean m, boolean d, boolean r, int reservedBits,
                                      int ddpSegmentLength, byte[] ddpHeader, ReadRequestHeader rdmaHeader) {
        if ((reservedBits & ~TERMINATE_RESERVED_MASK) != 0) {
            throw new IllegalArgumentException("13 reserved bits: 0x" + Integer.toHexString(reservedBits));
        }
        if (ddpSegmentLength < -1 || ddpSegmentLength > 0xFFFF) {
            throw new IllegalArgumentException("DDP Segment Length is 16 bits: " + ddpSegmentLength);
        }
        if (ddpSegmentLength >= 0 && !d) {
            throw new IllegalArgumentException("DDP Segment Length is present only with D");
        }
        if (ddpHeader != null) {
            if (ddpSegmentLength < 0) {
                throw new IllegalArgumentException("a Terminated DDP Header follows the DDP Segment Length");
            }
            int expected = ddpHeader.length > 0 && (ddpHeader[0] & DDP_CONTROL_TAGGED) != 0
                    ? DDP_TAGGED_HEADER_LENGTH : DDP_UNTAGGED_HEADER_LENGTH;
            if (ddpHeader.length != expected) {
                throw new IllegalArgumentException("Terminated DDP Header of " + ddpHeader.length
                        + " octets; its T bit says " + expected);
            }
            ddpHeader = ddpHeader.clone();
        }
        if (rdmaHeader != null && !r) {
            throw new IllegalArgumentException("a Terminated RDMA Header is present only with R");
        }
        return new TerminateMessage(reason, m, d, r, reservedBits, ddpSegmentLength, ddpHeader, rdmaHeader);
    }

    /**
     * Decodes the Terminate header at {@code in}'s reader index (the DDP payload of a Terminate
     * segment) and advances the reader index past the octets it interpreted: the control word, and
     * each optional field the HdrCt bits announce and the buffer holds in full. Announced fields
     * that are missing or cut short are left out (and reported by {@link #isComplete()}); octets
     * after the last interpreted field stay readable. The buffer is not released; no octet beyond
     * its writer index is read.
     *
     * @throws RdmapFormatException if fewer than 4 octets are readable; nothing is consumed
     */
    public static TerminateMessage decode(ByteBuf in) {
        int available = in.readableBytes();
        if (available < TERMINATE_CONTROL_LENGTH) {
            throw new RdmapFormatException("Terminate Control needs " + TERMINATE_CONTROL_LENGTH + " octets, "
                    + available + " readable");
        }
        int base = in.readerIndex();
        int word = in.getInt(base);
        TerminateReason reason = TerminateReason.of((word & TERMINATE_LAYER_MASK) >>> TERMINATE_LAYER_SHIFT,
                (word & TERMINATE_ETYPE_MASK) >>> TERMINATE_ETYPE_SHIFT, (word & TERMINATE_CODE_MASK) >>> TERMINATE_CODE_SHIFT);
        boolean m = (word & TERMINATE_FLAG_M) != 0;
        boolean d = (word & TERMINATE_FLAG_D) != 0;
        boolean r = (word & TERMINATE_FLAG_R) != 0;
        int pos = TERMINATE_CONTROL_LENGTH;
        int length = -1;
        byte[] header = null;
        ReadRequestHeader rdma = null;
        boolean rdmaLocated = true;
        if (d) {
            rdmaLocated = false;
            if (available - pos >= DDP_SEGMENT_LENGTH_FIELD) {
                length = in.getUnsignedShort(base + pos);
                pos += DDP_SEGMENT_LENGTH_FIELD;
                if (available - pos >= 1) {
                    int size = (in.getUnsignedByte(base + pos) & DDP_CONTROL_TAGGED) != 0
                            ? DDP_TAGGED_HEADER_LENGTH : DDP_UNTAGGED_HEADER_LENGTH;
                    if (available - pos >= size) {
                        header = new byte[size];
                        in.getBytes(base + pos, header);
                        pos += size;
                        rdmaLocated = true;
                    }
                }
            }
        }
        if (r && rdmaLocated && available - pos >= TERMINATED_RDMA_HEADER_LENGTH) {
            rdma = ReadRequestHeader.decode(in.slice(base + pos, TERMINATED_RDMA_HEADER_LENGTH));
            pos += TERMINATED_RDMA_HEADER_LENGTH;
        }
        in.skipBytes(pos);
        return new TerminateMessage(reason, m, d, r, word & TERMINATE_RESERVED_MASK, length, header, rdma);
    }

    /** Octets {@link #encode(ByteBuf)} writes: 4, plus 2, 14 or 18, and 28 for the fields present. */
    public int encodedLength() {
        return TERMINATE_CONTROL_LENGTH + (ddpSegmentLength >= 0 ? DDP_SEGMENT_LENGTH_FIELD : 0)
                + (ddpHeader != null ? ddpHeader.length : 0) + (rdmaHeader != null ? TERMINATED_RDMA_HEADER_LENGTH : 0);
    }

    /** Writes the Terminate header (not the DDP header) at {@code out}'s writer index. {@code out} stays the caller's. */
    public void encode(ByteBuf out) {
        out.ensureWritable(encodedLength());
        out.writeInt(controlWord());
        if (ddpSegmentLength >= 0) {
            out.writeShort(ddpSegmentLength);
        }
        if (ddpHeader != null) {
            out.writeBytes(ddpHeader);
        }
        if (rdmaHeader != null) {
            rdmaHeader.encode(out);
        }
    }

    /**
     * The whole Terminate DDP segment, ready for MPA framing: the untagged DDP header of RFC 5040
     * §5.4 (L=1, DV 1, RDMAP control 0x47, RsvdULP[8:39] zero, QN 2, MSN 1, MO 0; RDMAP-R-025)
     * followed by {@link #encode(ByteBuf) this header}. A Terminate is always one segment: at most
     * 70 octets. The caller owns the returned buffer and must write or release it.
     */
    public ByteBuf encodeSegment(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(DDP_UNTAGGED_HEADER_LENGTH + encodedLength());
        out.writeByte(DDP_CONTROL_LAST | DDP_VERSION);
        out.writeByte(RdmapControl.encode(RdmapOpcode.TERMINATE));
        out.writeInt(0);
        out.writeInt(QN_TERMINATE);
        out.writeInt(TERMINATE_MSN);
        out.writeInt(0);
        encode(out);
        return out;
    }

    /** The first 4 octets as a big-endian word: Layer, EType, Error Code, M, D, R, reserved bits. */
    public int controlWord() {
        return reason.layerCode() << TERMINATE_LAYER_SHIFT | reason.errorType() << TERMINATE_ETYPE_SHIFT
                | reason.errorCode() << TERMINATE_CODE_SHIFT | (m ? TERMINATE_FLAG_M : 0) | (d ? TERMINATE_FLAG_D : 0)
                | (r ? TERMINATE_FLAG_R : 0) | reservedBits;
    }

    /** Layer, Error Type and Error Code. */
    public TerminateReason reason() {
        return reason;
    }

    /** HdrCt M: the DDP Segment Length is valid. */
    public boolean segmentLengthValid() {
        return m;
    }

    /** HdrCt D: the DDP Segment Length and Terminated DDP Header are included. */
    public boolean ddpHeaderIncluded() {
        return d;
    }

    /** HdrCt R: the Terminated RDMA Header is included. */
    public boolean rdmaHeaderIncluded() {
        return r;
    }

    /** The 13 reserved bits as received; always 0 in what we send. */
    public int reservedBits() {
        return reservedBits;
    }

    /**
     * The DDP Segment Length field, or -1 if absent. Meaningful only with M; note that peers differ
     * on what they put there (see {@link OffendingSegment}).
     */
    public int ddpSegmentLength() {
        return ddpSegmentLength;
    }

    /** The Terminated DDP Header (14 or 18 octets), a copy, or {@code null} if absent. */
    public byte[] terminatedDdpHeader() {
        return ddpHeader == null ? null : ddpHeader.clone();
    }

    /** The RDMAP control octet of the Terminated DDP Header (0..255), or -1 if there is none. */
    public int terminatedRdmapControl() {
        return ddpHeader == null ? -1 : ddpHeader[RDMAP_CONTROL_OFFSET] & 0xFF;
    }

    /** The Terminated RDMA Header, or {@code null} if absent. */
    public ReadRequestHeader terminatedRdmaHeader() {
        return rdmaHeader;
    }

    /**
     * {@code true} if every field the HdrCt bits announce is present: the length and DDP header when
     * D is set, the RDMA header when R is set — except that R without an RDMA header is accepted
     * when the echoed DDP header is not a Read Request's, since only a Read Request has one (siw
     * sets R for Send with Invalidate errors, RDMAP-R-024).
     */
    public boolean isComplete() {
        if (d && ddpHeader == null) {
            return false;
        }
        if (r && rdmaHeader == null) {
            return ddpHeader != null && !OffendingSegment.isReadRequest(ddpHeader);
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TerminateMessage)) {
            return false;
        }
        TerminateMessage that = (TerminateMessage) o;
        return reason.equals(that.reason) && m == that.m && d == that.d && r == that.r
                && reservedBits == that.reservedBits && ddpSegmentLength == that.ddpSegmentLength
                && Arrays.equals(ddpHeader, that.ddpHeader) && Objects.equals(rdmaHeader, that.rdmaHeader);
    }

    @Override
    public int hashCode() {
        return Objects.hash(reason, m, d, r, reservedBits, ddpSegmentLength, Arrays.hashCode(ddpHeader), rdmaHeader);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Terminate{").append(reason);
        sb.append(m ? " M" : "").append(d ? " D" : "").append(r ? " R" : "");
        if (reservedBits != 0) {
            sb.append(" reserved=0x").append(Integer.toHexString(reservedBits));
        }
        if (ddpSegmentLength >= 0) {
            sb.append(", DDP segment length ").append(ddpSegmentLength);
        }
        if (ddpHeader != null) {
            sb.append(", DDP header ");
            for (byte b : ddpHeader) {
                sb.append(String.format("%02x", b & 0xFF));
            }
        }
        if (rdmaHeader != null) {
            sb.append(", ").append(rdmaHeader);
        }
        return sb.append('}').toString();
    }
}
