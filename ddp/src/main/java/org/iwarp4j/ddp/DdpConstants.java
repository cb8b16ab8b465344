package org.iwarp4j.ddp;

/**
 * The numbers of RFC 5041 (DDP), in the order the RFC gives them: the control field (§4.1), the
 * tagged header (§4.2), the untagged header (§4.3), message sequence numbers (§4.3), message
 * length (§5.2) and the error types of §7.2 (the codes are in {@link DdpError}).
 *
 * <p>Offsets count from the first octet of the DDP segment, which is the first octet of the MPA
 * ULPDU (right after MPA's 2-octet ULPDU_Length). Every multi-octet field is big-endian.
 */
public final class DdpConstants {

    /** Control field bit 7: T, the segment targets a tagged buffer (§4.1). */
    public static final int CONTROL_TAGGED = 0x80;
    /** Control field bit 6: L, last segment of its DDP message (§4.1). */
    public static final int CONTROL_LAST = 0x40;
    /** Control field bits 5..2: Rsvd, 0 on transmit and not checked on receive (§4.1, DDP-R-016). */
    public static final int CONTROL_RESERVED_MASK = 0x3C;
    /** Control field bits 1..0: DV, the DDP version (§4.1). */
    public static final int CONTROL_VERSION_MASK = 0x03;
    /**
     * The only DDP version, DV = 01b (§4.1, DDP-R-017), sent and accepted in both directions: no
     * mixing of versions on a connection (RFC 5044 Appendix C.1, MPA-R-079).
     */
    public static final int DDP_VERSION = 1;

    /** Offset of the DDP control field, common to both headers (§4.1). */
    public static final int OFFSET_CONTROL = 0;
    /** Offset of RsvdULP (tagged) or RsvdULP[0:7] (untagged): the octet that RDMAP uses as its control field. */
    public static final int OFFSET_RSVD_ULP = 1;

    /** Octets of the tagged buffer header: control, RsvdULP, STag, TO (§4.2, Figure 4). */
    public static final int TAGGED_HEADER_LENGTH = 14;
    /** Offset of the 32-bit STag in a tagged header (§4.2). */
    public static final int OFFSET_STAG = 2;
    /** Offset of the 64-bit Tagged Offset in a tagged header (§4.2). */
    public static final int OFFSET_TO = 6;

    /** Octets of the untagged buffer header: control, RsvdULP (5 octets), QN, MSN, MO (§4.3, Figure 5). */
    public static final int UNTAGGED_HEADER_LENGTH = 18;
    /** Offset of RsvdULP[8:39], a 32-bit word opaque to DDP (RDMAP: the Invalidate STag) (§4.3). */
    public static final int OFFSET_RSVD_ULP_WORD = 2;
    /** Offset of the 32-bit Queue Number in an untagged header (§4.3). */
    public static final int OFFSET_QN = 6;
    /** Offset of the 32-bit Message Sequence Number in an untagged header (§4.3). */
    public static final int OFFSET_MSN = 10;
    /** Offset of the 32-bit Message Offset in an untagged header (§4.3). */
    public static final int OFFSET_MO = 14;

    /** The MSN of the first message on every queue of a stream (§4.3, DDP-R-025). */
    public static final int INITIAL_MSN = 1;
    /** Largest ULP message length: the RFC requires less than 2^32 octets (§5.2, DDP-R-028). */
    public static final long MAX_MESSAGE_LENGTH = 0xFFFF_FFFFL;

    /** The Terminate Layer value of every DDP error (RFC 5040 §4.8: Layer 0x1 = DDP). */
    public static final int TERMINATE_LAYER_DDP = 0x1;
    /** Error type 0x0: Local Catastrophic (§7.2). */
    public static final int ETYPE_LOCAL_CATASTROPHIC = 0x0;
    /** Error type 0x1: Tagged Buffer Error (§7.2). */
    public static final int ETYPE_TAGGED_BUFFER = 0x1;
    /** Error type 0x2: Untagged Buffer Error (§7.2). */
    public static final int ETYPE_UNTAGGED_BUFFER = 0x2;
    /** Error type 0x3: reserved for the LLP (§7.2); never produced by this module. */
    public static final int ETYPE_RESERVED_LLP = 0x3;

    private DdpConstants() {
    }
}
