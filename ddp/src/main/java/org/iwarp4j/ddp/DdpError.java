package org.iwarp4j.ddp;

/**
 * The DDP error numbers of RFC 5041 §7.2: a 4-bit Error Type and an 8-bit Error Code, each one
 * the result of a §7.1 check (DDP-R-050). In an RDMAP Terminate message (RFC 5040 §4.8) they are
 * sent with Layer {@link #layer()} = 0x1 (DDP).
 *
 * <p>There is no Untagged Buffer Error with code 0x00, and no code for a missing access right: a
 * tagged segment aimed at a buffer that does not allow placement is reported as
 * {@link #INVALID_STAG}, as Linux siw does ({@code siw_tagged_error()} in {@code siw_qp.c}; see
 * {@link StagCheck#ACCESS_DENIED}).
 */
public enum DdpError {
    /** 0x0/0x00: a local failure, not caused by the segment. */
    LOCAL_CATASTROPHIC(DdpConstants.ETYPE_LOCAL_CATASTROPHIC, 0x00),
    /** 0x1/0x00: the STag is not registered, was invalidated, or its buffer does not allow this access. */
    INVALID_STAG(DdpConstants.ETYPE_TAGGED_BUFFER, 0x00),
    /** 0x1/0x01: TO below the buffer's base or TO + length past its end. */
    BASE_OR_BOUNDS_VIOLATION(DdpConstants.ETYPE_TAGGED_BUFFER, 0x01),
    /** 0x1/0x02: the STag belongs to another protection domain or another stream. */
    STAG_NOT_ASSOCIATED(DdpConstants.ETYPE_TAGGED_BUFFER, 0x02),
    /** 0x1/0x03: the 64-bit sum TO + payload length wraps. */
    TO_WRAP(DdpConstants.ETYPE_TAGGED_BUFFER, 0x03),
    /** 0x1/0x04: DV != 1 on a segment with T = 1. */
    TAGGED_INVALID_VERSION(DdpConstants.ETYPE_TAGGED_BUFFER, 0x04),
    /** 0x2/0x01: the QN is not valid for this stream. */
    INVALID_QN(DdpConstants.ETYPE_UNTAGGED_BUFFER, 0x01),
    /** 0x2/0x02: the MSN is the next one of its queue but no buffer is posted for it. */
    NO_BUFFER(DdpConstants.ETYPE_UNTAGGED_BUFFER, 0x02),
    /** 0x2/0x03: the MSN is outside [first available buffer .. last available buffer + 1]. */
    INVALID_MSN_RANGE(DdpConstants.ETYPE_UNTAGGED_BUFFER, 0x03),
    /** 0x2/0x04: the MO is not an offset inside the buffer. */
    INVALID_MO(DdpConstants.ETYPE_UNTAGGED_BUFFER, 0x04),
    /**
     * 0x2/0x05: MO + payload length is past the end of the buffer. (Linux siw reports this case as
     * {@link #NO_BUFFER}, in {@code siw_send_check_ntoh()}; accept either when parsing a peer's
     * Terminate.)
     */
    MESSAGE_TOO_LONG(DdpConstants.ETYPE_UNTAGGED_BUFFER, 0x05),
    /** 0x2/0x06: DV != 1 on a segment with T = 0. */
    UNTAGGED_INVALID_VERSION(DdpConstants.ETYPE_UNTAGGED_BUFFER, 0x06);

    private final int errorType;
    private final int code;

    DdpError(int errorType, int code) {
        this.errorType = errorType;
        this.code = code;
    }

    /** The Terminate Layer of every DDP error: 0x1. */
    public int layer() {
        return DdpConstants.TERMINATE_LAYER_DDP;
    }

    /** The 4-bit Error Type (§7.2). */
    public int errorType() {
        return errorType;
    }

    /** The 8-bit Error Code (§7.2). */
    public int code() {
        return code;
    }

    /** Whether the error is about a tagged segment (Error Type 0x1). */
    public boolean tagged() {
        return errorType == DdpConstants.ETYPE_TAGGED_BUFFER;
    }

    /**
     * The first octets of an RDMAP Terminate control word for this error: Layer, EType and Error
     * Code in bits 31..16 ({@code 0x1TCC0000}); the caller adds the M, D and R bits (RFC 5040 §4.8).
     */
    public int terminateBits() {
        return layer() << 28 | errorType << 24 | code << 16;
    }

    /**
     * The error with this type and code, or {@code null} if RFC 5041 §7.2 does not assign it
     * (for example 0x2/0x00, or anything of type 0x3).
     */
    public static DdpError of(int errorType, int code) {
        for (DdpError e : values()) {
            if (e.errorType == errorType && e.code == code) {
                return e;
            }
        }
        return null;
    }
}
