package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.oncrpc.XdrBytes.decoder;
import static org.iwarp4j.oncrpc.XdrBytes.encode;
import static org.iwarp4j.oncrpc.XdrBytes.plain;

/** Known answers for the XDR primitives of RFC 4506 §4, in both directions. */
class XdrCodecTest {

    /**
     * RFC 4506 §7, "An Example of an XDR Data Description": the file "sillyprog", type EXEC with
     * interpretor "lisp", owner "john", data "(quit)", and the 48 octets the RFC lists for it.
     */
    private static final String RFC4506_FILE = """
            00000009 73696c6c 7970726f 67000000
            00000002 00000004 6c697370
            00000004 6a6f686e
            00000006 28717569 74290000""";

    @Test
    void rfc4506SectionSevenFileExampleEncodes() {
        String hex = encode(out -> out
                .writeString("sillyprog", 255)   // filename<MAXNAMELEN>
                .writeEnum(2)                    // filekind EXEC
                .writeString("lisp", 255)        // interpretor<MAXNAMELEN>
                .writeString("john", 32)         // owner<MAXUSERNAME>
                .writeOpaque("(quit)".getBytes(StandardCharsets.US_ASCII), 65535)); // data<MAXFILELEN>
        assertThat(hex).isEqualTo(plain(RFC4506_FILE));
    }

    @Test
    void rfc4506SectionSevenFileExampleDecodes() {
        XdrDecoder in = decoder(RFC4506_FILE);
        assertThat(in.readString(255)).isEqualTo("sillyprog");
        assertThat(in.readEnum()).isEqualTo(2);
        assertThat(in.readString(255)).isEqualTo("lisp");
        assertThat(in.readString(32)).isEqualTo("john");
        assertThat(new String(in.readOpaque(65535), StandardCharsets.US_ASCII)).isEqualTo("(quit)");
        assertThat(in.isEmpty()).isTrue();
    }

    @Test
    void integersAreBigEndianTwosComplement() { // RFC 4506 §4.1, §4.2, §4.5
        assertThat(encode(out -> out.writeInt(-1).writeInt(0x01020304).writeUnsignedInt(0xFFFF_FFFEL)))
                .isEqualTo("ffffffff01020304fffffffe");
        assertThat(encode(out -> out.writeHyper(0x0102030405060708L).writeHyper(-2)))
                .isEqualTo("0102030405060708fffffffffffffffe");
        XdrDecoder in = decoder("ffffffff fffffffe 01020304 05060708");
        assertThat(in.readInt()).isEqualTo(-1);
        assertThat(in.readUnsignedInt()).isEqualTo(0xFFFF_FFFEL);
        assertThat(in.readHyper()).isEqualTo(0x0102030405060708L);
    }

    @Test
    void unsignedIntOutOfRangeIsRefused() {
        assertThatThrownBy(() -> encode(out -> out.writeUnsignedInt(1L << 32))).isInstanceOf(XdrException.class);
        assertThatThrownBy(() -> encode(out -> out.writeUnsignedInt(-1))).isInstanceOf(XdrException.class);
    }

    @Test
    void booleansAreOneAndZeroOnly() { // RFC 4506 §4.4
        assertThat(encode(out -> out.writeBoolean(true).writeBoolean(false))).isEqualTo("0000000100000000");
        XdrDecoder in = decoder("00000001 00000000 00000002");
        assertThat(in.readBoolean()).isTrue();
        assertThat(in.readBoolean()).isFalse();
        assertThatThrownBy(in::readBoolean).isInstanceOf(XdrException.class).hasMessageContaining("2");
    }

    @Test
    void opaqueIsPaddedToFourOctetsWithZeros() { // RFC 4506 §4.9, §4.10
        assertThat(encode(out -> out.writeFixedOpaque(new byte[] {1, 2, 3}))).isEqualTo("01020300");
        assertThat(encode(out -> out.writeOpaque(new byte[] {1, 2, 3, 4}, 4))).isEqualTo("0000000401020304");
        assertThat(encode(out -> out.writeOpaque(new byte[] {9}, 4))).isEqualTo("0000000109000000");
        assertThat(encode(out -> out.writeOpaque(new byte[0], 0))).isEqualTo("00000000");
        XdrDecoder in = decoder("01020300 00000001 09000000 00000005");
        assertThat(in.readFixedOpaque(3)).containsExactly(1, 2, 3);
        assertThat(in.readOpaque(4)).containsExactly(9);
        assertThat(in.readInt()).isEqualTo(5);
    }

    @Test
    void opaqueFromABufferIsAppendedWithoutCopy() {
        ByteBuf data = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        XdrEncoder out = XdrEncoder.create().writeInt(7);
        out.writeOpaque(data, 16).writeInt(8);
        XdrMessage message = out.toMessage();
        try {
            assertThat(message.pieces()).hasSize(3);
            assertThat(message.pieces().get(1).data()).isSameAs(data);
            assertThat(XdrBytes.hex(message)).isEqualTo("00000007000000050102030405000000" + "00000008");
        } finally {
            message.release();
        }
        assertThat(data.refCnt()).isZero();
    }

    @Test
    void stringIsCountedOctets() { // RFC 4506 §4.11
        assertThat(encode(out -> out.writeString("", 8))).isEqualTo("00000000");
        assertThat(encode(out -> out.writeString("abcde", 8))).isEqualTo("000000056162636465000000");
        assertThatThrownBy(() -> encode(out -> out.writeString("abcdefghi", 8)))
                .isInstanceOf(XdrException.class).hasMessageContaining("maximum 8");
    }

    @Test
    void arraysAndOptionalData() { // RFC 4506 §4.12, §4.13, §4.19
        assertThat(encode(out -> out.writeIntArray(new int[] {1, -1}, 2))).isEqualTo("0000000200000001ffffffff");
        assertThat(encode(out -> out.writeArray(List.of("a", "bc"), 4, (o, s) -> o.writeString(s, 4))))
                .isEqualTo("00000002" + "0000000161000000" + "0000000262630000");
        assertThat(encode(out -> out.writeOptional(null, XdrEncoder::writeInt))).isEqualTo("00000000");
        assertThat(encode(out -> out.writeOptional(5, XdrEncoder::writeInt))).isEqualTo("0000000100000005");
        assertThatThrownBy(() -> encode(out -> out.writeIntArray(new int[3], 2))).isInstanceOf(XdrException.class);

        XdrDecoder in = decoder("00000002 00000001 61000000 00000002 62630000 00000001 00000005 00000000");
        assertThat(in.readArray(4, d -> d.readString(4))).containsExactly("a", "bc");
        assertThat(in.<Integer>readOptional(XdrDecoder::readInt)).isEqualTo(5);
        assertThat(in.<Integer>readOptional(XdrDecoder::readInt)).isNull();
    }

    @Test
    void opaqueBufIsASliceTheCallerReleases() {
        ByteBuf stream = Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 3, 7, 8, 9, 0, 0, 0, 0, 1});
        XdrDecoder in = new XdrDecoder(stream);
        ByteBuf data = in.readOpaqueBuf(3);
        assertThat(data.readableBytes()).isEqualTo(3);
        assertThat(data.getByte(0)).isEqualTo((byte) 7);
        assertThat(stream.refCnt()).isEqualTo(2);
        data.release();
        assertThat(in.readInt()).isEqualTo(1);
        stream.release();
    }

    @Test
    void toByteArrayGivesTheStreamWithPaddingAndReleasesThePieces() {
        ByteBuf ddp = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        XdrEncoder out = XdrEncoder.create().writeInt(7);
        out.writeDdpEligibleOpaque(ddp, 16).writeInt(8);
        assertThat(out.toByteArray()).containsExactly(0, 0, 0, 7, 0, 0, 0, 3, 1, 2, 3, 0, 0, 0, 0, 8);
        assertThat(ddp.refCnt()).isZero();
        assertThatThrownBy(() -> out.writeInt(9)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void discardReleasesWhatWasWritten() {
        ByteBuf data = Unpooled.buffer().writeZero(10);
        XdrEncoder out = XdrEncoder.create().writeInt(1);
        out.writeOpaque(data, 100);
        out.discard();
        assertThat(data.refCnt()).isZero();
        assertThatThrownBy(() -> out.writeInt(2)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aBufferOverItsMaximumIsReleasedAndRefused() {
        ByteBuf data = Unpooled.buffer().writeZero(10);
        XdrEncoder out = XdrEncoder.create();
        assertThatThrownBy(() -> out.writeOpaque(data, 9)).isInstanceOf(XdrException.class);
        assertThat(data.refCnt()).isZero();
        ByteBuf ddp = Unpooled.buffer().writeZero(10);
        assertThatThrownBy(() -> out.writeDdpEligibleOpaque(ddp, 9)).isInstanceOf(XdrException.class);
        assertThat(ddp.refCnt()).isZero();
        out.discard();
    }
}
