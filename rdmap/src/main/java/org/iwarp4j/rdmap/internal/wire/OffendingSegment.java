package org.iwarp4j.rdmap.internal.wire;

import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_CONTROL_TAGGED;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_TAGGED_HEADER_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_UNTAGGED_HEADER_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.RDMAP_CONTROL_OFFSET;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.READ_REQUEST_SEGMENT_LENGTH;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * What a Terminate may echo of the incoming DDP segment that caused it, captured when the error
 * is found, immutable: its DDP header (14 octets tagged, 18 untagged), the DDP Segment Length, and
 * for an RDMA Read Request its 28-octet header. Capturing at once lets the engine release the
 * segment and still describe the <em>first</em> erroneous message when the Terminate goes out
 * later (RFC 5040 §7.1 #4, RDMAP-R-042).
 *
 * <p>DDP Segment Length: RFC 5040 §4.8 calls it "the length handed up by the DDP layer". This
 * stack sends the length of the whole DDP segment (the MPA ULPDU_Length, headers included), as
 * {@code testdata/vectors/fpdus.txt} V-FPDU-6 does (17 for V-FPDU-5's 17-octet segment). Linux siw sends the
 * payload length instead (the segment length less the DDP and RDMAP headers); decoders must accept
 * either.
 */
public final class OffendingSegment {

    private static final int MAX_SEGMENT_LENGTH = 0xFFFF;

    private final byte[] ddpHeader;
    private final int ddpSegmentLength;
    private final ReadRequestHeader readRequest;

    private OffendingSegment(byte[] ddpHeader, int ddpSegmentLength, ReadRequestHeader readRequest) {
        this.ddpHeader = ddpHeader;
        this.ddpSegmentLength = ddpSegmentLength;
        this.readRequest = readRequest;
    }

    /**
     * Captures the headers of a received DDP segment (the whole ULPDU, starting at the reader index
     * with the DDP control octet). Neither the buffer's indexes nor its reference count change.
     * The Read Request header is captured when the segment is untagged, its opcode is 0x1 and it
     * holds 46 octets or more.
     *
     * @return the capture, or {@code null} if the segment is shorter than its DDP header (nothing
     *     can be echoed) or longer than a ULPDU can be (65535)
     */
    public static OffendingSegment capture(ByteBuf segment) {
        int length = segment.readableBytes();
        if (length < 1 || length > MAX_SEGMENT_LENGTH) {
            return null;
        }
        int base = segment.readerIndex();
        boolean tagged = (segment.getUnsignedByte(base) & DDP_CONTROL_TAGGED) != 0;
        int headerLength = tagged ? DDP_TAGGED_HEADER_LENGTH : DDP_UNTAGGED_HEADER_LENGTH;
        if (length < headerLength) {
            return null;
        }
        byte[] header = new byte[headerLength];
        segment.getBytes(base, header);
        ReadRequestHeader rr = null;
        if (isReadRequest(header) && length >= READ_REQUEST_SEGMENT_LENGTH) {
            ByteBuf view = segment.slice(base + DDP_UNTAGGED_HEADER_LENGTH, RdmapConstants.READ_REQUEST_HEADER_LENGTH);
            rr = ReadRequestHeader.decode(view);
        }
        return new OffendingSegment(header, length, rr);
    }

    /**
     * A capture from parts.
     *
     * @param ddpHeader the DDP header octets: 14 if its T bit is set, else 18 (copied)
     * @param ddpSegmentLength the value for the DDP Segment Length field, 0 to 65535
     * @param readRequest the Read Request header to echo, or {@code null}; only for an untagged
     *     header with opcode 0x1
     * @throws IllegalArgumentException if the parts do not fit together
     */
    public static OffendingSegment of(byte[] ddpHeader, int ddpSegmentLength, ReadRequestHeader readRequest) {
        if (ddpHeader.length == 0) {
            throw new IllegalArgumentException("empty DDP header");
        }
        boolean tagged = (ddpHeader[0] & DDP_CONTROL_TAGGED) != 0;
        int expected = tagged ? DDP_TAGGED_HEADER_LENGTH : DDP_UNTAGGED_HEADER_LENGTH;
        if (ddpHeader.length != expected) {
            throw new IllegalArgumentException((tagged ? "a tagged" : "an untagged") + " DDP header is " + expected
                    + " octets, not " + ddpHeader.length);
        }
        if (ddpSegmentLength < 0 || ddpSegmentLength > MAX_SEGMENT_LENGTH) {
            throw new IllegalArgumentException("DDP Segment Length is 16 bits: " + ddpSegmentLength);
        }
        if (readRequest != null && !isReadRequest(ddpHeader)) {
            throw new IllegalArgumentException("a Read Request header belongs to an untagged segment with opcode 0x1");
        }
        return new OffendingSegment(ddpHeader.clone(), ddpSegmentLength, readRequest);
    }

    static boolean isReadRequest(byte[] ddpHeader) {
        return (ddpHeader[0] & DDP_CONTROL_TAGGED) == 0 && ddpHeader.length >= 2
                && RdmapControl.opcodeCode(ddpHeader[RDMAP_CONTROL_OFFSET] & 0xFF)
                == RdmapOpcode.RDMA_READ_REQUEST.code();
    }

    /**
     * The same capture with the Read Request header updated for {@code octetsSent} octets of the
     * response already sent (RFC 5040 §4.8, RDMAP-R-041).
     *
     * @throws IllegalStateException if no Read Request header was captured
     */
    public OffendingSegment withReadProgress(long octetsSent) {
        if (readRequest == null) {
            throw new IllegalStateException("no Read Request header captured");
        }
        return new OffendingSegment(ddpHeader, ddpSegmentLength, readRequest.advancedBy(octetsSent));
    }

    /** The DDP header octets, a copy. */
    public byte[] ddpHeader() {
        return ddpHeader.clone();
    }

    int ddpHeaderLength() {
        return ddpHeader.length;
    }

    byte[] ddpHeaderUnsafe() {
        return ddpHeader;
    }

    /** The segment's T bit. */
    public boolean tagged() {
        return (ddpHeader[0] & DDP_CONTROL_TAGGED) != 0;
    }

    /** The RDMAP control octet (DDP header octet 1), 0..255. */
    public int rdmapControl() {
        return ddpHeader[RDMAP_CONTROL_OFFSET] & 0xFF;
    }

    /** {@code true} for an untagged segment with opcode 0x1. */
    public boolean isReadRequest() {
        return isReadRequest(ddpHeader);
    }

    /** The value the DDP Segment Length field will carry. */
    public int ddpSegmentLength() {
        return ddpSegmentLength;
    }

    /** The Read Request header to echo, or {@code null}. */
    public ReadRequestHeader readRequest() {
        return readRequest;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof OffendingSegment)) {
            return false;
        }
        OffendingSegment that = (OffendingSegment) o;
        return ddpSegmentLength == that.ddpSegmentLength && Arrays.equals(ddpHeader, that.ddpHeader)
                && (readRequest == null ? that.readRequest == null : readRequest.equals(that.readRequest));
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(ddpHeader) + ddpSegmentLength;
    }

    @Override
    public String toString() {
        return "OffendingSegment{" + (tagged() ? "tagged" : "untagged") + ", length " + ddpSegmentLength
                + ", control 0x" + Integer.toHexString(rdmapControl()) + (readRequest != null ? ", " + readRequest : "")
                + '}';
    }
}
