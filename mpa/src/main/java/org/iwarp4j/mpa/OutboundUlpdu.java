package org.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.util.Objects;

/**
 * One outbound ULPDU (RFC 5044 §4.1) given in two parts, for {@link MpaFrameEncoder}: a short
 * header (the DDP header, RFC 5041 §4) and a payload, the ULPDU being the header octets followed
 * by the payload's readable octets.
 *
 * <p>Why not one {@link ByteBuf}: for a large payload the encoder sends the FPDU as a small buffer
 * holding ULPDU_Length and the header (after the previous FPDU's PAD and CRC, when that one was
 * held back) and the payload itself (a slice of registered memory, not copied): flat buffers
 * that the transport's gathering write takes by address. A composite buffer for the same octets costs one NIO view
 * per component in every gathering write and every CRC pass, besides its own assembly.
 *
 * <p>Reference counted through the payload: whoever holds it releases it once (the encoder does).
 * The header array is owned by this object and must not change after it is built.
 */
public final class OutboundUlpdu implements ReferenceCounted {

    private final byte[] header;
    private final ByteBuf payload;

    private OutboundUlpdu(byte[] header, ByteBuf payload) {
        this.header = Objects.requireNonNull(header, "header");
        this.payload = Objects.requireNonNull(payload, "payload");
    }

    /**
     * The ULPDU {@code header} followed by {@code payload}'s readable octets. Takes ownership of
     * both: {@code header} is not copied, {@code payload} is released with this object.
     */
    public static OutboundUlpdu of(byte[] header, ByteBuf payload) {
        return new OutboundUlpdu(header, payload);
    }

    /** The header octets; the array itself, not a copy: do not change it. */
    public byte[] header() {
        return header;
    }

    /** The payload; shares this object's reference. */
    public ByteBuf payload() {
        return payload;
    }

    /** Octets of the whole ULPDU: what its FPDU's ULPDU_Length says. */
    public int length() {
        return header.length + payload.readableBytes();
    }

    /**
     * The ULPDU's octets copied into one new buffer from {@code alloc}, which the caller owns;
     * this object keeps its reference. For tests and tools that look at ULPDUs as one buffer.
     */
    public ByteBuf toByteBuf(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(length());
        try {
            return out.writeBytes(header).writeBytes(payload, payload.readerIndex(), payload.readableBytes());
        } catch (Throwable t) {
            out.release();
            throw t;
        }
    }

    @Override
    public int refCnt() {
        return payload.refCnt();
    }

    @Override
    public OutboundUlpdu retain() {
        payload.retain();
        return this;
    }

    @Override
    public OutboundUlpdu retain(int increment) {
        payload.retain(increment);
        return this;
    }

    @Override
    public OutboundUlpdu touch() {
        payload.touch();
        return this;
    }

    @Override
    public OutboundUlpdu touch(Object hint) {
        payload.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return payload.release();
    }

    @Override
    public boolean release(int decrement) {
        return payload.release(decrement);
    }

    @Override
    public String toString() {
        return "OutboundUlpdu[header " + header.length + " octets, payload " + payload.readableBytes() + " octets]";
    }
}
