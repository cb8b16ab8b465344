package org.iwarp4j.oncrpc;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import org.iwarp4j.oncrpc.internal.SliceSafeCumulatorTest;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Record marking (RFC 5531 §11) on EmbeddedChannel, octet for octet. */
class RecordMarkingCodecTest {

    private static String written(EmbeddedChannel ch) {
        StringBuilder sb = new StringBuilder();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            sb.append(ByteBufUtil.hexDump(b));
            b.release();
        }
        return sb.toString();
    }

    private static String read(EmbeddedChannel ch) {
        ByteBuf record = ch.readInbound();
        try {
            return ByteBufUtil.hexDump(record);
        } finally {
            record.release();
        }
    }

    private static ByteBuf hex(String h) {
        return Unpooled.wrappedBuffer(Hex.decode(h));
    }

    @Test
    void oneRecordIsOneLastFragmentByDefault() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingEncoder());
        ch.writeOutbound(XdrBytes.message("01020304 05060708"));
        assertThat(written(ch)).isEqualTo("80000008" + "0102030405060708");
        ch.writeOutbound(XdrMessage.of(Unpooled.EMPTY_BUFFER));
        assertThat(written(ch)).as("an empty record is a last fragment of length 0").isEqualTo("80000000");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void longRecordsAreSplitIntoFragmentsOnlyTheLastOfWhichHasTheBit() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingEncoder(8));
        ch.writeOutbound(XdrBytes.message("00010203 04050607 08090a0b 0c0d0e0f 10111213"));
        assertThat(written(ch)).isEqualTo(
                "00000008" + "0001020304050607" + "00000008" + "08090a0b0c0d0e0f" + "80000004" + "10111213");
        ch.finish();
    }

    @Test
    void ddpEligiblePiecesAreFramedWithTheirPadding() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingEncoder());
        ch.writeOutbound(XdrEncoder.create().writeDdpEligibleOpaque(hex("0102030405"), 8).toMessage());
        assertThat(written(ch)).isEqualTo("8000000c" + "00000005" + "0102030405000000");
        ch.finish();
    }

    @Test
    void fragmentsAreReassembledIntoOneRecord() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(1024));
        ch.writeInbound(hex("00000003 010203 00000000 00000002 0405 80000001 06"));
        assertThat(read(ch)).isEqualTo("010203040506");
        assertThat(ch.inboundMessages()).isEmpty();
        assertThat(ch.finish()).isFalse();
    }

    /**
     * A record goes on to other threads (a server's workers, a client's caller copying out READ
     * data) while the event loop keeps appending reads to the buffer the record was sliced from:
     * its octets must never change once it is emitted. The caller's read is made to happen at the
     * worst moment for Netty 4.2's adaptive buffers (inside the append's setBytes, see
     * SliceSafeCumulatorTest); with Netty's default cumulator the next read's octets land over the
     * record. A record of one fragment is still a view of the input, not a copy.
     */
    @Test
    void aRecordsOctetsNeverChangeOnceEmittedThoughItSharesTheInput() {
        ByteBufAllocator adaptive = new AdaptiveByteBufAllocator();
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(1024));
        ch.config().setAllocator(adaptive);
        ByteBuf input = adaptive.directBuffer(256).writeBytes(Hex.decode("80000004 01020304 80000008 05060708"));
        long inputAddress = input.hasMemoryAddress() ? input.memoryAddress() : -1;
        ch.writeInbound(input); // a whole record, then half of the next
        ByteBuf record = ch.readInbound();
        try {
            if (inputAddress != -1) {
                assertThat(record.memoryAddress()).as("a one-fragment record is a view of the input")
                        .isEqualTo(inputAddress + 4);
            }
            ch.writeInbound(new SliceSafeCumulatorTest.Hooked(hex("090a0b0c 80000004 11121314"),
                    SliceSafeCumulatorTest.copiedOut(record)));
            assertThat(ByteBufUtil.hexDump(record)).as("the record after the next read was appended")
                    .isEqualTo("01020304");
        } finally {
            record.release();
        }
        assertThat(read(ch)).isEqualTo("05060708090a0b0c");
        assertThat(read(ch)).isEqualTo("11121314");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void recordsBackToBackAndByteByByte() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(1024));
        byte[] stream = Hex.decode("80000004 0a0b0c0d 80000000 00000001 ff 80000001 ee");
        for (byte b : stream) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertThat(read(ch)).isEqualTo("0a0b0c0d");
        assertThat(read(ch)).isEmpty();
        assertThat(read(ch)).isEqualTo("ffee");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void oversizeSingleFragmentIsRefusedBeforeItsOctetsArriveAndClosesTheConnection() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(16));
        assertThatThrownBy(() -> ch.writeInbound(hex("80000011 00")))
                .isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("17 octets exceeds the limit of 16");
        assertThat(ch.isOpen()).isFalse();
        assertThat(ch.inboundMessages()).isEmpty();
    }

    @Test
    void oversizeMultiFragmentRecordIsRefusedAtTheMarkThatCrossesTheLimit() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(16));
        ch.writeInbound(hex("0000000a 00000000000000000000"));
        assertThatThrownBy(() -> ch.writeInbound(hex("8000000a")))
                .isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("20 octets");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void maximumSizedRecordIsAccepted() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(16));
        ch.writeInbound(hex("00000008 0000000000000000 80000008 1111111111111111"));
        assertThat(read(ch)).isEqualTo("0000000000000000" + "1111111111111111");
        ch.finish();
    }

    @Test
    void partialRecordIsReleasedWhenTheConnectionCloses() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(1024));
        ch.writeInbound(hex("00000004 01020304 80000004 05"));
        assertThat(ch.finish()).isFalse(); // the leak detector checks the held fragment was released
    }
}
