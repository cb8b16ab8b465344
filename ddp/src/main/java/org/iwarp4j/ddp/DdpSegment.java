package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.ReferenceCounted;

/**
 * One received DDP segment (RFC 5041 §4.4, Figure 6): its decoded {@link #header()} and its ULP
 * payload. There is no length field in DDP: the segment is exactly one MPA ULPDU, and the payload
 * is everything after the 14- or 18-octet header (DDP-R-007, DDP-R-027).
 *
 * <p><b>Buffers.</b> A segment holds one reference to the ULPDU it was decoded from (the ULPDU is
 * retained, not sliced: one object fewer per segment on the receive path) and is {@link
 * ReferenceCounted} through it: whoever receives a segment releases it once (Netty's {@code
 * ReferenceCountUtil.release} works). The segment is the ULPDU's readable octets at the moment of
 * decoding; moving the ULPDU's indexes afterwards does not change it. {@link #payload()} is a view
 * that shares that reference: do not release it separately; {@code retain()} or copy it to keep it
 * beyond the segment. No octet is copied by decoding.
 */
public final class DdpSegment implements ReferenceCounted {

    private final DdpHeader header;
    /** The ULPDU, retained; its octets {@code [start, start + length)} are this segment. */
    private final ByteBuf ulpdu;
    private final int start;
    private final int length;
    private final ByteBuf payload;

    private DdpSegment(DdpHeader header, ByteBuf ulpdu) {
        this.header = header;
        this.start = ulpdu.readerIndex();
        this.length = ulpdu.readableBytes();
        // The view before the reference: if slicing threw, nothing would have been retained.
        this.payload = ulpdu.slice(start + header.length(), length - header.length());
        this.ulpdu = ulpdu.retain();
    }

    /**
     * Decodes the DDP segment that is {@code ulpdu}'s readable octets. {@code ulpdu} keeps its
     * indexes and the caller's reference (the caller still releases it); the returned segment holds
     * one more reference to it ({@code ulpdu} is retained once) and must be released by the caller.
     *
     * @throws DdpException for an invalid DDP version or a segment shorter than its header (see
     *     {@link DdpHeader#decode}); nothing is retained then
     */
    public static DdpSegment decode(ByteBuf ulpdu) throws DdpException {
        DdpHeader header = DdpHeader.decode(ulpdu);
        return new DdpSegment(header, ulpdu);
    }

    /**
     * Builds the ULPDU for one outbound segment: the encoded {@code header} followed by
     * {@code payload}'s readable octets, without copying the payload. Takes ownership of
     * {@code payload}: it becomes part of the result, or is released if this method throws. The caller owns
     * the result, normally by writing it to {@code MpaFrameEncoder}, which releases it.
     */
    public static ByteBuf encode(ByteBufAllocator alloc, DdpHeader header, ByteBuf payload) {
        ByteBuf head;
        try {
            head = alloc.buffer(header.length(), header.length());
        } catch (Throwable t) {
            payload.release();
            throw t;
        }
        try {
            header.encode(head);
        } catch (Throwable t) {
            head.release();
            payload.release();
            throw t;
        }
        if (!payload.isReadable()) {
            payload.release();
            return head;
        }
        return alloc.compositeBuffer(2).addComponents(true, head, payload);
    }

    /** The decoded header; {@link TaggedHeader} if {@link #tagged()}, else {@link UntaggedHeader}. */
    public DdpHeader header() {
        return header;
    }

    /** Whether T = 1. */
    public boolean tagged() {
        return header.tagged();
    }

    /** Whether L = 1. */
    public boolean last() {
        return header.last();
    }

    /**
     * The header as a tagged header.
     *
     * @throws ClassCastException if the segment is untagged
     */
    public TaggedHeader taggedHeader() {
        return (TaggedHeader) header;
    }

    /**
     * The header as an untagged header.
     *
     * @throws ClassCastException if the segment is tagged
     */
    public UntaggedHeader untaggedHeader() {
        return (UntaggedHeader) header;
    }

    /**
     * The ULP payload (may be empty): a view sharing this segment's reference, valid until the
     * segment is released. Reading it through its own reader index does not affect the segment.
     */
    public ByteBuf payload() {
        return payload;
    }

    /** Octets of ULP payload. */
    public int payloadLength() {
        return payload.readableBytes();
    }

    /** Octets of the whole segment, header included: the MPA ULPDU_Length it arrived with. */
    public int segmentLength() {
        return length;
    }

    /**
     * The header octets exactly as received, Rsvd bits included: what an RDMAP Terminate echoes as
     * "Terminated DDP Header" (RFC 5040 §4.8). A fresh array each call.
     */
    public byte[] headerOctets() {
        return ByteBufUtil.getBytes(ulpdu, start, header.length());
    }

    /** A {@link DdpException} for this segment, carrying its header octets and length. */
    public DdpException error(DdpError error, String message) {
        return new DdpException(error, message, null, headerOctets(), segmentLength());
    }

    @Override
    public int refCnt() {
        return ulpdu.refCnt();
    }

    @Override
    public DdpSegment retain() {
        ulpdu.retain();
        return this;
    }

    @Override
    public DdpSegment retain(int increment) {
        ulpdu.retain(increment);
        return this;
    }

    @Override
    public DdpSegment touch() {
        ulpdu.touch();
        return this;
    }

    @Override
    public DdpSegment touch(Object hint) {
        ulpdu.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return ulpdu.release();
    }

    @Override
    public boolean release(int decrement) {
        return ulpdu.release(decrement);
    }

    @Override
    public String toString() {
        return "DdpSegment[" + header + ", payload " + payload.readableBytes() + " octets]";
    }
}
