package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;

/**
 * The 18-octet untagged buffer header (RFC 5041 §4.3, Figure 5): control (T = 0), RsvdULP[0:7],
 * RsvdULP[8:39], QN, MSN, MO. {@link #encode} writes all six fields, in that order, at the front of
 * every untagged segment this stack sends, so a peer finds QN, MSN and MO where it looks for them
 * (DDP-R-023).
 *
 * <p>QN, MSN and MO are unsigned 32-bit values held in {@code int}s, as on the wire: compare them
 * with {@link Integer#compareUnsigned} or widen them with {@link Integer#toUnsignedLong}. MSN
 * arithmetic is modulo 2^32, which {@code int} overflow gives for free.
 *
 * @param last the L flag (§4.1)
 * @param rsvdUlp RsvdULP[0:7], 0..255, opaque to DDP (RDMAP's control field)
 * @param rsvdUlpWord RsvdULP[8:39], 32 bits opaque to DDP (RDMAP: the Invalidate STag of a Send
 *     with Invalidate, otherwise 0)
 * @param qn the Queue Number
 * @param msn the Message Sequence Number
 * @param mo the Message Offset of this segment's first payload octet
 */
public record UntaggedHeader(boolean last, int rsvdUlp, int rsvdUlpWord, int qn, int msn, int mo)
        implements DdpHeader {

    public UntaggedHeader {
        if ((rsvdUlp & ~0xFF) != 0) {
            throw new IllegalArgumentException("RsvdULP[0:7] is one octet: " + rsvdUlp);
        }
    }

    @Override
    public boolean tagged() {
        return false;
    }

    @Override
    public int length() {
        return DdpConstants.UNTAGGED_HEADER_LENGTH;
    }

    /** This header with another MO (the MO of a later segment of the same message, §5.2). */
    public UntaggedHeader withMo(int newMo) {
        return new UntaggedHeader(last, rsvdUlp, rsvdUlpWord, qn, msn, newMo);
    }

    /** This header with another L flag. */
    public UntaggedHeader withLast(boolean newLast) {
        return new UntaggedHeader(newLast, rsvdUlp, rsvdUlpWord, qn, msn, mo);
    }

    @Override
    public void encode(ByteBuf out) {
        out.ensureWritable(DdpConstants.UNTAGGED_HEADER_LENGTH);
        out.writeByte(control());
        out.writeByte(rsvdUlp);
        out.writeInt(rsvdUlpWord);
        out.writeInt(qn);
        out.writeInt(msn);
        out.writeInt(mo);
    }

    @Override
    public String toString() {
        return String.format("UntaggedHeader[L=%d, RsvdULP=0x%02x, RsvdULP[8:39]=0x%08x, QN=%d, MSN=%d, MO=%d]",
                last ? 1 : 0, rsvdUlp, rsvdUlpWord, Integer.toUnsignedLong(qn), Integer.toUnsignedLong(msn),
                Integer.toUnsignedLong(mo));
    }
}
