package org.iwarp4j.rdmap.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 5040 §4.1: the RDMAP control octet, the opcode table of Fig. 4 / Fig. 5, and the receive checks. */
class RdmapControlTest {

    private static final int UNTAGGED = 0x41;
    private static final int TAGGED = 0xC1;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // opcode, code, tagged, QN, invalidate, SE, ULP payload, RDMAP header octets (Fig. 4, Fig. 5)
        "RDMA_WRITE, 0, true, -1, false, false, true, 0",
        "RDMA_READ_REQUEST, 1, false, 1, false, false, false, 28",
        "RDMA_READ_RESPONSE, 2, true, -1, false, false, true, 0",
        "SEND, 3, false, 0, false, false, true, 0",
        "SEND_WITH_INVALIDATE, 4, false, 0, true, false, true, 0",
        "SEND_WITH_SE, 5, false, 0, false, true, true, 0",
        "SEND_WITH_SE_AND_INVALIDATE, 6, false, 0, true, true, true, 0",
        "TERMINATE, 7, false, 2, false, false, false, -1",
    })
    void opcodeTableIsFigureFour(RdmapOpcode op, int code, boolean tagged, int qn, boolean invalidate, boolean se,
                                 boolean payload, int headerLength) {
        // RDMAP-R-007 (tagged flag and QN per message), RDMAP-R-008, RDMAP-R-011, RDMAP-R-020,
        // RDMAP-R-025.
        assertThat(op.code()).isEqualTo(code);
        assertThat(RdmapOpcode.fromCode(code)).isSameAs(op);
        assertThat(op.tagged()).isEqualTo(tagged);
        assertThat(op.queueNumber()).isEqualTo(qn);
        assertThat(op.carriesInvalidateStag()).isEqualTo(invalidate);
        assertThat(op.solicitedEvent()).isEqualTo(se);
        assertThat(op.allowsUlpPayload()).isEqualTo(payload);
        assertThat(op.rdmapHeaderLength()).isEqualTo(headerLength);
        assertThat(op.isSendType()).isEqualTo(code >= 3 && code <= 6);
        assertThat(RdmapOpcode.isReserved(code)).isFalse();
    }

    @Test
    void opcodesEightToFifteenAreReserved() {
        // RDMAP-R-006, EXT-R-001: RFC 7306's 0x8-0xB are not implemented, so reserved as well.
        IntStream.rangeClosed(0x8, 0xF).forEach(code -> {
            assertThat(RdmapOpcode.fromCode(code)).isNull();
            assertThat(RdmapOpcode.isReserved(code)).isTrue();
        });
        assertThat(RdmapOpcode.values()).hasSize(8);
    }

    @ParameterizedTest(name = "{0} -> 0x{1}")
    @CsvSource({"RDMA_WRITE, 40", "RDMA_READ_REQUEST, 41", "RDMA_READ_RESPONSE, 42", "SEND, 43",
        "SEND_WITH_INVALIDATE, 44", "SEND_WITH_SE, 45", "SEND_WITH_SE_AND_INVALIDATE, 46", "TERMINATE, 47"})
    void weSendRvOneRsvZero(RdmapOpcode op, String hex) {
        // RDMAP-R-002: RV = 01b in every message; RDMAP-R-004: Rsv = 0 on send (the values of RFC 5040 §4.1 Figure 3).
        int octet = RdmapControl.encode(op);
        assertThat(octet).isEqualTo(Integer.parseInt(hex, 16));
        assertThat(RdmapControl.version(octet)).isEqualTo(RdmapConstants.RDMAP_VERSION);
        assertThat(RdmapControl.reservedBits(octet)).isZero();
        assertThat(RdmapControl.opcode(octet)).isSameAs(op);
    }

    @Test
    void controlOctetsOfTheVectorsDecode() {
        // testdata/vectors/fpdus.txt: octet 3 of each FPDU is the RDMAP control field.
        assertThat(RdmapControl.opcode(Wire.uint8(TestVectors.bytes("V-FPDU-1"), 3))).isEqualTo(RdmapOpcode.SEND);
        assertThat(RdmapControl.opcode(Wire.uint8(TestVectors.bytes("V-FPDU-2"), 3))).isEqualTo(RdmapOpcode.SEND_WITH_INVALIDATE);
        assertThat(RdmapControl.opcode(Wire.uint8(TestVectors.bytes("V-FPDU-3"), 3))).isEqualTo(RdmapOpcode.RDMA_READ_REQUEST);
        assertThat(RdmapControl.opcode(Wire.uint8(TestVectors.bytes("V-FPDU-4"), 3))).isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE);
        assertThat(RdmapControl.opcode(Wire.uint8(TestVectors.bytes("V-FPDU-5"), 3))).isEqualTo(RdmapOpcode.RDMA_WRITE);
        assertThat(RdmapControl.opcode(Wire.uint8(TestVectors.bytes("V-FPDU-6"), 3))).isEqualTo(RdmapOpcode.TERMINATE);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "RDMA_WRITE, 193, 0", "RDMA_READ_REQUEST, 65, 1", "RDMA_READ_RESPONSE, 193, 0", "SEND, 65, 0",
        "SEND_WITH_INVALIDATE, 65, 0", "SEND_WITH_SE, 1, 0", "SEND_WITH_SE_AND_INVALIDATE, 65, 0", "TERMINATE, 65, 2",
    })
    void everyOpcodeInItsOwnModelAndQueueIsValid(RdmapOpcode op, int ddpControl, long qn) {
        // RDMAP-R-007, receive side, positive: QN is ignored for tagged segments.
        RdmapControl.ControlCheck check = RdmapControl.check(ddpControl, RdmapControl.encode(op), qn);
        assertThat(check.isValid()).isTrue();
        assertThat(check.opcode()).isSameAs(op);
        assertThat(check.cause()).isNull();
    }

    @ParameterizedTest(name = "RV {0}")
    @CsvSource({"0", "2", "3"})
    void anRdmapVersionOtherThanOneIsInvalid(int rv) {
        // RDMAP-R-003: "The RDMA Version MUST be valid"; RV 00b (RDMAC) is rejected too, as siw does.
        RdmapControl.ControlCheck check = RdmapControl.check(UNTAGGED, rv << 6 | 0x3, 0);
        assertThat(check.isValid()).isFalse();
        assertThat(check.cause()).isEqualTo(TerminateCause.INVALID_RDMAP_VERSION);
        assertThat(check.opcode()).isNull();
    }

    @Test
    void reservedBitsAreIgnoredOnReceive() {
        // RDMAP-R-004: Send with octet 1 = 0x73 (Rsv = 11b) is accepted.
        RdmapControl.ControlCheck check = RdmapControl.check(UNTAGGED, 0x73, 0);
        assertThat(check.isValid()).isTrue();
        assertThat(check.opcode()).isEqualTo(RdmapOpcode.SEND);
        assertThat(RdmapControl.reservedBits(0x73)).isEqualTo(3);
    }

    @Test
    void reservedOpcodesAreUnexpectedInEitherModel() {
        // RDMAP-R-006: opcode 0xC on an untagged segment (and every 0x8-0xF, tagged or not).
        IntStream.rangeClosed(0x8, 0xF).forEach(code -> {
            assertThat(RdmapControl.check(UNTAGGED, 0x40 | code, 0).cause()).isEqualTo(TerminateCause.RESERVED_OPCODE);
            assertThat(RdmapControl.check(TAGGED, 0x40 | code, 0).cause()).isEqualTo(TerminateCause.RESERVED_OPCODE);
        });
    }

    @ParameterizedTest(name = "{3}")
    @CsvSource({
        // RDMAP-R-007, receive side: our documented choice is 0x0/0x2/0x06 for a wrong model or queue.
        "193, 67, 0, Send opcode in a tagged segment, OPCODE_WRONG_BUFFER_MODEL",
        "193, 65, 1, Read Request in a tagged segment, OPCODE_WRONG_BUFFER_MODEL",
        "65, 64, 0, Write in an untagged segment, OPCODE_WRONG_BUFFER_MODEL",
        "65, 66, 0, Read Response in an untagged segment, OPCODE_WRONG_BUFFER_MODEL",
        "65, 65, 0, Read Request on QN 0, OPCODE_WRONG_QUEUE",
        "65, 71, 1, Terminate on QN 1, OPCODE_WRONG_QUEUE",
        "65, 67, 2, Send on QN 2, OPCODE_WRONG_QUEUE",
        "65, 68, 1, Send with Invalidate on QN 1, OPCODE_WRONG_QUEUE",
        "65, 67, 7, Send on QN 7, UNTAGGED_INVALID_QN",
        "65, 67, 4294967295, Send on QN 0xFFFFFFFF, UNTAGGED_INVALID_QN",
    })
    void messagesOutsideTheirModelOrQueueAreInvalid(int ddpControl, int rdmapControl, long qn, String what,
                                                   TerminateCause expected) {
        assertThat(RdmapControl.check(ddpControl, rdmapControl, qn).cause()).isEqualTo(expected);
    }

    @Test
    void wrongModelAndQueueMapToUnexpectedOpcodeAndBadQnToDdp() {
        // RDMAP-R-007 choice, spelled out as Terminate reasons.
        assertThat(TerminateCause.OPCODE_WRONG_BUFFER_MODEL.reason()).isEqualTo(
                org.iwarp4j.rdmap.TerminateReason.RDMAP_UNEXPECTED_OPCODE);
        assertThat(TerminateCause.OPCODE_WRONG_QUEUE.reason()).isEqualTo(
                org.iwarp4j.rdmap.TerminateReason.RDMAP_UNEXPECTED_OPCODE);
        assertThat(TerminateCause.UNTAGGED_INVALID_QN.reason()).isEqualTo(
                org.iwarp4j.rdmap.TerminateReason.DDP_UNTAGGED_INVALID_QN);
    }

    @Test
    void checksRunInTheDocumentedOrder() {
        // DDP's QN first (§7.2 #1), then RV (RDMAP-R-003), then the opcode (RDMAP-R-006), then model/queue.
        assertThat(RdmapControl.check(UNTAGGED, 0x8C, 9).cause()).isEqualTo(TerminateCause.UNTAGGED_INVALID_QN);
        assertThat(RdmapControl.check(UNTAGGED, 0x8C, 0).cause()).isEqualTo(TerminateCause.INVALID_RDMAP_VERSION);
        assertThat(RdmapControl.check(TAGGED, 0x8C, 9).cause()).isEqualTo(TerminateCause.INVALID_RDMAP_VERSION);
        assertThat(RdmapControl.check(TAGGED, 0x4C, 9).cause()).isEqualTo(TerminateCause.RESERVED_OPCODE);
    }

    @Test
    void theDdpVersionIsLeftToDdp() {
        // DV = 2 with a valid RDMAP octet: this check passes; DDP reports 0x1/0x2/0x06 (DDP-R-017).
        assertThat(RdmapControl.check(0x42, 0x43, 0).isValid()).isTrue();
    }
}
