package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
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
     * A record is handed to other threads while the decoder keeps appending to its cumulation; it
     * must not be a view of that buffer (a retained slice shares its memory and its reference count).
     */
    @Test
    void aRecordIsABufferOfItsOwnNotASliceOfTheInput() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(1024));
        ByteBuf input = Unpooled.directBuffer(64).writeInt(0x8000_0004).writeInt(0x0102_0304)
                .writeInt(0x8000_0008).writeInt(0x0506_0708); // a whole record, then half of the next
        ch.writeInbound(input.retain());
        ByteBuf record = ch.readInbound();
        try {
            assertThat(ByteBufUtil.hexDump(record)).isEqualTo("01020304");
            assertThat(record.refCnt()).as("the record holds no reference to the input").isEqualTo(1);
            input.setInt(4, 0xdead_beef);
            assertThat(ByteBufUtil.hexDump(record)).as("the input's octets changing leave the record alone")
                    .isEqualTo("01020304");
        } finally {
            record.release();
            input.release();
        }
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {9, 10, 11, 12}));
        ByteBuf second = ch.readInbound();
        assertThat(ByteBufUtil.hexDump(second)).isEqualTo("05060708090a0b0c");
        second.release();
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
