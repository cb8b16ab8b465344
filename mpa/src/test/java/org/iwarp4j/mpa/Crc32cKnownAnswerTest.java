package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import java.util.stream.Stream;
import org.iwarp4j.mpa.internal.ByteBufCrc32c;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** testdata/vectors/crc32c.txt: the published CRC32c values, computed over heap, direct and composite buffers. MPA-R-028. */
class Crc32cKnownAnswerTest {

    static Stream<Arguments> vectors() {
        byte[] ascending = new byte[32];
        byte[] descending = new byte[32];
        byte[] ones = new byte[32];
        for (int i = 0; i < 32; i++) {
            ascending[i] = (byte) i;
            descending[i] = (byte) (31 - i);
            ones[i] = (byte) 0xFF;
        }
        return Stream.of(
                Arguments.of("V-CRC-0", "123456789".getBytes(StandardCharsets.US_ASCII)),
                Arguments.of("V-CRC-1", new byte[32]),
                Arguments.of("V-CRC-2", ones),
                Arguments.of("V-CRC-3", ascending),
                Arguments.of("V-CRC-4", descending),
                Arguments.of("V-CRC-5", TestVectors.bytes("V-CRC-5-INPUT")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void wireOctetsMatchThePublishedValue(String id, byte[] input) {
        byte[] wire = TestVectors.bytes(id);
        assertThat(wire).hasSize(4);

        assertThat(crcOf(ByteBufAllocator.DEFAULT.heapBuffer().writeBytes(input))).isEqualTo(wire);
        assertThat(crcOf(ByteBufAllocator.DEFAULT.directBuffer().writeBytes(input))).isEqualTo(wire);
        CompositeByteBuf composite = ByteBufAllocator.DEFAULT.compositeBuffer();
        int half = input.length / 2;
        composite.addComponent(true, ByteBufAllocator.DEFAULT.directBuffer().writeBytes(input, 0, half));
        composite.addComponent(true, ByteBufAllocator.DEFAULT.heapBuffer().writeBytes(input, half, input.length - half));
        assertThat(crcOf(composite)).isEqualTo(wire);
    }

    /**
     * A range of a composite that starts and ends inside components, as the receive cumulation
     * has it for an FPDU cut by a read, gives the CRC of the same octets in one piece.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void rangeOfACompositeMatchesTheOctetsInOnePiece(String id, byte[] input) {
        byte[] framed = new byte[input.length + 10];
        for (int i = 0; i < framed.length; i++) {
            framed[i] = (byte) (0xA5 ^ i);
        }
        System.arraycopy(input, 0, framed, 5, input.length);
        CompositeByteBuf composite = ByteBufAllocator.DEFAULT.compositeBuffer();
        try {
            int third = framed.length / 3;
            composite.addComponent(true, ByteBufAllocator.DEFAULT.directBuffer().writeBytes(framed, 0, third));
            composite.addComponent(true, ByteBufAllocator.DEFAULT.directBuffer().writeBytes(framed, third, third));
            composite.addComponent(true, ByteBufAllocator.DEFAULT.directBuffer().writeBytes(framed, 2 * third,
                    framed.length - 2 * third));
            composite.skipBytes(2);
            CRC32C expected = new CRC32C();
            expected.update(input);
            CRC32C actual = new CRC32C();
            ByteBufCrc32c.update(actual, composite, 5, input.length);
            assertThat(actual.getValue()).isEqualTo(expected.getValue());
            assertThat(composite.readerIndex()).isEqualTo(2);
        } finally {
            composite.release();
        }
    }

    /** The CRC field is the CRC32C value sent least-significant octet first (RFC 5044 §4.4, MPA-R-028). */
    private static byte[] crcOf(ByteBuf buf) {
        try {
            CRC32C crc = new CRC32C();
            ByteBufCrc32c.update(crc, buf);
            return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue()).array();
        } finally {
            buf.release();
        }
    }
}
