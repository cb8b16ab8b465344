package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;

/**
 * The 14-octet tagged buffer header (RFC 5041 §4.2, Figure 4): control (T = 1), RsvdULP, STag, TO.
 * {@link #encode} writes all four fields, in that order, at the front of every tagged segment
 * this stack sends, so a peer finds the STag and TO where it looks for them (DDP-R-018).
 *
 * @param last the L flag (§4.1)
 * @param rsvdUlp the RsvdULP octet, 0..255, opaque to DDP (RDMAP's control field)
 * @param stag the Data Sink's Steering Tag, 32 opaque bits
 * @param to the Tagged Offset where this segment's payload goes, an unsigned 64-bit value
 *     (compare with {@link Long#compareUnsigned})
 */
public record TaggedHeader(boolean last, int rsvdUlp, int stag, long to) implements DdpHeader {

    public TaggedHeader {
        if ((rsvdUlp & ~0xFF) != 0) {
            throw new IllegalArgumentException("RsvdULP is one octet: " + rsvdUlp);
        }
    }

    @Override
    public boolean tagged() {
        return true;
    }

    @Override
    public int length() {
        return DdpConstants.TAGGED_HEADER_LENGTH;
    }

    /** This header with another TO (the TO of a later segment of the same message, §5.2). */
    public TaggedHeader withTo(long newTo) {
        return new TaggedHeader(last, rsvdUlp, stag, newTo);
    }

    /** This header with another L flag. */
    public TaggedHeader withLast(boolean newLast) {
        return new TaggedHeader(newLast, rsvdUlp, stag, to);
    }

    @Override
    public void encode(ByteBuf out) {
        out.ensureWritable(DdpConstants.TAGGED_HEADER_LENGTH);
        out.writeByte(control());
        out.writeByte(rsvdUlp);
        out.writeInt(stag);
        out.writeLong(to);
    }

    @Override
    public String toString() {
        return String.format("TaggedHeader[L=%d, RsvdULP=0x%02x, STag=0x%08x, TO=0x%016x]",
                last ? 1 : 0, rsvdUlp, stag, to);
    }
}
