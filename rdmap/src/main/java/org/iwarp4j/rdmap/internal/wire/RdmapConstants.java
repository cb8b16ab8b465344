package org.iwarp4j.rdmap.internal.wire;

/**
 * The numbers of RFC 5040 (and of the RFC 5041 DDP header fields RDMAP reads and echoes), in the
 * order the RFCs give them. Offsets count from the first octet of the DDP segment, i.e. the first
 * octet of the MPA ULPDU, after the 2-octet ULPDU_Length. All fields are big-endian.
 *
 * <p>The DDP numbers are repeated here, not taken from the {@code ddp} module, so that the RDMAP
 * wire formats stand on their own; they are fixed by RFC 5041 §4.
 */
public final class RdmapConstants {

    // ---- RDMAP Control Field = DDP RsvdULP[0:7] (RFC 5040 §4.1, Fig. 3) ----

    /**
     * RV of RFC 5040 (01b); the only version this stack sends or accepts (RDMAP-R-002, RDMAP-R-003),
     * so both directions run the same one (MPA-R-079).
     */
    public static final int RDMAP_VERSION = 1;
    /** RV of the RDMA Consortium specification (00b): "valid" per §4.1, rejected here as by Linux siw. */
    public static final int RDMAC_VERSION = 0;
    /** Bits 7..6 of the control octet: RV. */
    public static final int CONTROL_VERSION_MASK = 0xC0;
    /** Shift of RV within the control octet. */
    public static final int CONTROL_VERSION_SHIFT = 6;
    /** Bits 5..4 of the control octet: Rsv, 0 on send, ignored on receive (RDMAP-R-004). */
    public static final int CONTROL_RESERVED_MASK = 0x30;
    /** Bits 3..0 of the control octet: the opcode (Fig. 4). */
    public static final int CONTROL_OPCODE_MASK = 0x0F;
    /** The first opcode that RFC 5040 reserves (1000b); RFC 7306 assigns 0x8-0xB, not implemented here. */
    public static final int FIRST_RESERVED_OPCODE = 0x8;

    // ---- Untagged queues RDMAP uses (RFC 5040 §3.1, §4.1 Fig. 4, §5.4) ----

    /** QN 0: Send, Send with Invalidate, Send with SE, Send with SE and Invalidate. */
    public static final int QN_SEND = 0;
    /** QN 1: RDMA Read Request. */
    public static final int QN_READ_REQUEST = 1;
    /** QN 2: Terminate. */
    public static final int QN_TERMINATE = 2;
    /** Number of untagged queues RDMAP uses; any QN at or above it is invalid (DDP 0x1/0x2/0x01). */
    public static final int QUEUE_COUNT = 3;
    /** First MSN on every queue (RFC 5041 §4.3, RDMAP-R-033). */
    public static final int INITIAL_MSN = 1;
    /** MSN of the one Terminate a stream may carry (RFC 5040 §5.4, RDMAP-R-025). */
    public static final int TERMINATE_MSN = 1;

    // ---- DDP header fields RDMAP reads and echoes (RFC 5041 §4.1-§4.3) ----

    /** DDP control octet: T, tagged buffer model. */
    public static final int DDP_CONTROL_TAGGED = 0x80;
    /** DDP control octet: L, last segment of the message. */
    public static final int DDP_CONTROL_LAST = 0x40;
    /** DDP control octet: DV, the DDP version. */
    public static final int DDP_CONTROL_VERSION_MASK = 0x03;
    /** DV of RFC 5041. */
    public static final int DDP_VERSION = 1;
    /** Octets of a tagged DDP header: control, RsvdULP, STag, TO (RFC 5041 §4.2). */
    public static final int DDP_TAGGED_HEADER_LENGTH = 14;
    /** Octets of an untagged DDP header: control, RsvdULP (5 octets), QN, MSN, MO (RFC 5041 §4.3). */
    public static final int DDP_UNTAGGED_HEADER_LENGTH = 18;
    /** Offset of the RDMAP control octet (RsvdULP[0:7]) in either DDP header. */
    public static final int RDMAP_CONTROL_OFFSET = 1;
    /** Offset of the tagged STag. */
    public static final int DDP_STAG_OFFSET = 2;
    /** Offset of the tagged TO (8 octets). */
    public static final int DDP_TO_OFFSET = 6;
    /** Offset of the untagged RsvdULP[8:39]: the Invalidate STag for opcodes 0x4 and 0x6 (RFC 5040 §4.1). */
    public static final int INVALIDATE_STAG_OFFSET = 2;
    /** Offset of the untagged QN. */
    public static final int DDP_QN_OFFSET = 6;
    /** Offset of the untagged MSN. */
    public static final int DDP_MSN_OFFSET = 10;
    /** Offset of the untagged MO. */
    public static final int DDP_MO_OFFSET = 14;

    // ---- RDMA Read Request header (RFC 5040 §4.4, Fig. 6) ----

    /** Octets of the RDMA Read Request header: sink STag 4, sink TO 8, size 4, source STag 4, source TO 8. */
    public static final int READ_REQUEST_HEADER_LENGTH = 28;
    /** Octets of a whole Read Request DDP segment: 18 + 28 (MPA ULPDU_Length 0x002E). */
    public static final int READ_REQUEST_SEGMENT_LENGTH = DDP_UNTAGGED_HEADER_LENGTH + READ_REQUEST_HEADER_LENGTH;

    // ---- Terminate header (RFC 5040 §4.8, Fig. 7 and Fig. 8) ----

    /** Octets of the Terminate Control field with its 13 reserved bits. */
    public static final int TERMINATE_CONTROL_LENGTH = 4;
    /** Octets of the DDP Segment Length field (present when D is set). */
    public static final int DDP_SEGMENT_LENGTH_FIELD = 2;
    /** Octets of the Terminated RDMA Header (an RDMA Read Request header, present when R is set). */
    public static final int TERMINATED_RDMA_HEADER_LENGTH = READ_REQUEST_HEADER_LENGTH;
    /** Terminate Control: Layer, 4 bits. */
    public static final int TERMINATE_LAYER_MASK = 0xF0000000;
    /** Shift of the Layer. */
    public static final int TERMINATE_LAYER_SHIFT = 28;
    /** Terminate Control: EType, 4 bits. */
    public static final int TERMINATE_ETYPE_MASK = 0x0F000000;
    /** Shift of the EType. */
    public static final int TERMINATE_ETYPE_SHIFT = 24;
    /** Terminate Control: Error Code, 8 bits. */
    public static final int TERMINATE_CODE_MASK = 0x00FF0000;
    /** Shift of the Error Code. */
    public static final int TERMINATE_CODE_SHIFT = 16;
    /** HdrCt M (RFC bit 16): DDP Segment Length valid. */
    public static final int TERMINATE_FLAG_M = 0x00008000;
    /** HdrCt D (RFC bit 17): DDP Header included. */
    public static final int TERMINATE_FLAG_D = 0x00004000;
    /** HdrCt R (RFC bit 18): RDMAP Header included. */
    public static final int TERMINATE_FLAG_R = 0x00002000;
    /** The 13 reserved bits: 0 on transmit, ignored on receive (RDMAP-R-040). */
    public static final int TERMINATE_RESERVED_MASK = 0x00001FFF;
    /** Longest Terminate header: control 4 + length 2 + untagged DDP header 18 + RDMA header 28. */
    public static final int MAX_TERMINATE_HEADER_LENGTH = TERMINATE_CONTROL_LENGTH + DDP_SEGMENT_LENGTH_FIELD
            + DDP_UNTAGGED_HEADER_LENGTH + TERMINATED_RDMA_HEADER_LENGTH;

    /** Terminate ULPDU without echoed headers: 18 + 4 (RDMAP-R-040). */
    public static final int TERMINATE_ULPDU_NO_HEADERS = DDP_UNTAGGED_HEADER_LENGTH + TERMINATE_CONTROL_LENGTH;
    /** Terminate ULPDU echoing a tagged DDP header: 18 + 4 + 2 + 14. */
    public static final int TERMINATE_ULPDU_TAGGED = TERMINATE_ULPDU_NO_HEADERS + DDP_SEGMENT_LENGTH_FIELD
            + DDP_TAGGED_HEADER_LENGTH;
    /** Terminate ULPDU echoing an untagged DDP header: 18 + 4 + 2 + 18. */
    public static final int TERMINATE_ULPDU_UNTAGGED = TERMINATE_ULPDU_NO_HEADERS + DDP_SEGMENT_LENGTH_FIELD
            + DDP_UNTAGGED_HEADER_LENGTH;
    /** Terminate ULPDU echoing a Read Request's DDP and RDMA headers: 18 + 4 + 2 + 18 + 28. */
    public static final int TERMINATE_ULPDU_READ_REQUEST = TERMINATE_ULPDU_UNTAGGED + TERMINATED_RDMA_HEADER_LENGTH;

    private RdmapConstants() {
    }
}
