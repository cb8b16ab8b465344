package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;

/**
 * A DDP segment header (RFC 5041 §4): {@link TaggedHeader} (14 octets, §4.2) or
 * {@link UntaggedHeader} (18 octets, §4.3). Both start with the control field of §4.1 and the
 * RsvdULP octet that RDMAP uses as its own control field (RFC 5040 §4.1).
 *
 * <p>Headers are immutable values. {@link #encode(ByteBuf)} always writes the Rsvd bits as zero
 * and DV = 1 (DDP-R-016, DDP-R-017); a decoded header does not keep received Rsvd bits, which is
 * why {@link DdpSegment#headerOctets()} (not a re-encoded header) is what a Terminate echoes.
 */
public sealed interface DdpHeader permits TaggedHeader, UntaggedHeader {

    /** T: {@code true} for the tagged buffer model. */
    boolean tagged();

    /** L: {@code true} on the last segment of a DDP message and on no other (§4.1, DDP-R-013). */
    boolean last();

    /** The RsvdULP octet (octet 1), 0..255, opaque to DDP: RDMAP's RV, Rsv and opcode. */
    int rsvdUlp();

    /** Octets of this header on the wire: 14 or 18. */
    int length();

    /** The control octet this header encodes to: T, L, Rsvd = 0, DV = 1. */
    default int control() {
        return (tagged() ? DdpConstants.CONTROL_TAGGED : 0) | (last() ? DdpConstants.CONTROL_LAST : 0)
                | DdpConstants.DDP_VERSION;
    }

    /**
     * Writes the {@link #length()} header octets at {@code out}'s writer index and advances it.
     * {@code out} stays owned by the caller.
     */
    void encode(ByteBuf out);

    /**
     * Reads the header at {@code ulpdu}'s reader index without moving any index or changing the
     * reference count (RFC 5041 §4.1-§4.3). The Rsvd bits are ignored (DDP-R-016).
     *
     * @throws DdpException if DV != 1 ({@link DdpError#TAGGED_INVALID_VERSION} or
     *     {@link DdpError#UNTAGGED_INVALID_VERSION}, by the T bit, DDP-R-017), or if fewer octets are
     *     readable than the header needs (reported the same way: the layout cannot be trusted, so no
     *     header is attached; an empty ULPDU counts as untagged)
     */
    static DdpHeader decode(ByteBuf ulpdu) throws DdpException {
        int start = ulpdu.readerIndex();
        int readable = ulpdu.readableBytes();
        if (readable == 0) {
            throw new DdpException(DdpError.UNTAGGED_INVALID_VERSION, "empty DDP segment: no control field");
        }
        int control = ulpdu.getUnsignedByte(start);
        // The T bit alone decides the layout that follows, and so the buffer model the segment is
        // placed by: a TaggedHeader goes to a tagged buffer, an UntaggedHeader to a queue (DDP-R-012).
        boolean tagged = (control & DdpConstants.CONTROL_TAGGED) != 0;
        DdpError versionError = tagged ? DdpError.TAGGED_INVALID_VERSION : DdpError.UNTAGGED_INVALID_VERSION;
        int version = control & DdpConstants.CONTROL_VERSION_MASK;
        if (version != DdpConstants.DDP_VERSION) {
            throw new DdpException(versionError, "DDP version " + version + " in control field 0x"
                    + Integer.toHexString(control) + ", only version 1 is defined");
        }
        int headerLength = tagged ? DdpConstants.TAGGED_HEADER_LENGTH : DdpConstants.UNTAGGED_HEADER_LENGTH;
        if (readable < headerLength) {
            throw new DdpException(versionError, "DDP segment of " + readable + " octets is shorter than its "
                    + (tagged ? "tagged" : "untagged") + " header (" + headerLength + ")");
        }
        boolean last = (control & DdpConstants.CONTROL_LAST) != 0;
        int rsvdUlp = ulpdu.getUnsignedByte(start + DdpConstants.OFFSET_RSVD_ULP);
        if (tagged) {
            return new TaggedHeader(last, rsvdUlp, ulpdu.getInt(start + DdpConstants.OFFSET_STAG),
                    ulpdu.getLong(start + DdpConstants.OFFSET_TO));
        }
        return new UntaggedHeader(last, rsvdUlp, ulpdu.getInt(start + DdpConstants.OFFSET_RSVD_ULP_WORD),
                ulpdu.getInt(start + DdpConstants.OFFSET_QN), ulpdu.getInt(start + DdpConstants.OFFSET_MSN),
                ulpdu.getInt(start + DdpConstants.OFFSET_MO));
    }
}
