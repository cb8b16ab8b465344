package org.iwarp4j.ddp;

import java.io.IOException;

/**
 * A DDP error detected at the Data Sink (RFC 5041 §7.1), with its §7.2 number in {@link #error()}.
 *
 * <p>RFC 5041 §7.1 asks DDP to report "the DDP Header, the type of error, and the length of the
 * DDP segment, if available", which is what RDMAP echoes in its Terminate message (RFC 5040 §4.8:
 * M bit = length valid, D bit = header included). When the offending segment is known,
 * {@link #hasSegment()} is {@code true}, {@link #segmentHeader()} holds its header octets exactly
 * as received (14 octets tagged, 18 untagged, reserved bits included) and {@link #segmentLength()}
 * the length of the whole segment, header plus payload, which equals the MPA ULPDU_Length
 * ({@code testdata/vectors/fpdus.txt} V-FPDU-6 carries 17 for the 17-octet segment of V-FPDU-5). Errors whose
 * header layout is unknown (an invalid DDP version, a segment shorter than its header) carry no
 * segment, so nothing is echoed.
 *
 * <p>For tagged-buffer errors found by the {@link StagTable}, {@link #stagCheck()} names the
 * failing check in more detail than §7.2 can (an access-rights failure and an invalid STag share
 * code 0x1/0x00); RDMAP needs that to choose its own codes for an RDMA Read Request
 * (RFC 5040 §7.2: Remote Protection Error 0x00-0x04).
 */
public class DdpException extends IOException {

    private static final long serialVersionUID = 1L;
    private static final byte[] NO_HEADER = new byte[0];

    private final DdpError error;
    private final StagCheck stagCheck;
    private final byte[] segmentHeader;
    private final int segmentLength;

    /** An error without segment information. */
    public DdpException(DdpError error, String message) {
        this(error, message, null, null, -1);
    }

    /**
     * @param error the §7.2 error, not null
     * @param message what happened, for logs
     * @param stagCheck the failing STag check for tagged-buffer errors, otherwise {@code null}
     * @param segmentHeader the offending segment's header octets as received, or {@code null} if unknown
     * @param segmentLength the offending segment's length (header + payload), or -1 if unknown
     */
    public DdpException(DdpError error, String message, StagCheck stagCheck, byte[] segmentHeader,
                        int segmentLength) {
        super(message + " (DDP error " + error.errorType() + "/0x" + String.format("%02x", error.code())
                + ", " + error + ")");
        this.error = error;
        this.stagCheck = stagCheck;
        this.segmentHeader = segmentHeader == null ? NO_HEADER : segmentHeader.clone();
        this.segmentLength = segmentHeader == null ? -1 : segmentLength;
    }

    /** The §7.2 error number. */
    public DdpError error() {
        return error;
    }

    /** The failing {@link StagTable} check for a tagged-buffer error, or {@code null}. */
    public StagCheck stagCheck() {
        return stagCheck;
    }

    /** Whether the offending segment's header and length are included. */
    public boolean hasSegment() {
        return segmentHeader.length > 0;
    }

    /** The offending segment's header octets as received (a copy); empty if {@link #hasSegment()} is false. */
    public byte[] segmentHeader() {
        return segmentHeader.clone();
    }

    /** The offending segment's length, header included (= MPA ULPDU_Length); -1 if {@link #hasSegment()} is false. */
    public int segmentLength() {
        return segmentLength;
    }

    /**
     * This error with the offending segment attached, for code that finds the error before it knows
     * the segment (the {@link StagTable}). Returns {@code this} if a segment is already attached.
     */
    public DdpException withSegment(DdpSegment segment) {
        if (hasSegment()) {
            return this;
        }
        DdpException e = new DdpException(error, baseMessage(), stagCheck, segment.headerOctets(),
                segment.segmentLength());
        e.setStackTrace(getStackTrace());
        return e;
    }

    private String baseMessage() {
        String m = getMessage();
        int suffix = m.lastIndexOf(" (DDP error ");
        return suffix < 0 ? m : m.substring(0, suffix);
    }
}
