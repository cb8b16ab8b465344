package org.iwarp4j.rdmap.internal.wire;

/**
 * The RDMA Messages of RFC 5040 §4.1 Fig. 4 and §4.2 Fig. 5: opcode, DDP buffer model, the
 * untagged queue each must use, and which header or payload each carries.
 *
 * <p>Opcodes 1000b-1111b are reserved by RFC 5040 and have no constant. RFC 7306 assigns
 * 0x8-0xB (Immediate Data, Immediate Data with SE, Atomic Request, Atomic Response); this stack
 * does not implement RFC 7306, so it treats them as reserved too (RDMAP-R-006, EXT-R-001).
 */
public enum RdmapOpcode {
    /** 0000b RDMA Write: tagged, Data Sink STag/TO in the DDP header, ULP payload. */
    RDMA_WRITE(0x0, true, -1, false, false, true, 0),
    /** 0001b RDMA Read Request: untagged on QN 1, the 28-octet Read Request header, no payload. */
    RDMA_READ_REQUEST(0x1, false, RdmapConstants.QN_READ_REQUEST, false, false, false,
            RdmapConstants.READ_REQUEST_HEADER_LENGTH),
    /** 0010b RDMA Read Response: tagged, STag/TO copied from the Request, ULP payload. */
    RDMA_READ_RESPONSE(0x2, true, -1, false, false, true, 0),
    /** 0011b Send: untagged on QN 0. */
    SEND(0x3, false, RdmapConstants.QN_SEND, false, false, true, 0),
    /** 0100b Send with Invalidate: untagged on QN 0, Invalidate STag in RsvdULP[8:39]. */
    SEND_WITH_INVALIDATE(0x4, false, RdmapConstants.QN_SEND, true, false, true, 0),
    /** 0101b Send with Solicited Event: untagged on QN 0. */
    SEND_WITH_SE(0x5, false, RdmapConstants.QN_SEND, false, true, true, 0),
    /** 0110b Send with Solicited Event and Invalidate: untagged on QN 0, Invalidate STag in RsvdULP[8:39]. */
    SEND_WITH_SE_AND_INVALIDATE(0x6, false, RdmapConstants.QN_SEND, true, true, true, 0),
    /**
     * 0111b Terminate: untagged on QN 2, Terminate header, no payload. Its header is 4 to 52
     * octets long, so {@link #rdmapHeaderLength()} is -1.
     */
    TERMINATE(0x7, false, RdmapConstants.QN_TERMINATE, false, false, false, -1);

    private static final RdmapOpcode[] BY_CODE = values();

    private final int code;
    private final boolean tagged;
    private final int queueNumber;
    private final boolean invalidates;
    private final boolean solicitedEvent;
    private final boolean ulpPayload;
    private final int rdmapHeaderLength;

    RdmapOpcode(int code, boolean tagged, int queueNumber, boolean invalidates, boolean solicitedEvent,
                boolean ulpPayload, int rdmapHeaderLength) {
        this.code = code;
        this.tagged = tagged;
        this.queueNumber = queueNumber;
        this.invalidates = invalidates;
        this.solicitedEvent = solicitedEvent;
        this.ulpPayload = ulpPayload;
        this.rdmapHeaderLength = rdmapHeaderLength;
    }

    /** The 4-bit opcode (Fig. 4). */
    public int code() {
        return code;
    }

    /** The DDP Tagged flag this message MUST use (Fig. 4, RDMAP-R-007). */
    public boolean tagged() {
        return tagged;
    }

    /** The untagged Queue Number this message MUST use (Fig. 4), or -1 for the two tagged messages. */
    public int queueNumber() {
        return queueNumber;
    }

    /** {@code true} for the two opcodes whose RsvdULP[8:39] is an Invalidate STag (§4.1). */
    public boolean carriesInvalidateStag() {
        return invalidates;
    }

    /** {@code true} for the two Send types that solicit an event (§5.3). */
    public boolean solicitedEvent() {
        return solicitedEvent;
    }

    /** {@code true} if the message may carry ULP payload (Fig. 5): all but Read Request and Terminate. */
    public boolean allowsUlpPayload() {
        return ulpPayload;
    }

    /**
     * Octets of RDMAP header after the DDP header (Fig. 5): 28 for a Read Request, 0 for messages
     * with none, -1 for the Terminate whose header length depends on its HdrCt bits.
     */
    public int rdmapHeaderLength() {
        return rdmapHeaderLength;
    }

    /** {@code true} for the Send family (opcodes 0x3-0x6), all on QN 0. */
    public boolean isSendType() {
        return queueNumber == RdmapConstants.QN_SEND;
    }

    /** The message with this 4-bit opcode, or {@code null} for the reserved 0x8-0xF (and out-of-range values). */
    public static RdmapOpcode fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** {@code true} for the 4-bit opcodes RFC 5040 reserves, 0x8-0xF (RDMAP-R-006). */
    public static boolean isReserved(int code) {
        return code >= RdmapConstants.FIRST_RESERVED_OPCODE && code <= RdmapConstants.CONTROL_OPCODE_MASK;
    }
}
