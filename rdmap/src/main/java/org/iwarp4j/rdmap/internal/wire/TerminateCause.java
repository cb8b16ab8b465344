package org.iwarp4j.rdmap.internal.wire;

import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.rdmap.TerminateReason;

/**
 * Every error this stack ends with a Terminate, classified, with the Layer / EType / Code it
 * sends: the errors of RFC 5040 §7 and RFC 5041 §7 with the codes of RFC 5040 §4.8 and RFC 5041
 * §7.2 (plus the MPA errors of RFC 5044 §8 and RFC 6581 §8), one constant per error or per code of
 * an error; where the RFCs leave the code open, the constant records the project's choice and says
 * why.
 *
 * <p>Which headers the Terminate echoes follows from the reason alone; see {@link
 * TerminateBuilder#headerEcho(TerminateReason)}.
 */
public enum TerminateCause {

    // ---- RDMAP control field and message checks (RFC 5040 §4.1, §7.2) ----

    /** RV is not 01b (RDMAP-R-003). RV 00b, which RFC 5040 calls valid, is rejected too, as by siw. */
    INVALID_RDMAP_VERSION(TerminateReason.RDMAP_INVALID_VERSION),
    /** Opcode 0x8-0xF (RDMAP-R-006, EXT-R-001: RFC 7306 is not implemented). */
    RESERVED_OPCODE(TerminateReason.RDMAP_UNEXPECTED_OPCODE),
    /**
     * A tagged opcode in an untagged segment or the reverse (RDMAP-R-007). RFC 5040 names no code;
     * choice: Unexpected OpCode, the opcode is not valid for the buffer model it arrived in.
     */
    OPCODE_WRONG_BUFFER_MODEL(TerminateReason.RDMAP_UNEXPECTED_OPCODE),
    /**
     * An untagged opcode on one of RDMAP's queues other than its own, e.g. a Read Request on QN 0
     * or a Terminate on QN 1 (RDMAP-R-007). Choice: Unexpected OpCode, since the QN itself is valid.
     */
    OPCODE_WRONG_QUEUE(TerminateReason.RDMAP_UNEXPECTED_OPCODE),
    /**
     * A Read Response with no outstanding Read Request (RDMAP-R-018). RFC 5040 names no code;
     * choice: Unexpected OpCode, the message is one the stream did not expect.
     */
    UNSOLICITED_READ_RESPONSE(TerminateReason.RDMAP_UNEXPECTED_OPCODE),
    /**
     * A non-empty Read Response segment whose TO is not the next octet the outstanding Read
     * expects (its Data Sink TO plus the octets already placed): out of order, or elsewhere in the
     * sink region (RDMAP-R-018's comparison with the request, RDMAP-R-016). RFC 5040 names no code;
     * choice as siw ({@code siw_rresp_check_ntoh}, "rresp off"): DDP Tagged Base or Bounds, for an
     * STag that is valid but an offset that does not match the response expected.
     */
    READ_RESPONSE_WRONG_TO(TerminateReason.DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION),
    /**
     * A Read Response carrying more octets than the Read asked for, or whose last segment (L = 1)
     * ends it short of the Read Message Size, e.g. a lone zero-length segment with L = 1 answering
     * a non-empty Read (RDMAP-R-016, RDMAP-R-018, RDMAP-R-019). Choice as siw ("rresp len"): DDP
     * Tagged Base or Bounds.
     */
    READ_RESPONSE_WRONG_LENGTH(TerminateReason.DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION),

    // ---- Incoming RDMA Read Request (RFC 5040 §5.2.1, §7.2; RDMAP-R-014) ----

    /** Data Source STag invalid. */
    READ_SOURCE_INVALID_STAG(TerminateReason.RDMAP_INVALID_STAG),
    /** Data Source TO or TO + size outside the STag's range. */
    READ_SOURCE_BASE_OR_BOUNDS(TerminateReason.RDMAP_BASE_OR_BOUNDS_VIOLATION),
    /** The Data Source STag does not allow remote read (§3.2, §8.1.1 #5). */
    READ_SOURCE_ACCESS_RIGHTS(TerminateReason.RDMAP_ACCESS_RIGHTS_VIOLATION),
    /** Data Source STag not associated with this stream or its Protection Domain (RDMAP-R-038). */
    READ_SOURCE_STAG_NOT_ASSOCIATED(TerminateReason.RDMAP_STAG_NOT_ASSOCIATED),
    /** Data Source TO + size wraps 2^64. */
    READ_SOURCE_TO_WRAP(TerminateReason.RDMAP_TO_WRAP),
    /**
     * A Read Request segment too short to hold the 28-octet header, or one that carries payload
     * (Fig. 5). RFC 5040 names no code; choice: Remote Operation / Unspecified Error.
     */
    MALFORMED_READ_REQUEST(TerminateReason.RDMAP_OPERATION_UNSPECIFIED),

    // ---- Incoming Send with Invalidate (RFC 5040 §5.3, §7.2 #4/#5; RDMAP-R-024) ----

    /**
     * The Invalidate STag exists but is not bound to this stream: it belongs to another stream or
     * Protection Domain, or serves every stream of its domain (RDMAP-R-047). Choice (siw's {@code
     * -EACCES} case): Remote Protection.
     */
    INVALIDATE_STAG_NOT_ASSOCIATED(TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE),
    /** The Invalidate STag is not a valid STag. Choice (siw's other case): Remote Operation. */
    INVALIDATE_STAG_INVALID(TerminateReason.RDMAP_OPERATION_CANNOT_INVALIDATE),

    // ---- Incoming tagged segment: Write, Read Response (RFC 5041 §7.1; RDMAP-R-009, DDP-R-048) ----

    /** STag not valid. */
    TAGGED_INVALID_STAG(TerminateReason.DDP_TAGGED_INVALID_STAG),
    /**
     * The STag's buffer does not allow placement (no remote write right). RFC 5041 has no
     * access code; choice (siw): Invalid STag, a DDP error, not RDMAP 0x0/0x1/0x02 (RDMAP-R-009).
     */
    TAGGED_ACCESS_RIGHTS(TerminateReason.DDP_TAGGED_INVALID_STAG),
    /** TO or TO + length outside the registered range. */
    TAGGED_BASE_OR_BOUNDS(TerminateReason.DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION),
    /** STag of another stream or Protection Domain (DDP-R-051). */
    TAGGED_STAG_NOT_ASSOCIATED(TerminateReason.DDP_TAGGED_STAG_NOT_ASSOCIATED),
    /** TO + length wraps 2^64. */
    TAGGED_TO_WRAP(TerminateReason.DDP_TAGGED_TO_WRAP),
    /** DV is not 1 on a tagged segment (DDP-R-017): no header echo, the layout is unknown. */
    TAGGED_INVALID_DDP_VERSION(TerminateReason.DDP_TAGGED_INVALID_VERSION),

    // ---- Incoming untagged segment: Sends, Read Request queue (RFC 5041 §7.1; RDMAP-R-021, DDP-R-046) ----

    /** QN not one of RDMAP's three queues (DDP-R-046 #1, RDMAP-R-007 for QN >= 3). */
    UNTAGGED_INVALID_QN(TerminateReason.DDP_UNTAGGED_INVALID_QN),
    /** No buffer posted for this QN and MSN, e.g. a Send with no Receive posted (DDP-R-047). */
    UNTAGGED_NO_BUFFER(TerminateReason.DDP_UNTAGGED_NO_BUFFER),
    /** MSN outside the window of posted buffers. */
    UNTAGGED_MSN_RANGE(TerminateReason.DDP_UNTAGGED_MSN_RANGE),
    /** MO outside the buffer. */
    UNTAGGED_INVALID_MO(TerminateReason.DDP_UNTAGGED_INVALID_MO),
    /** The message is longer than the posted buffer (RDMAP-R-021). */
    UNTAGGED_MESSAGE_TOO_LONG(TerminateReason.DDP_UNTAGGED_MESSAGE_TOO_LONG),
    /** DV is not 1 on an untagged segment (DDP-R-017): no header echo. */
    UNTAGGED_INVALID_DDP_VERSION(TerminateReason.DDP_UNTAGGED_INVALID_VERSION),

    // ---- Local failures (RFC 5040 §7.1 #1, Fig. 9) ----

    /** Local resource failure not tied to one stream's traffic; no headers (code 0x00: "None"). */
    RDMAP_LOCAL_CATASTROPHIC(TerminateReason.RDMAP_LOCAL_CATASTROPHIC),
    /** A failure confined to this stream; echoes the DDP header when an incoming segment caused it. */
    RDMAP_CATASTROPHIC_STREAM(TerminateReason.RDMAP_CATASTROPHIC_STREAM),
    /** A failure of the whole RNIC. */
    RDMAP_CATASTROPHIC_GLOBAL(TerminateReason.RDMAP_CATASTROPHIC_GLOBAL),
    /** DDP Local Catastrophic; no headers (RFC 5040 §4.8: none for Local Catastrophic errors). */
    DDP_LOCAL_CATASTROPHIC(TerminateReason.DDP_LOCAL_CATASTROPHIC),

    // ---- LLP = MPA (RFC 5044 §8, RFC 6581 §8; RDMAP-R-037) ----

    /** MPA error 2, CRC mismatch. */
    MPA_CRC_ERROR(TerminateReason.LLP_CRC_ERROR),
    /** MPA error 3, marker and ULPDU_Length disagree. */
    MPA_MARKER_ERROR(TerminateReason.LLP_MARKER_ERROR),
    /** RFC 6581 error 5, local catastrophic during enhanced setup (MPA2-R-021). */
    MPA_LOCAL_CATASTROPHIC(TerminateReason.LLP_LOCAL_CATASTROPHIC),
    /** RFC 6581 error 6, insufficient IRD (MPA2-R-006). */
    MPA_INSUFFICIENT_IRD(TerminateReason.LLP_INSUFFICIENT_IRD),
    /** RFC 6581 error 7, no matching RTR option (MPA2-R-010). */
    MPA_NO_MATCHING_RTR(TerminateReason.LLP_NO_MATCHING_RTR);

    private final TerminateReason reason;

    TerminateCause(TerminateReason reason) {
        this.reason = reason;
    }

    /** The Layer / EType / Code the Terminate carries. */
    public TerminateReason reason() {
        return reason;
    }

    /**
     * The cause for an MPA error that calls for a Terminate (codes 2, 3, 5, 6, 7).
     *
     * @throws IllegalArgumentException for codes 1 (connection lost) and 4 (bad startup frame):
     *     there is no connection in Full Operation to carry a Terminate (RFC 5044 §8)
     */
    public static TerminateCause of(MpaError error) {
        switch (error) {
            case CRC_ERROR:
                return MPA_CRC_ERROR;
            case MARKER_ERROR:
                return MPA_MARKER_ERROR;
            case LOCAL_CATASTROPHIC:
                return MPA_LOCAL_CATASTROPHIC;
            case INSUFFICIENT_IRD:
                return MPA_INSUFFICIENT_IRD;
            case NO_MATCHING_RTR:
                return MPA_NO_MATCHING_RTR;
            default:
                throw new IllegalArgumentException("MPA error " + error.code() + " (" + error
                        + ") leaves no connection to send a Terminate on");
        }
    }
}
