package org.iwarp4j.rdmap.internal.wire;

import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.CONTROL_OPCODE_MASK;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.CONTROL_RESERVED_MASK;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.CONTROL_VERSION_MASK;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.CONTROL_VERSION_SHIFT;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_CONTROL_TAGGED;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.QUEUE_COUNT;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.RDMAP_VERSION;

/**
 * The RDMAP Control Field, octet 1 of every DDP header (DDP RsvdULP[0:7]; RFC 5040 §4.1 Fig. 3):
 *
 * <pre>
 *   7 6 5 4 3 2 1 0
 *  | RV|Rsv| Opcode|     RV = 01b, Rsv = 00b on send
 * </pre>
 *
 * <p>Octets are passed and returned as {@code int} 0..255 (use {@code ByteBuf.getUnsignedByte}).
 */
public final class RdmapControl {

    private RdmapControl() {
    }

    /** The octet we send for {@code opcode}: RV 01b, Rsv 00b (RDMAP-R-002, RDMAP-R-004), e.g. Send = 0x43. */
    public static int encode(RdmapOpcode opcode) {
        return RDMAP_VERSION << CONTROL_VERSION_SHIFT | opcode.code();
    }

    /** RV, bits 7..6. */
    public static int version(int control) {
        return (control & CONTROL_VERSION_MASK) >>> CONTROL_VERSION_SHIFT;
    }

    /** Rsv, bits 5..4, as received (ignored by every check here). */
    public static int reservedBits(int control) {
        return (control & CONTROL_RESERVED_MASK) >>> 4;
    }

    /** The 4-bit opcode, bits 3..0, whatever its value. */
    public static int opcodeCode(int control) {
        return control & CONTROL_OPCODE_MASK;
    }

    /** The message type, or {@code null} for a reserved opcode. */
    public static RdmapOpcode opcode(int control) {
        return RdmapOpcode.fromCode(opcodeCode(control));
    }

    /**
     * Checks the RDMAP fields of a received segment's DDP header, in this order:
     *
     * <ol>
     *   <li>untagged with QN 3 or above: {@link TerminateCause#UNTAGGED_INVALID_QN} (DDP
     *       0x1/0x2/0x01: the DDP fields are validated first, RFC 5040 §7.2 #1; RDMAP uses QN 0-2);
     *   <li>RV not 01b: {@link TerminateCause#INVALID_RDMAP_VERSION} (RDMAP-R-003; RV 00b too);
     *   <li>opcode 0x8-0xF: {@link TerminateCause#RESERVED_OPCODE} (RDMAP-R-006);
     *   <li>opcode's Tagged flag differs from the segment's T bit: {@link
     *       TerminateCause#OPCODE_WRONG_BUFFER_MODEL} (RDMAP-R-007);
     *   <li>untagged opcode on another of RDMAP's queues: {@link TerminateCause#OPCODE_WRONG_QUEUE}
     *       (RDMAP-R-007).
     * </ol>
     *
     * The Rsv bits are ignored (RDMAP-R-004), and so is the DDP version, which the DDP layer checks.
     *
     * @param ddpControl octet 0 of the DDP header (only T is read)
     * @param rdmapControl octet 1 of the DDP header
     * @param queueNumber the untagged QN as an unsigned 32-bit value; ignored for tagged segments
     */
    public static ControlCheck check(int ddpControl, int rdmapControl, long queueNumber) {
        boolean tagged = (ddpControl & DDP_CONTROL_TAGGED) != 0;
        if (!tagged && (queueNumber < 0 || queueNumber >= QUEUE_COUNT)) {
            return ControlCheck.invalid(TerminateCause.UNTAGGED_INVALID_QN);
        }
        if (version(rdmapControl) != RDMAP_VERSION) {
            return ControlCheck.invalid(TerminateCause.INVALID_RDMAP_VERSION);
        }
        RdmapOpcode opcode = opcode(rdmapControl);
        if (opcode == null) {
            return ControlCheck.invalid(TerminateCause.RESERVED_OPCODE);
        }
        if (opcode.tagged() != tagged) {
            return ControlCheck.invalid(TerminateCause.OPCODE_WRONG_BUFFER_MODEL);
        }
        if (!tagged && opcode.queueNumber() != queueNumber) {
            return ControlCheck.invalid(TerminateCause.OPCODE_WRONG_QUEUE);
        }
        return ControlCheck.valid(opcode);
    }

    /**
     * The outcome of {@link RdmapControl#check}: the message type of a valid segment, or the cause
     * of the Terminate an invalid one calls for. Immutable.
     */
    public static final class ControlCheck {

        private static final ControlCheck[] VALID = new ControlCheck[RdmapOpcode.values().length];

        static {
            for (RdmapOpcode op : RdmapOpcode.values()) {
                VALID[op.ordinal()] = new ControlCheck(op, null);
            }
        }

        private final RdmapOpcode opcode;
        private final TerminateCause cause;

        private ControlCheck(RdmapOpcode opcode, TerminateCause cause) {
            this.opcode = opcode;
            this.cause = cause;
        }

        static ControlCheck valid(RdmapOpcode opcode) {
            return VALID[opcode.ordinal()];
        }

        static ControlCheck invalid(TerminateCause cause) {
            return new ControlCheck(null, cause);
        }

        /** {@code true} if the segment passed every check. */
        public boolean isValid() {
            return cause == null;
        }

        /** The message type of a valid segment, {@code null} for an invalid one. */
        public RdmapOpcode opcode() {
            return opcode;
        }

        /** Why the segment is invalid, {@code null} for a valid one. */
        public TerminateCause cause() {
            return cause;
        }

        @Override
        public String toString() {
            return isValid() ? "valid " + opcode : "invalid: " + cause;
        }
    }
}
