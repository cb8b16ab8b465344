package org.iwarp4j.rdmap.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.DDP_UNTAGGED_HEADER_LENGTH;
import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.READ_REQUEST_HEADER_LENGTH;

import io.netty.buffer.ByteBuf;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 5040 §4.4: the 28-octet RDMA Read Request header against V-FPDU-3 and V-RTR-2. */
class ReadRequestHeaderTest {

    /** V-FPDU-3 as its record in testdata/vectors/fpdus.txt describes it. */
    private static final ReadRequestHeader FPDU_3 =
            new ReadRequestHeader(0x01020304, 0x10000L, 4096, 0x11223344, 0x00007F0000001000L);

    private static byte[] rdmapHeaderOf(String vector) {
        byte[] ulpdu = Wire.ulpduOf(TestVectors.bytes(vector));
        return Wire.range(ulpdu, DDP_UNTAGGED_HEADER_LENGTH, ulpdu.length);
    }

    @Test
    void vectorThreeDecodes() {
        // RDMAP-R-011: Read Request, untagged on QN 1, MSN 1, MO 0, 46-octet segment with the 28-octet header.
        byte[] ulpdu = Wire.ulpduOf(TestVectors.bytes("V-FPDU-3"));
        assertThat(ulpdu).hasSize(RdmapConstants.READ_REQUEST_SEGMENT_LENGTH);
        assertThat(RdmapControl.check(Wire.uint8(ulpdu, 0), Wire.uint8(ulpdu, 1),
                Wire.uint32(ulpdu, RdmapConstants.DDP_QN_OFFSET)).opcode()).isEqualTo(RdmapOpcode.RDMA_READ_REQUEST);
        assertThat(Wire.uint32(ulpdu, RdmapConstants.DDP_MSN_OFFSET)).isEqualTo(1);
        assertThat(Wire.uint32(ulpdu, RdmapConstants.DDP_MO_OFFSET)).isZero();
        ReadRequestHeader header = Wire.read(rdmapHeaderOf("V-FPDU-3"), ReadRequestHeader::decode);
        assertThat(header).isEqualTo(FPDU_3);
        assertThat(header.sinkStag()).isEqualTo(0x01020304);
        assertThat(header.sinkTaggedOffset()).isEqualTo(0x10000L);
        assertThat(header.readMessageSize()).isEqualTo(4096);
        assertThat(header.sourceStag()).isEqualTo(0x11223344);
        assertThat(header.sourceTaggedOffset()).isEqualTo(0x00007F0000001000L);
        assertThat(header.isZeroLength()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"V-FPDU-3", "V-RTR-2"})
    void encodesByteForByte(String vector) {
        ReadRequestHeader header = vector.equals("V-RTR-2") ? new ReadRequestHeader(0, 0, 0, 0, 0) : FPDU_3;
        assertThat(Wire.written(header::encode)).isEqualTo(rdmapHeaderOf(vector));
    }

    @Test
    void rtrTwoIsAZeroLengthRead() {
        // RDMAP-R-015, MPA2-R-012, MPA2-R-013: a zero-size read, STags and TOs zero (siw practice), not to be checked.
        ReadRequestHeader header = Wire.read(rdmapHeaderOf("V-RTR-2"), ReadRequestHeader::decode);
        assertThat(header).isEqualTo(new ReadRequestHeader(0, 0, 0, 0, 0));
        assertThat(header.isZeroLength()).isTrue();
    }

    @Test
    void decodeConsumesExactlyTwentyEightOctets() {
        byte[] withTail = Wire.concat(rdmapHeaderOf("V-FPDU-3"), new byte[] {1, 2, 3});
        int left = Wire.read(withTail, in -> {
            ReadRequestHeader.decode(in);
            return in.readableBytes();
        });
        assertThat(left).isEqualTo(3);
    }

    @Test
    void aShortHeaderIsAFormatErrorAndNothingIsConsumed() {
        byte[] shortHeader = Wire.range(rdmapHeaderOf("V-FPDU-3"), 0, READ_REQUEST_HEADER_LENGTH - 1);
        ByteBuf in = Wire.buf(shortHeader);
        try {
            assertThatThrownBy(() -> ReadRequestHeader.decode(in)).isInstanceOf(RdmapFormatException.class)
                    .hasMessageContaining("28");
            assertThat(in.readerIndex()).isZero();
        } finally {
            in.release();
        }
    }

    @Test
    void theSizeIsThirtyTwoBitsUnsigned() {
        ReadRequestHeader max = new ReadRequestHeader(-1, -1L, 0xFFFFFFFFL, -1, -1L);
        byte[] wire = Wire.written(max::encode);
        assertThat(wire).hasSize(READ_REQUEST_HEADER_LENGTH).containsOnly((byte) 0xFF);
        assertThat(Wire.read(wire, ReadRequestHeader::decode).readMessageSize()).isEqualTo(0xFFFFFFFFL);
        assertThatThrownBy(() -> new ReadRequestHeader(0, 0, 0x1_0000_0000L, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReadRequestHeader(0, 0, -1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPartlyServedReadIsEchoedAdvanced() {
        // RDMAP-R-041: 8 KiB read failed after 2048 octets -> TOs +2048, size 6144, STags unchanged.
        ReadRequestHeader read = new ReadRequestHeader(0xAABBCCDD, 0x1000, 8192, 0x11223344, 0x7F0000000000L);
        ReadRequestHeader echoed = read.advancedBy(2048);
        assertThat(echoed).isEqualTo(new ReadRequestHeader(0xAABBCCDD, 0x1800, 6144, 0x11223344, 0x7F0000000800L));
        assertThat(read.advancedBy(0)).isEqualTo(read);
        assertThat(read.advancedBy(8192).readMessageSize()).isZero();
        assertThatThrownBy(() -> read.advancedBy(8193)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> read.advancedBy(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void valueSemantics() {
        ReadRequestHeader copy = new ReadRequestHeader(0x01020304, 0x10000L, 4096, 0x11223344, 0x00007F0000001000L);
        assertThat(copy).isEqualTo(FPDU_3).hasSameHashCodeAs(FPDU_3);
        assertThat(copy).isNotEqualTo(FPDU_3.advancedBy(1));
        assertThat(FPDU_3.toString()).contains("0x01020304", "4096", "0x11223344", "0x00007f0000001000");
    }
}
