package org.iwarp4j.rdmap.internal.wire;

import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.rdmap.TerminateReason;

/**
 * Builds the Terminate this stack sends for an error: the reason, and the HdrCt bits and echoed
 * headers that RFC 5040 Fig. 10 and the project's siw-compatible choices call for.
 *
 * <p>The header rule is a table keyed by the reason ({@link #headerEcho(TerminateReason)}):
 *
 * <table>
 *   <caption>Echoed headers by Layer / EType / Code</caption>
 *   <tr><th>Reason</th><th>Echo</th><th>Why</th></tr>
 *   <tr><td>RDMAP 0x0 Local Catastrophic, any code</td><td>none</td><td>Fig. 10; §4.8</td></tr>
 *   <tr><td>RDMAP 0x1 Remote Protection, any code</td><td>M D + DDP header; R + Read Request
 *       header when the segment is a Read Request</td><td>Fig. 10, §7.1 #3; the RDMA header is
 *       "only sent back" for a Read Request (§4.8), so a Send with Invalidate gets M D only</td></tr>
 *   <tr><td>RDMAP 0x2 Remote Operation, codes 0x05 and 0x06</td><td>none</td><td>siw's choice and
 *       ours (RDMAP-R-003, RDMAP-R-006, RDMAP-R-026): Fig. 10 says "if possible"</td></tr>
 *   <tr><td>RDMAP 0x2 Remote Operation, other codes</td><td>M D + DDP header</td><td>Fig. 10</td></tr>
 *   <tr><td>DDP 0x0 Local Catastrophic</td><td>none</td><td>§4.8: no DDP header for Local
 *       Catastrophic errors</td></tr>
 *   <tr><td>DDP 0x1/0x04 and 0x2/0x06, Invalid DDP version</td><td>none</td><td>layout unknown
 *       (DDP-R-017, siw)</td></tr>
 *   <tr><td>DDP, other</td><td>M D + DDP header</td><td>Fig. 10, §7.1 #2</td></tr>
 *   <tr><td>LLP, and undefined layers</td><td>none</td><td>Fig. 10</td></tr>
 * </table>
 *
 * <p>Without an offending segment (an error not tied to an incoming message, RFC 5040 §7.1 #1,
 * e.g. one found while building an outbound request) nothing is echoed and no HdrCt bit is set:
 * the RFC's "Terminated DDP Header and Terminated RDMA Header fields are set to zero" is read as
 * "not included". The echoed DDP Segment Length is the whole segment's length; see {@link
 * OffendingSegment}.
 */
public final class TerminateBuilder {

    /** What a Terminate echoes of the offending segment. */
    public enum HeaderEcho {
        /** No HdrCt bit, no field. */
        NONE,
        /** M and D: the DDP Segment Length and the DDP header. */
        DDP_HEADER,
        /** M and D, plus R and the 28-octet Read Request header when the segment is a Read Request. */
        DDP_AND_READ_REQUEST_HEADER
    }

    private TerminateBuilder() {
    }

    /** The header rule of the table above for {@code reason}. */
    public static HeaderEcho headerEcho(TerminateReason reason) {
        int etype = reason.errorType();
        int code = reason.errorCode();
        switch (reason.layerCode()) {
            case 0x0:
                if (etype == 0x1) {
                    return HeaderEcho.DDP_AND_READ_REQUEST_HEADER;
                }
                if (etype == 0x2) {
                    return code == TerminateReason.RDMAP_INVALID_VERSION.errorCode()
                            || code == TerminateReason.RDMAP_UNEXPECTED_OPCODE.errorCode()
                            ? HeaderEcho.NONE : HeaderEcho.DDP_HEADER;
                }
                return HeaderEcho.NONE;
            case 0x1:
                if (etype == 0x0 || reason.equals(TerminateReason.DDP_TAGGED_INVALID_VERSION)
                        || reason.equals(TerminateReason.DDP_UNTAGGED_INVALID_VERSION)) {
                    return HeaderEcho.NONE;
                }
                return HeaderEcho.DDP_HEADER;
            default:
                return HeaderEcho.NONE;
        }
    }

    /**
     * The Terminate for {@code cause}, echoing what the table above says of {@code segment}.
     *
     * @param segment the captured offending segment, or {@code null} if the error is not tied to
     *     an incoming segment (or it could not be captured)
     */
    public static TerminateMessage build(TerminateCause cause, OffendingSegment segment) {
        return build(cause.reason(), segment);
    }

    /** The Terminate for any reason, e.g. a DDP error given by its numbers; see {@link #build(TerminateCause, OffendingSegment)}. */
    public static TerminateMessage build(TerminateReason reason, OffendingSegment segment) {
        HeaderEcho echo = segment == null ? HeaderEcho.NONE : headerEcho(reason);
        if (echo == HeaderEcho.NONE) {
            return TerminateMessage.withoutHeaders(reason);
        }
        ReadRequestHeader rdma = echo == HeaderEcho.DDP_AND_READ_REQUEST_HEADER ? segment.readRequest() : null;
        return TerminateMessage.of(reason, true, true, rdma != null, 0, segment.ddpSegmentLength(),
                segment.ddpHeaderUnsafe(), rdma);
    }

    /**
     * The Terminate for a DDP error reported by its RFC 5041 §7.2 Error Type and Error Code: Layer
     * 0x1, with M, D and the segment's DDP header unless the table says otherwise.
     */
    public static TerminateMessage forDdpError(int errorType, int errorCode, OffendingSegment segment) {
        return build(TerminateReason.ddp(errorType, errorCode), segment);
    }

    /**
     * The Terminate for an MPA error: Layer 0x2, EType 0x0, the MPA code, no headers (Fig. 10,
     * RDMAP-R-037), e.g. {@code 20 02 00 00} for a CRC error.
     *
     * @throws IllegalArgumentException for MPA errors 1 and 4, which leave no connection to send it on
     */
    public static TerminateMessage forMpaError(MpaError error) {
        return build(TerminateCause.of(error), null);
    }

    /**
     * The Terminate for an error not tied to an incoming message (RFC 5040 §7.1 #1, RDMAP-R-036):
     * sent instead of the request that could not be built, no headers.
     */
    public static TerminateMessage forLocalError(TerminateReason reason) {
        return build(reason, null);
    }
}
