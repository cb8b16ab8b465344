package org.iwarp4j.mpa;

/**
 * MPA error codes (RFC 5044 §8, extended by RFC 6581 §8): the four kinds a receiver detects and
 * reports (MPA-R-070) and RFC 6581's three. In an RDMAP Terminate they are sent as Layer 0x2
 * (LLP), Error Type 0x0 (MPA), Error Code {@link #code()}.
 */
public enum MpaError {
    /** TCP connection closed, terminated or lost. */
    CONNECTION_LOST(0x01),
    /** Received MPA CRC does not match the FPDU. */
    CRC_ERROR(0x02),
    /**
     * CRC valid but a marker and the ULPDU_Length disagree on where the FPDU starts (MPA-R-071);
     * this stack also reports a ULPDU_Length over the receive limit so, markers or not.
     */
    MARKER_ERROR(0x03),
    /** Invalid MPA Request or Reply frame; the TCP connection must be closed at once (MPA-R-072). */
    INVALID_STARTUP_FRAME(0x04),
    /** Local catastrophic error (RFC 6581 §8, §9.3: a local error without a code of its own, MPA2-R-021). */
    LOCAL_CATASTROPHIC(0x05),
    /** Insufficient IRD resources (RFC 6581 §9.1). */
    INSUFFICIENT_IRD(0x06),
    /** No matching RTR option (RFC 6581 §9.2). */
    NO_MATCHING_RTR(0x07);

    private final int code;

    MpaError(int code) {
        this.code = code;
    }

    /** The error code as it appears in a Terminate message. */
    public int code() {
        return code;
    }

    /** The error with this code, or {@code null} if the code is not assigned. */
    public static MpaError fromCode(int code) {
        for (MpaError e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return null;
    }
}
