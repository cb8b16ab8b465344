package org.iwarp4j.conformance.decode;

/**
 * Every rule {@link CaptureDecoder} checks on the wire, with the requirement ID of the catalogue
 * ({@code docs/requirements/}) that states it. A {@link Violation} names the check it broke.
 *
 * <p>A check at level {@link Level#MUST} makes the capture non-conformant (exit status 1); a
 * {@link Level#SHOULD} check is reported as a warning and does not.
 */
public enum Check {

    // ---- RFC 5044, MPA ----
    MPA_REPLY_KEY("MPA-R-045", Level.MUST, "the Responder's first octets are the Reply key \"MPA ID Rep Frame\""),
    MPA_RESERVED_FLAGS("MPA-R-049", Level.MUST, "the reserved flag bits of a startup frame are zero"),
    MPA_REVISION("MPA-R-050", Level.MUST, "Rev is 1 or 2, and a Reply's Rev is not above the Request's"),
    MPA_PRIVATE_DATA_LENGTH("MPA-R-052", Level.MUST, "PD_Length is at most 512"),
    MPA_REPLY_AFTER_REQUEST("MPA-R-054", Level.MUST, "the Responder sends its Reply only after the Request arrived"),
    MPA_INITIATOR_WAITS_FOR_REPLY("MPA-R-080", Level.MUST, "the Initiator sends no FPDU before it has the Reply"),
    MPA_RESPONDER_WAITS("MPA-R-061", Level.MUST,
            "the Responder sends no FPDU before the Initiator's first FPDU (in RFC 6581 terms MPA2-R-011)"),
    MPA_ULPDU_MAX("MPA-R-006", Level.MUST, "a ULPDU is at most 64768 octets"),
    MPA_MULPDU("MPA-R-005", Level.SHOULD, "a ULPDU is no larger than the MULPDU of the receiver's MSS (RFC 5044 §4.5)"),
    MPA_PAD("MPA-R-011", Level.MUST, "pad octets are sent as zero"),
    MPA_CRC("MPA-R-030", Level.MUST, "with CRCs in use, every FPDU's CRC32c matches"),
    MPA_MARKER_RESERVED("MPA-R-014", Level.MUST, "a marker's reserved octets and the FPDUPTR's two low bits are zero"),
    MPA_MARKER_POINTER("MPA-R-017", Level.MUST,
            "every marker is where it belongs (each 512 octets from Full Operation) and its FPDUPTR points back to"
                    + " its FPDU's ULPDU_Length, 0 between FPDUs (MPA-R-018)"),
    MPA_MARKERS_AS_NEGOTIATED("MPA-R-046", Level.MUST,
            "markers go toward a peer whose startup frame set M, and never toward one whose frame left it clear"
                    + " (judged by which reading of the first FPDUs holds together)"),
    MPA_FRAMING("MPA-R-010", Level.MUST,
            "the stream after the startup frames is a sequence of FPDUs (length, ULPDU of at least a DDP header, pad, CRC)"),

    // ---- RFC 6581, enhanced connection setup ----
    MPA2_ENHANCED_DATA("MPA2-R-002", Level.MUST, "a frame with the enhanced flag has at least 4 octets of private data"),
    MPA2_ENHANCED_REPLY("MPA2-R-003", Level.MUST, "an enhanced Request gets an enhanced revision 2 Reply (or none)"),
    MPA2_PLAIN_REPLY("MPA2-R-014", Level.MUST,
            "a Request without the enhanced flag gets a plain Reply of the Request's revision"),
    MPA2_ORD_WITHIN_IRD("MPA2-R-005", Level.MUST, "the Responder's ORD does not exceed the Initiator's IRD"),
    MPA2_NO_ADJUSTMENT("MPA2-R-018", Level.MUST,
            "0x3FFF in the Initiator's ORD (IRD) is answered with 0x3FFF as the Responder's IRD (ORD)"),
    MPA2_PEER_TO_PEER_ECHO("MPA2-R-008", Level.MUST,
            "the Responder echoes Control Flag A and names at least one RTR type when A is set"),
    MPA2_CLIENT_SERVER("MPA2-R-019", Level.MUST,
            "with A clear in the Request, A is clear in the Reply, and B, C, D are zero without A"),
    MPA2_RTR_FIRST("MPA2-R-009", Level.MUST,
            "after an accepting Reply with A set, the Initiator's first FPDU is a zero-length RTR of a type the Reply"
                    + " names (or a Terminate with LLP code 7, MPA2-R-010)"),

    // ---- RFC 5041, DDP ----
    DDP_VERSION("DDP-R-017", Level.MUST, "the DDP version is 1 in every segment"),
    DDP_RESERVED("DDP-R-016", Level.MUST, "the reserved bits of the DDP control octet are zero"),
    DDP_LAST_BIT("DDP-R-013", Level.MUST, "L is set in the last segment of every message and only there"),
    DDP_MSN("DDP-R-025", Level.MUST, "per queue, MSNs start at 1 and rise by one per message"),
    DDP_FIRST_MO("DDP-R-026", Level.MUST, "a message's first segment has MO 0"),
    DDP_MO_SEQUENCE("DDP-R-029", Level.MUST, "each further segment's MO is where the previous one ended"),
    DDP_TAGGED_SEQUENCE("DDP-R-030", Level.MUST,
            "each further segment of a tagged message has the same STag and the TO where the previous one ended"),

    // ---- RFC 5040, RDMAP ----
    RDMAP_VERSION("RDMAP-R-002", Level.MUST, "the RDMAP version (RV) is 1"),
    RDMAP_RESERVED("RDMAP-R-004", Level.MUST, "the reserved bits of the RDMAP control octet are zero"),
    RDMAP_RESERVED_ULP("RDMAP-R-005", Level.MUST,
            "the untagged RsvdULP word is zero except for the Send with Invalidate opcodes"),
    RDMAP_OPCODE_RESERVED("RDMAP-R-006", Level.MUST, "no reserved opcode (1000b-1111b) is sent"),
    RDMAP_OPCODE_MODEL("RDMAP-R-007", Level.MUST,
            "each opcode uses its buffer model and queue (Write, Read Response tagged; Read Request QN 1; Sends QN 0;"
                    + " Terminate QN 2)"),
    RDMAP_READ_REQUEST_LENGTH("RDMAP-R-011", Level.MUST, "a Read Request is one segment with a 28-octet header"),
    RDMAP_READ_RESPONSE("RDMAP-R-016", Level.MUST,
            "a Read Response answers the oldest outstanding Read Request: its sink STag, sink TO and size"),
    RDMAP_ORD("RDMAP-R-012", Level.MUST,
            "outstanding Read Requests never exceed the sender's negotiated ORD (the peer's IRD; MPA2-R-007)"),
    RDMAP_TERMINATE_QUEUE("RDMAP-R-025", Level.MUST, "a Terminate has MSN 1, MO 0 and L set"),
    RDMAP_TERMINATE_REASON("RDMAP-R-026", Level.MUST,
            "a Terminate's layer, error type and code are a combination RFC 5040 Fig. 9 defines"),
    RDMAP_TERMINATE_LAYOUT("RDMAP-R-040", Level.MUST,
            "a Terminate's reserved bits are zero and the headers its M, D, R bits announce are there"),
    RDMAP_NOTHING_AFTER_TERMINATE("RDMAP-R-027", Level.MUST, "nothing is sent after a Terminate"),

    // ---- RFC 8166, RPC-over-RDMA version 1 ----
    RPC_HEADER("RPC-R-036", Level.MUST, "the transport header is well-formed XDR (chunk lists terminated, Positions"
            + " multiples of 4, RDMA_NOMSG with a chunk)"),
    RPC_VERSION("RPC-R-039", Level.MUST, "rdma_vers is 1"),
    RPC_XID("RPC-R-038", Level.MUST, "the rdma_xid equals the XID of the RPC message the header carries: an"
            + " RDMA_MSG's inline, an RDMA_NOMSG Reply's in its Reply chunk"),
    RPC_CREDITS("RPC-R-003", Level.MUST,
            "the Requester has no more Calls outstanding than the last Reply granted (one before the first Reply,"
                    + " RPC-R-012)"),
    RPC_ZERO_CREDITS("RPC-R-005", Level.MUST, "a Reply never grants zero credits"),
    RPC_REQUESTER_ERROR("RPC-R-043", Level.MUST, "a Requester never sends RDMA_ERROR"),
    RPC_DEPRECATED_PROCEDURE("RPC-R-070", Level.MUST, "RDMA_MSGP and RDMA_DONE are never sent (RPC-R-071)"),
    RPC_REPLY_READ_LIST("RPC-R-047", Level.MUST, "a Reply's Read list is empty"),
    RPC_WRITE_CHUNKS_RETURNED("RPC-R-028", Level.MUST,
            "a Reply repeats the Call's Write chunks: same count, same segments, lengths no larger than offered"),
    RPC_INLINE_THRESHOLD("RPC-R-014", Level.MUST,
            "a Send is no longer than the inline threshold of its direction (1024, or as RFC 8797 private data"
                    + " says, CMPD-R-011)"),
    RPC_RESULT_IN_WRITE_CHUNK("RPC-R-048", Level.MUST,
            "a READ's data goes into the Write chunk the Requester offered, not inline"),
    RPC_REPLY_CHUNK_USED("RPC-R-034", Level.MUST,
            "a Reply above the reply inline threshold goes through the Reply chunk when the Call offered one"),
    /**
     * The catalogue states this without a key word (RFC 8166 describes how the Responder fills
     * the chunks); an RDMA Write outside the memory a Call offered is no RPC-over-RDMA transfer, so
     * the decoder counts it as a violation.
     */
    RPC_WRITE_IN_CHUNK("RPC-R-081", Level.MUST,
            "an RDMA Write lands inside a segment of a Write chunk or the Reply chunk of an outstanding Call of the"
                    + " peer (handle, offset, length)"),
    /** Like {@link #RPC_WRITE_IN_CHUNK}: the catalogue row has no key word. */
    RPC_READ_IN_CHUNK("RPC-R-082", Level.MUST,
            "an RDMA Read Request reads inside a segment of a Read chunk of an outstanding Call of the peer"),

    // ---- RFC 8267, NFS upper-layer binding ----
    ULB_NFS3_ELIGIBLE("ULB-R-006", Level.MUST,
            "NFSv3: only WRITE data and SYMLINK paths travel in Read chunks, only READ data and READLINK paths in"
                    + " Write chunks"),
    ULB_NFS4_ELIGIBLE("ULB-R-012", Level.MUST,
            "NFSv4: only WRITE data and CREATE's NF4LNK linkdata travel in Read chunks, only READ and READLINK"
                    + " results in Write chunks"),
    ULB_WRITE_CHUNK_ORDER("ULB-R-018", Level.MUST,
            "NFSv4: the k-th Write chunk holds the data of the k-th READ or READLINK of the COMPOUND"),
    ULB_RESULT_IN_WRITE_CHUNK("ULB-R-019", Level.MUST,
            "NFSv4: a READ or READLINK whose Write chunk has segments returns its data through it, not inline"),
    ULB_EMPTY_CHUNK_ON_ERROR("ULB-R-021", Level.MUST,
            "NFSv4: a READ or READLINK that returns no data (an error) leaves its Write chunk with no octets");

    /** How binding a check is. */
    public enum Level {
        /** MUST, MUST NOT, REQUIRED: a violation makes the capture non-conformant. */
        MUST,
        /** SHOULD, RECOMMENDED: reported as a warning. */
        SHOULD
    }

    private final String requirementId;
    private final Level level;
    private final String rule;

    Check(String requirementId, Level level, String rule) {
        this.requirementId = requirementId;
        this.level = level;
        this.rule = rule;
    }

    /** The catalogue ID, e.g. {@code MPA-R-030}. */
    public String requirementId() {
        return requirementId;
    }

    public Level level() {
        return level;
    }

    /** The rule in one line. */
    public String rule() {
        return rule;
    }

    /** The document the rule comes from: RFC 5044, RFC 6581, RFC 5041, RFC 5040, RFC 8166 or RFC 8267. */
    public String document() {
        String prefix = requirementId.substring(0, requirementId.indexOf("-R-"));
        return switch (prefix) {
            case "MPA" -> "RFC 5044";
            case "MPA2" -> "RFC 6581";
            case "DDP" -> "RFC 5041";
            case "RDMAP" -> "RFC 5040";
            case "RPC" -> "RFC 8166";
            case "ULB" -> "RFC 8267";
            default -> prefix;
        };
    }
}
