package org.iwarp4j.rdmap.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_TAGGED_HEADER_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_UNTAGGED_HEADER_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 5040 §4.8: the Terminate header, encoded byte for byte and decoded leniently. */
class TerminateMessageTest {

    private static byte[] ulpdu(String vector) {
        return Wire.ulpduOf(TestVectors.bytes(vector));
    }

    /** The Terminate header of a Terminate vector: its ULPDU after the 18-octet DDP header. */
    private static byte[] terminateHeader(String vector) {
        byte[] u = ulpdu(vector);
        return Wire.range(u, DDP_UNTAGGED_HEADER_LENGTH, u.length);
    }

    private static byte[] ddpHeader(String vector) {
        byte[] u = ulpdu(vector);
        return Wire.range(u, 0, (u[0] & 0x80) != 0 ? DDP_TAGGED_HEADER_LENGTH : DDP_UNTAGGED_HEADER_LENGTH);
    }

    private static TerminateMessage decode(byte[] header) {
        return Wire.read(header, TerminateMessage::decode);
    }

    /** Decodes and returns how many octets were left unread. */
    private static int leftAfterDecode(byte[] header) {
        return Wire.read(header, in -> {
            TerminateMessage.decode(in);
            return in.readableBytes();
        });
    }

    private static byte[] segment(TerminateMessage m) {
        return Wire.bytes(m.encodeSegment(ByteBufAllocator.DEFAULT));
    }

    private static final ReadRequestHeader FPDU_3_RR =
            new ReadRequestHeader(0x01020304, 0x10000L, 4096, 0x11223344, 0x00007F0000001000L);

    // ---- the vectors ----

    @Test
    void vectorSixEncodes() {
        // V-FPDU-6: DDP / Tagged / Invalid STag, M D, length 17, V-FPDU-5's 14-octet header (RDMAP-R-009).
        TerminateMessage m = TerminateMessage.of(TerminateReason.DDP_TAGGED_INVALID_STAG, true, true, false, 0, 17,
                ddpHeader("V-FPDU-5"), null);
        assertThat(segment(m)).isEqualTo(ulpdu("V-FPDU-6"));
        assertThat(Wire.written(m::encode)).isEqualTo(terminateHeader("V-FPDU-6"));
        assertThat(m.encodedLength()).isEqualTo(20);
    }

    @Test
    void vectorSixDecodes() {
        TerminateMessage m = decode(terminateHeader("V-FPDU-6"));
        assertThat(m.reason()).isSameAs(TerminateReason.DDP_TAGGED_INVALID_STAG);
        assertThat(m.controlWord()).isEqualTo(0x1100C000);
        assertThat(m.segmentLengthValid()).isTrue();
        assertThat(m.ddpHeaderIncluded()).isTrue();
        assertThat(m.rdmaHeaderIncluded()).isFalse();
        assertThat(m.ddpSegmentLength()).isEqualTo(ulpdu("V-FPDU-5").length);
        assertThat(m.terminatedDdpHeader()).isEqualTo(ddpHeader("V-FPDU-5"));
        assertThat(m.terminatedRdmapControl()).isEqualTo(RdmapControl.encode(RdmapOpcode.RDMA_WRITE));
        assertThat(m.terminatedRdmaHeader()).isNull();
        assertThat(m.isComplete()).isTrue();
        assertThat(m.reservedBits()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"V-FPDU-7, RDMAP_UNEXPECTED_OPCODE", "V-FPDU-8, LLP_INSUFFICIENT_IRD"})
    void headerlessVectorsEncodeAndDecode(String vector, String reasonName) throws Exception {
        // V-FPDU-7: 0x0/0x2/0x06 no headers (RDMAP-R-006); V-FPDU-8: 0x2/0x0/0x06 (MPA2-R-006).
        TerminateReason reason = (TerminateReason) TerminateReason.class.getField(reasonName).get(null);
        TerminateMessage m = TerminateMessage.withoutHeaders(reason);
        assertThat(segment(m)).isEqualTo(ulpdu(vector));
        TerminateMessage decoded = decode(terminateHeader(vector));
        assertThat(decoded).isEqualTo(m);
        assertThat(decoded.ddpSegmentLength()).isEqualTo(-1);
        assertThat(decoded.terminatedDdpHeader()).isNull();
        assertThat(decoded.isComplete()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"V-FPDU-6", "V-FPDU-7", "V-FPDU-8"})
    void terminateSegmentsUseQueueTwoMessageOne(String vector) {
        // RDMAP-R-025: untagged, L=1, RDMAP control 0x47, RsvdULP[8:39] 0 (RDMAP-R-005), QN 2, MSN 1, MO 0.
        byte[] u = segment(decode(terminateHeader(vector)));
        assertThat(Wire.uint8(u, 0)).isEqualTo(0x41);
        assertThat(Wire.uint8(u, 1)).isEqualTo(0x47);
        assertThat(Wire.uint32(u, RdmapConstants.INVALIDATE_STAG_OFFSET)).isZero();
        assertThat(RdmapControl.check(Wire.uint8(u, 0), Wire.uint8(u, 1), Wire.uint32(u, RdmapConstants.DDP_QN_OFFSET)).opcode())
                .isEqualTo(RdmapOpcode.TERMINATE);
        assertThat(Wire.uint32(u, RdmapConstants.DDP_MSN_OFFSET)).isEqualTo(RdmapConstants.TERMINATE_MSN);
        assertThat(Wire.uint32(u, RdmapConstants.DDP_MO_OFFSET)).isZero();
    }

    // ---- RDMAP-R-040: the four sizes ----

    @Test
    void theFourTerminateSizes() {
        // RDMAP-R-040: 22 (no headers), 38 (tagged echo), 42 (untagged echo), 70 (untagged + RDMA header).
        TerminateMessage none = TerminateMessage.withoutHeaders(TerminateReason.LLP_CRC_ERROR);
        TerminateMessage tagged = TerminateMessage.of(TerminateReason.DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION, true, true,
                false, 0, 17, ddpHeader("V-FPDU-5"), null);
        TerminateMessage untagged = TerminateMessage.of(TerminateReason.DDP_UNTAGGED_NO_BUFFER, true, true, false, 0,
                86, ddpHeader("V-FPDU-1"), null);
        TerminateMessage read = TerminateMessage.of(TerminateReason.RDMAP_INVALID_STAG, true, true, true, 0, 46,
                ddpHeader("V-FPDU-3"), FPDU_3_RR);
        assertThat(segment(none)).hasSize(RdmapConstants.TERMINATE_ULPDU_NO_HEADERS).hasSize(22);
        assertThat(segment(tagged)).hasSize(RdmapConstants.TERMINATE_ULPDU_TAGGED).hasSize(38);
        assertThat(segment(untagged)).hasSize(RdmapConstants.TERMINATE_ULPDU_UNTAGGED).hasSize(42);
        assertThat(segment(read)).hasSize(RdmapConstants.TERMINATE_ULPDU_READ_REQUEST).hasSize(70);
        assertThat(RdmapConstants.MAX_TERMINATE_HEADER_LENGTH).isEqualTo(70 - 18);
        for (TerminateMessage m : new TerminateMessage[] {none, tagged, untagged, read}) {
            byte[] header = Wire.written(m::encode);
            assertThat(header).hasSize(m.encodedLength());
            assertThat(decode(header)).isEqualTo(m);
            assertThat(leftAfterDecode(header)).isZero();
        }
    }

    @Test
    void theReadRequestShapeIsControlLengthDdpAndRdmaHeaders() {
        // Negative case built from V-FPDU-3 (fpdus.txt): 01 00 e0 00 + 0x002E + 18-octet DDP header + 28-octet RDMA header.
        TerminateMessage read = TerminateMessage.of(TerminateReason.RDMAP_INVALID_STAG, true, true, true, 0, 0x2E,
                ddpHeader("V-FPDU-3"), FPDU_3_RR);
        assertThat(Wire.written(read::encode)).isEqualTo(
                Wire.concat(Wire.intBe(0x0100E000), Wire.shortBe(0x2E), ulpdu("V-FPDU-3")));
    }

    // ---- RDMAP-R-040: reserved bits ----

    @Test
    void reservedBitsAreIgnoredOnReceive() {
        // RDMAP-R-040: the 13 reserved bits MUST be ignored on receive (kept only for diagnostics).
        byte[] header = terminateHeader("V-FPDU-6");
        header[2] |= 0x1F;
        header[3] = (byte) 0xFF;
        TerminateMessage m = decode(header);
        TerminateMessage clean = decode(terminateHeader("V-FPDU-6"));
        assertThat(m.reservedBits()).isEqualTo(0x1FFF);
        assertThat(m.reason()).isEqualTo(clean.reason());
        assertThat(m.terminatedDdpHeader()).isEqualTo(clean.terminatedDdpHeader());
        assertThat(m.ddpSegmentLength()).isEqualTo(clean.ddpSegmentLength());
        assertThat(Wire.written(m::encode)).isEqualTo(header);
    }

    // ---- lenient decoding of what siw sends (RDMAP-R-003, RDMAP-R-013, RDMAP-R-014, RDMAP-R-024, A.5) ----

    @Test
    void siwsPayloadLengthIsAcceptedAsTheSegmentLength() {
        // A.5: siw writes ULPDU_Length less the headers: 17 - 14 = 3 for V-FPDU-5.
        byte[] siw = Wire.concat(Wire.intBe(0x1100C000), Wire.shortBe(3), ddpHeader("V-FPDU-5"));
        TerminateMessage m = decode(siw);
        assertThat(m.reason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
        assertThat(m.ddpSegmentLength()).isEqualTo(3);
        assertThat(m.terminatedDdpHeader()).isEqualTo(ddpHeader("V-FPDU-5"));
        assertThat(m.isComplete()).isTrue();
    }

    @Test
    void siwsReadRequestTerminateDecodes() {
        // RDMAP-R-014 as siw sends it: M D R, length 46 - 46 = 0, DDP and Read Request headers.
        byte[] siw = Wire.concat(Wire.intBe(0x0100E000), Wire.shortBe(0), ulpdu("V-FPDU-3"));
        TerminateMessage m = decode(siw);
        assertThat(m.reason()).isEqualTo(TerminateReason.RDMAP_INVALID_STAG);
        assertThat(m.rdmaHeaderIncluded()).isTrue();
        assertThat(m.terminatedRdmaHeader()).isEqualTo(FPDU_3_RR);
        assertThat(m.ddpSegmentLength()).isZero();
        assertThat(m.isComplete()).isTrue();
        assertThat(leftAfterDecode(siw)).isZero();
    }

    @Test
    void siwsSendWithInvalidateTerminateSetsRWithoutAnRdmaHeader() {
        // RDMAP-R-024 / (c): siw sends 0x0/0x1/0x09 with M D R but only the 18-octet DDP header.
        byte[] siw = Wire.concat(Wire.intBe(0x0109E000), Wire.shortBe(0x26 - 18), ddpHeader("V-FPDU-2"));
        TerminateMessage m = decode(siw);
        assertThat(m.reason()).isEqualTo(TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE);
        assertThat(m.rdmaHeaderIncluded()).isTrue();
        assertThat(m.terminatedRdmaHeader()).isNull();
        assertThat(m.terminatedDdpHeader()).isEqualTo(ddpHeader("V-FPDU-2"));
        assertThat(m.isComplete()).as("R without header is fine for a Send with Invalidate").isTrue();
        assertThat(leftAfterDecode(siw)).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // RDMAP-R-003: accept 02 05 c0 00 + headers; RDMAP-R-013: accept all three IRD-overflow forms.
        "02 05 c0 00, 0x0/0x2/0x05",
        "02 06 c0 00, 0x0/0x2/0x06",
        "02 07 c0 00, 0x0/0x2/0x07",
        "12 02 c0 00, 0x1/0x2/0x02",
        "12 03 c0 00, 0x1/0x2/0x03",
    })
    void headersAreAcceptedWhateverTheCode(String control, String reason) {
        byte[] header = Wire.concat(org.iwarp4j.testkit.Hex.decode(control), Wire.shortBe(46), ddpHeader("V-FPDU-3"));
        TerminateMessage m = decode(header);
        assertThat(m.reason().toString()).startsWith(reason);
        assertThat(m.terminatedDdpHeader()).isEqualTo(ddpHeader("V-FPDU-3"));
        assertThat(m.isComplete()).isTrue();
        assertThat(leftAfterDecode(header)).isZero();
    }

    // ---- announced fields that are missing ----

    @Test
    void dWithNothingAfterTheControlWordIsIncomplete() {
        byte[] header = Wire.intBe(0x1100C000);
        TerminateMessage m = decode(header);
        assertThat(m.reason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
        assertThat(m.ddpHeaderIncluded()).isTrue();
        assertThat(m.ddpSegmentLength()).isEqualTo(-1);
        assertThat(m.terminatedDdpHeader()).isNull();
        assertThat(m.isComplete()).isFalse();
    }

    @Test
    void aCutDdpHeaderIsLeftUnread() {
        byte[] header = Wire.range(terminateHeader("V-FPDU-6"), 0, 4 + 2 + 10);
        TerminateMessage m = decode(header);
        assertThat(m.ddpSegmentLength()).isEqualTo(17);
        assertThat(m.terminatedDdpHeader()).isNull();
        assertThat(m.isComplete()).isFalse();
        assertThat(leftAfterDecode(header)).isEqualTo(10);
    }

    @Test
    void aReadRequestEchoWithoutItsRdmaHeaderIsIncomplete() {
        byte[] header = Wire.concat(Wire.intBe(0x0100E000), Wire.shortBe(46), ddpHeader("V-FPDU-3"),
                new byte[20]);
        TerminateMessage m = decode(header);
        assertThat(m.rdmaHeaderIncluded()).isTrue();
        assertThat(m.terminatedRdmaHeader()).isNull();
        assertThat(m.isComplete()).isFalse();
        assertThat(leftAfterDecode(header)).isEqualTo(20);
    }

    @Test
    void octetsNoFlagAnnouncesStayReadable() {
        // R = 0 although 28 octets follow: they are not an RDMA header.
        byte[] header = Wire.concat(terminateHeader("V-FPDU-6"), new byte[28]);
        TerminateMessage m = decode(header);
        assertThat(m.terminatedRdmaHeader()).isNull();
        assertThat(leftAfterDecode(header)).isEqualTo(28);
    }

    @Test
    void rWithoutDReadsTheRdmaHeaderRightAfterTheControlWord() {
        byte[] header = Wire.concat(Wire.intBe(0x01002000), Wire.range(ulpdu("V-FPDU-3"), 18, 46));
        TerminateMessage m = decode(header);
        assertThat(m.terminatedRdmaHeader()).isEqualTo(FPDU_3_RR);
        assertThat(m.terminatedDdpHeader()).isNull();
        assertThat(m.isComplete()).as("R announced and present; D not announced").isTrue();
        assertThat(Wire.written(m::encode)).isEqualTo(header);
    }

    @ParameterizedTest(name = "{0} octets")
    @ValueSource(ints = {0, 1, 2, 3})
    void lessThanTheControlWordIsAFormatError(int length) {
        ByteBuf in = Wire.buf(Wire.range(terminateHeader("V-FPDU-6"), 0, length));
        try {
            assertThatThrownBy(() -> TerminateMessage.decode(in)).isInstanceOf(RdmapFormatException.class);
            assertThat(in.readerIndex()).isZero();
        } finally {
            in.release();
        }
    }

    // ---- construction rules ----

    @Test
    void fieldsMustFitAndFollowTheirFlags() {
        byte[] tagged = ddpHeader("V-FPDU-5");
        TerminateReason r = TerminateReason.DDP_TAGGED_INVALID_STAG;
        assertThatThrownBy(() -> TerminateMessage.of(r, true, true, false, 0x2000, 17, tagged, null))
                .as("reserved is 13 bits").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TerminateMessage.of(r, true, true, false, 0, 0x10000, tagged, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TerminateMessage.of(r, true, false, false, 0, 17, null, null))
                .as("length without D").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TerminateMessage.of(r, true, true, false, 0, -1, tagged, null))
                .as("header without length").isInstanceOf(IllegalArgumentException.class);
        assertThatCode(() -> TerminateMessage.of(r, true, true, false, 0, 17, ddpHeader("V-FPDU-1"), null))
                .as("an untagged header is 18").doesNotThrowAnyException();
        assertThatThrownBy(() -> TerminateMessage.of(r, true, true, false, 0, 17, Wire.range(tagged, 0, 13), null))
                .as("tagged header is 14").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TerminateMessage.of(r, true, true, false, 0, 17, tagged, FPDU_3_RR))
                .as("RDMA header without R").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void messagesAreImmutable() {
        byte[] header = ddpHeader("V-FPDU-5");
        TerminateMessage m = TerminateMessage.of(TerminateReason.DDP_TAGGED_INVALID_STAG, true, true, false, 0, 17,
                header, null);
        header[5] ^= 0x7F;
        m.terminatedDdpHeader()[5] ^= 0x7F;
        assertThat(segment(m)).isEqualTo(ulpdu("V-FPDU-6"));
        assertThat(m.toString()).contains("0x1/0x1/0x00", "M D", "length 17", "c140aabbccdd");
    }
}
