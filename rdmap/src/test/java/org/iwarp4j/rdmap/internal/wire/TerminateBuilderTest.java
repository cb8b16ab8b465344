package org.iwarp4j.rdmap.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_QN_OFFSET;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_TAGGED_HEADER_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_UNTAGGED_HEADER_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.TerminateBuilder.HeaderEcho;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Terminate for every error: one case per RDMAP error of RFC 5040 §7 (and per code where an
 * error may take several), plus the DDP errors of RFC 5041 §7 and the RFC 6581 §8 codes.
 * Offending segments are the vectors of testdata/vectors/fpdus.txt, changed where a case needs it, fed through the
 * same path the engine uses: capture, classify ({@link RdmapControl#check}), build.
 */
class TerminateBuilderTest {

    private static byte[] ulpdu(String vector) {
        return Wire.ulpduOf(TestVectors.bytes(vector));
    }

    private static byte[] ulpduWithOctet(String vector, int fpduOctet, int value) {
        byte[] fpdu = TestVectors.bytes(vector);
        fpdu[fpduOctet] = (byte) value;
        return Wire.ulpduOf(fpdu);
    }

    private static OffendingSegment capture(byte[] segment) {
        return Wire.read(segment, OffendingSegment::capture);
    }

    /** The Terminate header octets the engine would send. */
    private static byte[] header(TerminateMessage m) {
        return Wire.written(m::encode);
    }

    private static byte[] echo(int controlWord, byte[] segment, int headerLength) {
        return Wire.concat(Wire.intBe(controlWord), Wire.shortBe(segment.length), Wire.range(segment, 0, headerLength));
    }

    /** Classifies a received segment as the engine would and builds the Terminate for the cause found. */
    private static TerminateMessage classifyAndBuild(byte[] segment) {
        RdmapControl.ControlCheck check = RdmapControl.check(Wire.uint8(segment, 0), Wire.uint8(segment, 1),
                (segment[0] & 0x80) != 0 ? -1 : Wire.uint32(segment, DDP_QN_OFFSET));
        assertThat(check.isValid()).as("segment should be invalid").isFalse();
        return TerminateBuilder.build(check.cause(), capture(segment));
    }

    static Stream<Arguments> errorCases() {
        byte[] send = ulpdu("V-FPDU-1");
        byte[] sendInv = ulpdu("V-FPDU-2");
        byte[] read = ulpdu("V-FPDU-3");
        byte[] response = ulpdu("V-FPDU-4");
        byte[] write = ulpdu("V-FPDU-5");
        List<Arguments> rows = new ArrayList<>();
        // --- RDMAP errors, RFC 5040 §7 and §4.8 ---
        rows.add(Arguments.of("RV not supported (RDMAP-R-003): V-FPDU-1 octet 3 = 83",
                classifyAndBuild(ulpduWithOctet("V-FPDU-1", 3, 0x83)), Wire.intBe(0x02050000)));
        rows.add(Arguments.of("Reserved opcode (RDMAP-R-006): V-FPDU-1 octet 3 = 4c -> V-FPDU-7",
                classifyAndBuild(ulpduWithOctet("V-FPDU-1", 3, 0x4C)),
                Wire.range(ulpdu("V-FPDU-7"), DDP_UNTAGGED_HEADER_LENGTH, 22)));
        int[] readCodes = {0x00, 0x01, 0x02, 0x03, 0x04};
        TerminateCause[] readCauses = {TerminateCause.READ_SOURCE_INVALID_STAG, TerminateCause.READ_SOURCE_BASE_OR_BOUNDS,
            TerminateCause.READ_SOURCE_ACCESS_RIGHTS, TerminateCause.READ_SOURCE_STAG_NOT_ASSOCIATED,
            TerminateCause.READ_SOURCE_TO_WRAP};
        for (int i = 0; i < readCodes.length; i++) {
            rows.add(Arguments.of("Read Request " + readCauses[i] + " (RDMAP-R-014): V-FPDU-3, M D R, ULPDU 70",
                    TerminateBuilder.build(readCauses[i], capture(read)),
                    Wire.concat(Wire.intBe(0x0100E000 | readCodes[i] << 16), Wire.shortBe(0x2E), read)));
        }
        TerminateCause[] tagged = {TerminateCause.TAGGED_INVALID_STAG, TerminateCause.TAGGED_BASE_OR_BOUNDS,
            TerminateCause.TAGGED_STAG_NOT_ASSOCIATED, TerminateCause.TAGGED_TO_WRAP};
        for (int code = 0; code < tagged.length; code++) {
            rows.add(Arguments.of("Write placement " + tagged[code] + " (RDMAP-R-009): V-FPDU-5, M D",
                    TerminateBuilder.build(tagged[code], capture(write)),
                    echo(0x1100C000 | code << 16, write, DDP_TAGGED_HEADER_LENGTH)));
            rows.add(Arguments.of("Read Response placement " + tagged[code] + " (RDMAP-R-018): V-FPDU-4, M D",
                    TerminateBuilder.build(tagged[code], capture(response)),
                    echo(0x1100C000 | code << 16, response, DDP_TAGGED_HEADER_LENGTH)));
        }
        rows.add(Arguments.of("Write without remote-write right (RDMAP-R-009, siw): 11 00 c0 00",
                TerminateBuilder.build(TerminateCause.TAGGED_ACCESS_RIGHTS, capture(write)),
                echo(0x1100C000, write, DDP_TAGGED_HEADER_LENGTH)));
        TerminateCause[] untagged = {TerminateCause.UNTAGGED_NO_BUFFER, TerminateCause.UNTAGGED_MESSAGE_TOO_LONG,
            TerminateCause.UNTAGGED_MSN_RANGE, TerminateCause.UNTAGGED_INVALID_MO, TerminateCause.UNTAGGED_INVALID_QN};
        int[] untaggedCodes = {0x02, 0x05, 0x03, 0x04, 0x01};
        for (int i = 0; i < untagged.length; i++) {
            rows.add(Arguments.of("Send " + untagged[i] + " (RDMAP-R-021, DDP-R-046): V-FPDU-1, M D",
                    TerminateBuilder.build(untagged[i], capture(send)),
                    echo(0x1200C000 | untaggedCodes[i] << 16, send, DDP_UNTAGGED_HEADER_LENGTH)));
        }
        rows.add(Arguments.of("Send with Invalidate, STag of another stream (RDMAP-R-024): 01 09 c0 00, no R",
                TerminateBuilder.build(TerminateCause.INVALIDATE_STAG_NOT_ASSOCIATED, capture(sendInv)),
                echo(0x0109C000, sendInv, DDP_UNTAGGED_HEADER_LENGTH)));
        rows.add(Arguments.of("Send with Invalidate, invalid STag (RDMAP-R-024): 02 09 c0 00",
                TerminateBuilder.build(TerminateCause.INVALIDATE_STAG_INVALID, capture(sendInv)),
                echo(0x0209C000, sendInv, DDP_UNTAGGED_HEADER_LENGTH)));
        rows.add(Arguments.of("Error while building an outbound request (RDMAP-R-036 #1): no headers",
                TerminateBuilder.forLocalError(TerminateReason.RDMAP_CATASTROPHIC_STREAM), Wire.intBe(0x02070000)));
        rows.add(Arguments.of("MPA CRC error (RDMAP-R-037): 20 02 00 00",
                TerminateBuilder.forMpaError(MpaError.CRC_ERROR), Wire.intBe(0x20020000)));
        rows.add(Arguments.of("Marker/length mismatch (RDMAP-R-037): 20 03 00 00",
                TerminateBuilder.forMpaError(MpaError.MARKER_ERROR), Wire.intBe(0x20030000)));
        rows.add(Arguments.of("Local resource failure, RDMAP Local Catastrophic: no headers even with a segment",
                TerminateBuilder.build(TerminateCause.RDMAP_LOCAL_CATASTROPHIC, capture(send)), Wire.intBe(0x00000000)));
        rows.add(Arguments.of("Local resource failure 0x0/0x2/0x07 tied to an incoming message: M D",
                TerminateBuilder.build(TerminateCause.RDMAP_CATASTROPHIC_STREAM, capture(send)),
                echo(0x0207C000, send, DDP_UNTAGGED_HEADER_LENGTH)));
        // --- RDMAP-R-007 and RDMAP-R-018: our documented choices ---
        rows.add(Arguments.of("Send opcode in a tagged segment (RDMAP-R-007): V-FPDU-5 octet 3 = 43",
                classifyAndBuild(ulpduWithOctet("V-FPDU-5", 3, 0x43)), Wire.intBe(0x02060000)));
        rows.add(Arguments.of("Read Request on QN 0 (RDMAP-R-007): V-FPDU-3 octet 11 = 00",
                classifyAndBuild(ulpduWithOctet("V-FPDU-3", 11, 0x00)), Wire.intBe(0x02060000)));
        rows.add(Arguments.of("Unsolicited Read Response (RDMAP-R-018): 02 06 00 00",
                TerminateBuilder.build(TerminateCause.UNSOLICITED_READ_RESPONSE, capture(response)),
                Wire.intBe(0x02060000)));
        rows.add(Arguments.of("Read Request too short (MALFORMED_READ_REQUEST): 02 ff c0 00",
                TerminateBuilder.build(TerminateCause.MALFORMED_READ_REQUEST, capture(Wire.range(read, 0, 30))),
                Wire.concat(Wire.intBe(0x02FFC000), Wire.shortBe(30), Wire.range(read, 0, 18))));
        // --- DDP errors, RFC 5041 §7 ---
        rows.add(Arguments.of("DV != 1 untagged (DDP-R-017): V-FPDU-1 octet 2 = 42 -> 12 06 00 00",
                TerminateBuilder.build(TerminateCause.UNTAGGED_INVALID_DDP_VERSION,
                        capture(ulpduWithOctet("V-FPDU-1", 2, 0x42))), Wire.intBe(0x12060000)));
        rows.add(Arguments.of("DV != 1 tagged (DDP-R-017): V-FPDU-5 octet 2 = c2 -> 11 04 00 00",
                TerminateBuilder.build(TerminateCause.TAGGED_INVALID_DDP_VERSION,
                        capture(ulpduWithOctet("V-FPDU-5", 2, 0xC2))), Wire.intBe(0x11040000)));
        byte[] qn7 = ulpduWithOctet("V-FPDU-1", 11, 7);
        rows.add(Arguments.of("Invalid QN (DDP-R-046 #1): V-FPDU-1 on QN 7 -> 12 01 c0 00 + header",
                classifyAndBuild(qn7), echo(0x1201C000, qn7, DDP_UNTAGGED_HEADER_LENGTH)));
        rows.add(Arguments.of("DDP local resource failure: 10 00 00 00",
                TerminateBuilder.build(TerminateCause.DDP_LOCAL_CATASTROPHIC, capture(send)), Wire.intBe(0x10000000)));
        // --- MPA errors of RFC 6581 §8 ---
        rows.add(Arguments.of("MPA2-R-021 local catastrophic: 20 05 00 00",
                TerminateBuilder.forMpaError(MpaError.LOCAL_CATASTROPHIC), Wire.intBe(0x20050000)));
        rows.add(Arguments.of("MPA2-R-006 insufficient IRD: V-FPDU-8",
                TerminateBuilder.forMpaError(MpaError.INSUFFICIENT_IRD),
                Wire.range(ulpdu("V-FPDU-8"), DDP_UNTAGGED_HEADER_LENGTH, 22)));
        rows.add(Arguments.of("MPA2-R-010 no matching RTR option: 20 07 00 00",
                TerminateBuilder.forMpaError(MpaError.NO_MATCHING_RTR), Wire.intBe(0x20070000)));
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("errorCases")
    void eachErrorGetsItsTerminate(String row, TerminateMessage built, byte[] expected) {
        // RDMAP-R-026 (Fig. 9/10 table-driven), RDMAP-R-040 (reserved bits zero on send).
        assertThat(header(built)).isEqualTo(expected);
        assertThat(built.reservedBits()).isZero();
        assertThat(built.isComplete()).isTrue();
        assertThat(Wire.read(expected, TerminateMessage::decode)).isEqualTo(built);
    }

    @Test
    void vectorSixIsTheTerminateForAnInvalidWriteStag() {
        // V-FPDU-6 end to end: V-FPDU-5 captured, DDP Tagged Invalid STag, whole segment.
        TerminateMessage m = TerminateBuilder.build(TerminateCause.TAGGED_INVALID_STAG, capture(ulpdu("V-FPDU-5")));
        assertThat(Wire.bytes(m.encodeSegment(ByteBufAllocator.DEFAULT))).isEqualTo(ulpdu("V-FPDU-6"));
    }

    @Test
    void vectorSevenIsTheTerminateForAReservedOpcode() {
        TerminateMessage m = classifyAndBuild(ulpduWithOctet("V-FPDU-1", 3, 0x4C));
        assertThat(Wire.bytes(m.encodeSegment(ByteBufAllocator.DEFAULT))).isEqualTo(ulpdu("V-FPDU-7"));
    }

    @Test
    void vectorEightIsTheTerminateForInsufficientIrd() {
        TerminateMessage m = TerminateBuilder.forMpaError(MpaError.INSUFFICIENT_IRD);
        assertThat(Wire.bytes(m.encodeSegment(ByteBufAllocator.DEFAULT))).isEqualTo(ulpdu("V-FPDU-8"));
    }

    @ParameterizedTest
    @EnumSource(value = MpaError.class, names = {"CONNECTION_LOST", "INVALID_STARTUP_FRAME"})
    void mpaErrorsThatCloseTheConnectionHaveNoTerminate(MpaError error) {
        // RFC 5044 §8: codes 1 and 4 leave no connection in Full Operation.
        assertThatThrownBy(() -> TerminateBuilder.forMpaError(error)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @EnumSource(value = MpaError.class, names = {"CRC_ERROR", "MARKER_ERROR", "LOCAL_CATASTROPHIC",
        "INSUFFICIENT_IRD", "NO_MATCHING_RTR"})
    void mpaErrorsMapToLayerTwoWithoutHeaders(MpaError error) {
        // RDMAP-R-037: Layer 0x2, EType 0x0, the MPA code, no headers; matches MpaException.terminateRequired().
        TerminateMessage m = TerminateBuilder.forMpaError(error);
        assertThat(m.reason()).isEqualTo(TerminateReason.llp(error));
        assertThat(m.controlWord()).isEqualTo(0x20000000 | error.code() << 16);
        assertThat(new org.iwarp4j.mpa.MpaException(error, "x").terminateRequired()).isTrue();
    }

    @Test
    void ddpErrorsByNumberAreLayerOneWithTheHeader() {
        byte[] send = ulpdu("V-FPDU-1");
        assertThat(TerminateBuilder.forDdpError(0x2, 0x02, capture(send)))
                .isEqualTo(TerminateBuilder.build(TerminateCause.UNTAGGED_NO_BUFFER, capture(send)));
        assertThat(header(TerminateBuilder.forDdpError(0x2, 0x06, capture(send)))).isEqualTo(Wire.intBe(0x12060000));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // Fig. 10 plus the project choices, for every defined reason.
        "0/0/00, NONE", "0/1/00, DDP_AND_READ_REQUEST_HEADER", "0/1/01, DDP_AND_READ_REQUEST_HEADER",
        "0/1/02, DDP_AND_READ_REQUEST_HEADER", "0/1/03, DDP_AND_READ_REQUEST_HEADER",
        "0/1/04, DDP_AND_READ_REQUEST_HEADER", "0/1/09, DDP_AND_READ_REQUEST_HEADER",
        "0/1/FF, DDP_AND_READ_REQUEST_HEADER", "0/2/05, NONE", "0/2/06, NONE", "0/2/07, DDP_HEADER",
        "0/2/08, DDP_HEADER", "0/2/09, DDP_HEADER", "0/2/FF, DDP_HEADER",
        "1/0/00, NONE", "1/1/00, DDP_HEADER", "1/1/01, DDP_HEADER", "1/1/02, DDP_HEADER", "1/1/03, DDP_HEADER",
        "1/1/04, NONE", "1/2/01, DDP_HEADER", "1/2/02, DDP_HEADER", "1/2/03, DDP_HEADER", "1/2/04, DDP_HEADER",
        "1/2/05, DDP_HEADER", "1/2/06, NONE",
        "2/0/01, NONE", "2/0/02, NONE", "2/0/03, NONE", "2/0/04, NONE", "2/0/05, NONE", "2/0/06, NONE", "2/0/07, NONE",
    })
    void headerEchoTable(String numbers, HeaderEcho expected) {
        String[] n = numbers.split("/");
        TerminateReason r = TerminateReason.of(Integer.parseInt(n[0], 16), Integer.parseInt(n[1], 16),
                Integer.parseInt(n[2], 16));
        assertThat(r.isDefined()).isTrue();
        assertThat(TerminateBuilder.headerEcho(r)).isEqualTo(expected);
    }

    @Test
    void theEchoTableCoversEveryDefinedReason() {
        assertThat(TerminateReason.definedReasons()).allSatisfy(r -> assertThat(TerminateBuilder.headerEcho(r)).isNotNull());
        assertThat(TerminateBuilder.headerEcho(TerminateReason.of(5, 0, 0))).isEqualTo(HeaderEcho.NONE);
        assertThat(TerminateBuilder.headerEcho(TerminateReason.rdmapLocalCatastrophic(0xFF))).isEqualTo(HeaderEcho.NONE);
    }

    @Test
    void remoteProtectionOnASendWithInvalidateSetsNoR() {
        // §4.8: the RDMA header is "only sent back" for a Read Request; Fig. 10's "Yes" cannot apply to a Send.
        TerminateMessage m = TerminateBuilder.build(TerminateCause.INVALIDATE_STAG_NOT_ASSOCIATED,
                capture(ulpdu("V-FPDU-2")));
        assertThat(m.segmentLengthValid()).isTrue();
        assertThat(m.ddpHeaderIncluded()).isTrue();
        assertThat(m.rdmaHeaderIncluded()).isFalse();
        assertThat(Wire.bytes(m.encodeSegment(ByteBufAllocator.DEFAULT))).hasSize(42);
    }

    @Test
    void aReadRequestTooShortForItsHeaderIsEchoedWithoutR() {
        byte[] shortRead = Wire.range(ulpdu("V-FPDU-3"), 0, 40);
        TerminateMessage m = TerminateBuilder.build(TerminateCause.READ_SOURCE_INVALID_STAG, capture(shortRead));
        assertThat(m.rdmaHeaderIncluded()).isFalse();
        assertThat(m.terminatedDdpHeader()).isEqualTo(Wire.range(shortRead, 0, 18));
        assertThat(m.ddpSegmentLength()).isEqualTo(40);
    }

    @Test
    void aPartlyServedReadIsEchoedWithItsProgress() {
        // RDMAP-R-041: V-FPDU-3 (4096 octets) failing after 2048 -> TOs +2048, size 2048, STags and DDP header kept.
        byte[] read = ulpdu("V-FPDU-3");
        OffendingSegment served = capture(read).withReadProgress(2048);
        TerminateMessage m = TerminateBuilder.build(TerminateCause.READ_SOURCE_BASE_OR_BOUNDS, served);
        assertThat(m.terminatedRdmaHeader()).isEqualTo(
                new ReadRequestHeader(0x01020304, 0x10000L + 2048, 2048, 0x11223344, 0x00007F0000001000L + 2048));
        assertThat(m.terminatedDdpHeader()).isEqualTo(Wire.range(read, 0, 18));
        assertThat(m.ddpSegmentLength()).isEqualTo(46);
        assertThatThrownBy(() -> capture(ulpdu("V-FPDU-1")).withReadProgress(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theCaptureOutlivesTheSegmentSoTheFirstErrorIsReported() {
        // RDMAP-R-042: capture the first bad segment; the buffer is then reused by a second one.
        ByteBuf buf = Wire.buf(ulpdu("V-FPDU-5"));
        OffendingSegment first;
        try {
            first = OffendingSegment.capture(buf);
            assertThat(buf.readerIndex()).isZero();
            assertThat(buf.refCnt()).isEqualTo(1);
            buf.setByte(2, 0x00);
        } finally {
            buf.release();
        }
        TerminateMessage m = TerminateBuilder.build(TerminateCause.TAGGED_INVALID_STAG, first);
        assertThat(Wire.bytes(m.encodeSegment(ByteBufAllocator.DEFAULT))).isEqualTo(ulpdu("V-FPDU-6"));
    }

    @Test
    void segmentsShorterThanTheirDdpHeaderCannotBeEchoed() {
        assertThat(capture(Wire.range(ulpdu("V-FPDU-1"), 0, 17))).isNull();
        assertThat(capture(Wire.range(ulpdu("V-FPDU-5"), 0, 13))).isNull();
        assertThat(capture(new byte[0])).isNull();
        assertThat(capture(Wire.range(ulpdu("V-FPDU-5"), 0, 14))).isNotNull();
        assertThat(header(TerminateBuilder.build(TerminateCause.UNTAGGED_NO_BUFFER, null))).isEqualTo(Wire.intBe(0x12020000));
    }

    @Test
    void capturesFromParts() {
        byte[] write = ulpdu("V-FPDU-5");
        OffendingSegment fromParts = OffendingSegment.of(Wire.range(write, 0, 14), 17, null);
        assertThat(fromParts).isEqualTo(capture(write)).hasSameHashCodeAs(capture(write));
        assertThat(fromParts.tagged()).isTrue();
        assertThat(fromParts.isReadRequest()).isFalse();
        assertThat(fromParts.rdmapControl()).isEqualTo(0x40);
        assertThat(capture(ulpdu("V-FPDU-3")).readRequest()).isNotNull();
        assertThatThrownBy(() -> OffendingSegment.of(Wire.range(write, 0, 18), 17, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OffendingSegment.of(Wire.range(write, 0, 14), 0x10000, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OffendingSegment.of(Wire.range(ulpdu("V-FPDU-1"), 0, 18), 86,
                new ReadRequestHeader(0, 0, 0, 0, 0))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyCauseHasADefinedReason() {
        for (TerminateCause c : TerminateCause.values()) {
            assertThat(c.reason().isDefined()).as("%s", c).isTrue();
        }
        assertThat(TerminateCause.of(MpaError.CRC_ERROR)).isEqualTo(TerminateCause.MPA_CRC_ERROR);
    }
}
