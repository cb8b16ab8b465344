package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 5041 §4.1-§4.3 field by field, and the §7.2 error numbers. */
class HeaderFormatTest {

    private static DdpHeader decode(byte[] ulpdu) throws DdpException {
        ByteBuf in = Bufs.buf(ulpdu);
        try {
            return DdpHeader.decode(in);
        } finally {
            in.release();
        }
    }

    private static byte[] encode(DdpHeader header) {
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        header.encode(out);
        return Bufs.drain(out);
    }

    @Test
    void controlOctetsOfTheFourCommonCases() {
        // RFC 5041 §4.1: untagged last 0x41, untagged not-last 0x01, tagged last 0xC1, tagged not-last 0x81.
        assertThat(new UntaggedHeader(true, 0, 0, 0, 1, 0).control()).isEqualTo(0x41);
        assertThat(new UntaggedHeader(false, 0, 0, 0, 1, 0).control()).isEqualTo(0x01);
        assertThat(new TaggedHeader(true, 0, 0, 0).control()).isEqualTo(0xC1);
        assertThat(new TaggedHeader(false, 0, 0, 0).control()).isEqualTo(0x81);
    }

    @Test
    void taggedHeaderLayout() throws Exception {
        // DDP-R-018, §4.2 Figure 4: control, RsvdULP, STag (4), TO (8), big-endian; 14 octets.
        TaggedHeader h = new TaggedHeader(false, 0x42, 0x89ABCDEF, 0xFEDCBA9876543210L);
        byte[] wire = encode(h);
        assertThat(wire).isEqualTo(Hex.decode("8142 89abcdef fedcba98 76543210"));
        assertThat(decode(wire)).isEqualTo(h);
        assertThat(h.length()).isEqualTo(DdpConstants.TAGGED_HEADER_LENGTH);
    }

    @Test
    void untaggedHeaderLayout() throws Exception {
        // DDP-R-023, §4.3 Figure 5: control, RsvdULP[0:7], RsvdULP[8:39], QN, MSN, MO; 18 octets. High-bit
        // values everywhere prove the unsigned 32-bit fields survive.
        UntaggedHeader h = new UntaggedHeader(true, 0xC4, 0x80000001, 0xFFFFFFFE, 0x80000000, 0xFFFFFFFF);
        byte[] wire = encode(h);
        assertThat(wire).isEqualTo(Hex.decode("41c4 80000001 fffffffe 80000000 ffffffff"));
        assertThat(decode(wire)).isEqualTo(h);
        assertThat(h.toString()).contains("QN=4294967294", "MSN=2147483648", "MO=4294967295");
    }

    @Test
    void reservedBitsAreIgnoredOnReceiveAndZeroOnSend() throws Exception {
        // DDP-R-016: control 0x7D (L=1, Rsvd=1111, DV=1) untagged is processed normally; we send Rsvd=0.
        byte[] wire = Hex.decode("7d43 00000000 00000000 00000001 00000000");
        DdpHeader h = decode(wire);
        assertThat(h).isEqualTo(new UntaggedHeader(true, 0x43, 0, 0, 1, 0));
        assertThat(encode(h)[0]).isEqualTo((byte) 0x41);
        // Tagged too: 0xBD = T, Rsvd=1111, DV=1, L=0.
        assertThat(decode(Hex.decode("bd40 00000001 00000000 00000000"))).isEqualTo(new TaggedHeader(false, 0x40, 1, 0));
    }

    @ParameterizedTest(name = "control 0x{0}")
    @CsvSource({"c0, TAGGED_INVALID_VERSION", "c2, TAGGED_INVALID_VERSION", "83, TAGGED_INVALID_VERSION",
            "40, UNTAGGED_INVALID_VERSION", "42, UNTAGGED_INVALID_VERSION", "03, UNTAGGED_INVALID_VERSION"})
    void otherDdpVersionsAreRejectedByModel(String control, DdpError expected) {
        // DDP-R-017: DV must be 1; the error type follows T (0x1/0x04 tagged, 0x2/0x06 untagged); no echo.
        byte[] wire = Hex.decode(control + "43 00000000 00000000 00000001 00000000");
        DdpException e = catchThrowableOfType(DdpException.class, () -> decode(wire));
        assertThat(e.error()).isEqualTo(expected);
        assertThat(e.hasSegment()).isFalse();
    }

    @ParameterizedTest(name = "{0} octets")
    @ValueSource(ints = {1, 13})
    void aTaggedSegmentShorterThanItsHeaderIsRejected(int length) {
        byte[] wire = new byte[length];
        wire[0] = (byte) 0xC1;
        DdpException e = catchThrowableOfType(DdpException.class, () -> decode(wire));
        assertThat(e.error()).isEqualTo(DdpError.TAGGED_INVALID_VERSION);
        assertThat(e.hasSegment()).isFalse();
    }

    @ParameterizedTest(name = "{0} octets")
    @ValueSource(ints = {0, 1, 14, 17})
    void anUntaggedSegmentShorterThanItsHeaderIsRejected(int length) {
        byte[] wire = new byte[length];
        if (length > 0) {
            wire[0] = 0x41;
        }
        DdpException e = catchThrowableOfType(DdpException.class, () -> decode(wire));
        assertThat(e.error()).isEqualTo(DdpError.UNTAGGED_INVALID_VERSION);
    }

    @Test
    void headerOnlySegmentsHaveAnEmptyPayload() throws Exception {
        // DDP-R-027: every segment has a header; a header alone is a whole (zero-length) segment.
        ByteBuf in = Bufs.buf(Hex.decode("c140 00000000 00000000 00000000"));
        DdpSegment s = DdpSegment.decode(in);
        in.release();
        assertThat(s.payloadLength()).isZero();
        assertThat(s.segmentLength()).isEqualTo(14);
        assertThat(s.release()).isTrue();
    }

    @Test
    void segmentReferenceCountIsItsOwn() throws Exception {
        ByteBuf in = Bufs.buf(Hex.decode("c140 00000001 00000000 00000000 616263"));
        DdpSegment s = DdpSegment.decode(in);
        assertThat(in.release()).as("the caller's reference goes, the segment's stays").isFalse();
        assertThat(s.retain().refCnt()).isEqualTo(2);
        assertThat(s.release()).isFalse();
        assertThat(Bufs.peek(s.payload())).isEqualTo("abc".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(s.release()).isTrue();
        assertThat(in.refCnt()).isZero();
    }

    @Test
    void rsvdUlpIsOneOctet() {
        assertThatThrownBy(() -> new TaggedHeader(true, 0x100, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new UntaggedHeader(true, -1, 0, 0, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void errorNumbersAreThoseOfSection72() {
        // DDP-R-050, RFC 5041 §7.2: every assigned (type, code), and nothing else.
        int[][] table = {{0, 0}, {1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {2, 5}, {2, 6}};
        DdpError[] names = {DdpError.LOCAL_CATASTROPHIC, DdpError.INVALID_STAG, DdpError.BASE_OR_BOUNDS_VIOLATION,
                DdpError.STAG_NOT_ASSOCIATED, DdpError.TO_WRAP, DdpError.TAGGED_INVALID_VERSION, DdpError.INVALID_QN,
                DdpError.NO_BUFFER, DdpError.INVALID_MSN_RANGE, DdpError.INVALID_MO, DdpError.MESSAGE_TOO_LONG,
                DdpError.UNTAGGED_INVALID_VERSION};
        assertThat(DdpError.values()).hasSize(table.length);
        for (int i = 0; i < table.length; i++) {
            assertThat(DdpError.of(table[i][0], table[i][1])).isEqualTo(names[i]);
            assertThat(names[i].errorType()).isEqualTo(table[i][0]);
            assertThat(names[i].code()).isEqualTo(table[i][1]);
            assertThat(names[i].layer()).isEqualTo(1);
        }
        assertThat(DdpError.of(2, 0)).as("no 0x2/0x00").isNull();
        assertThat(DdpError.of(3, 0)).as("0x3 is the LLP's").isNull();
        assertThat(DdpError.of(1, 5)).isNull();
        // RFC 5040 §4.8 control word octets: Layer DDP, then EType and code (V-FPDU-6 in fpdus.txt: "11 00 c0 00").
        assertThat(DdpError.INVALID_STAG.terminateBits()).isEqualTo(0x11000000);
        assertThat(DdpError.MESSAGE_TOO_LONG.terminateBits()).isEqualTo(0x12050000);
        assertThat(DdpError.NO_BUFFER.terminateBits()).isEqualTo(0x12020000);
        assertThat(DdpError.LOCAL_CATASTROPHIC.terminateBits()).isEqualTo(0x10000000);
    }

    @Test
    void exceptionMessageNamesTheNumbers() {
        DdpException e = new DdpException(DdpError.TO_WRAP, "boom");
        assertThat(e.getMessage()).isEqualTo("boom (DDP error 1/0x03, TO_WRAP)");
        assertThat(e.stagCheck()).isNull();
    }
}
