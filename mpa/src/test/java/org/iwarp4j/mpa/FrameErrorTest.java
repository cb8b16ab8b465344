package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;

/** FPDU error paths of RFC 5044 §6 and §8 at the frame codec. */
class FrameErrorTest {

    @Test
    void truncatedFpduThenEndOfStreamIsErrorOneAndNothingIsPassed() {
        // MPA-R-039: length says 100, 50 octets arrive, then the connection ends: reported as
        // error 1, the LLP's error for what it took and cannot deliver (DDP-R-003).
        byte[] partial = new byte[52];
        partial[1] = 100;
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, true, 0xFFFF));
        channel.writeInbound(Wire.buf(partial));
        assertThat(Wire.inbound(channel)).isEmpty();
        channel.close();
        MpaException error = (MpaException) org.assertj.core.api.Assertions.catchThrowable(channel::checkException);
        assertThat(error).isNotNull();
        assertThat(error.error()).isEqualTo(MpaError.CONNECTION_LOST);
        assertThat(error.terminateRequired()).isFalse();
    }

    @Test
    void endOfStreamBetweenFpdusIsNoError() {
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, true, 0xFFFF));
        channel.writeInbound(Wire.buf(TestVectors.bytes("V-RTR-1")));
        channel.close();
        channel.checkException();
        assertThat(Wire.inbound(channel)).hasSize(1);
    }

    @Test
    void ulpduOverTheRfcMaximumFailsItsWriteAndNothingIsSent() {
        // MPA-R-006: DDP never posts more than 64768 octets; the API says so and writes nothing.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        ChannelFuture write = channel.writeOneOutbound(Wire.buf(new byte[MpaConstants.MAX_ULPDU + 1]));
        channel.flushOutbound();
        assertThat(write.cause()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64768");
        assertThat(Wire.outbound(channel)).isEmpty();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void threeUlpdusBecomeThreeFpdusEachOneWrite() {
        // MPA-R-003, DDP-R-004: exactly one ULPDU per FPDU, boundaries kept; MPA-R-036: each FPDU
        // is handed to TCP as one write.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        int[] lengths = {18, 1000, 14};
        for (int n : lengths) {
            channel.writeOutbound(Wire.buf(new byte[n]));
        }
        assertThat(channel.outboundMessages()).hasSize(3);
        byte[] wire = Wire.outbound(channel);
        int offset = 0;
        for (int n : lengths) {
            assertThat((wire[offset] & 0xFF) << 8 | wire[offset + 1] & 0xFF).isEqualTo(n);
            offset += 2 + n + MpaFrameEncoder.padLength(n) + 4;
        }
        assertThat(offset).isEqualTo(wire.length);
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void closeIndicationsReachTheUpperLayer() {
        // MPA-R-069 / MPA-R-008 / DDP-R-009: a FIN (input shutdown) and the connection's end pass
        // through to DDP.
        java.util.List<Object> seen = new java.util.ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, true, 0xFFFF),
                new io.netty.channel.ChannelInboundHandlerAdapter() {
                    @Override
                    public void userEventTriggered(io.netty.channel.ChannelHandlerContext ctx, Object evt) {
                        seen.add(evt);
                    }

                    @Override
                    public void channelInactive(io.netty.channel.ChannelHandlerContext ctx) {
                        seen.add("inactive");
                    }
                });
        channel.pipeline().fireUserEventTriggered(io.netty.channel.socket.ChannelInputShutdownEvent.INSTANCE);
        channel.close();
        assertThat(seen).containsExactly(io.netty.channel.socket.ChannelInputShutdownEvent.INSTANCE, "inactive");
    }

    @Test
    void defaultMulpduComesFromTheFallbackEmss() {
        // MPA-R-035: with no MSS known, EMSS from Ethernet's MTU with TCP timestamps: 1500 - 40 - 12
        // = 1448 -> MULPDU 1442 (1430 with markers), so each FPDU fits one segment of such a path.
        MpaSettings settings = MpaSettings.builder().build();
        assertThat(settings.emss()).isEqualTo(1448);
        assertThat(settings.sendMulpdu(false)).isEqualTo(1442);
        assertThat(settings.sendMulpdu(true)).isEqualTo(1430);
        // IPv6 headers are 20 octets longer: EMSS 1428.
        assertThat(settings.sendMulpdu(false, 0, true)).isEqualTo(1422);
        assertThat(MpaSettings.builder().maxSendUlpdu(16384).build().sendMulpdu(true)).isEqualTo(16384);
    }

    @Test
    void lengthOverTheReceiveMaximumIsAFramingError() {
        // MPA-R-070: framing errors are reported with their code.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, true, 1000));
        byte[] fpdu = new byte[2 + 1001 + 1 + 4];
        fpdu[0] = (byte) (1001 >> 8);
        fpdu[1] = (byte) 1001;
        assertThat(Wire.inboundError(channel, fpdu).error()).isEqualTo(MpaError.MARKER_ERROR);
        assertThat(Wire.inbound(channel)).isEmpty();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void afterAnErrorNoLaterFpduIsDelivered() {
        // MPA-R-074: FPDU 1 valid, FPDU 2 bad CRC, FPDU 3 valid -> only FPDU 1 reaches DDP.
        byte[] good = TestVectors.bytes("V-FPDU-5");
        byte[] bad = TestVectors.bytes("V-FPDU-4");
        bad[bad.length - 1] ^= 1;
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, true, 0xFFFF));
        MpaException error = Wire.inboundError(channel, Wire.concat(good, bad, good));
        assertThat(error.error()).isEqualTo(MpaError.CRC_ERROR);
        assertThat(error.terminateRequired()).isTrue();
        channel.writeInbound(Wire.buf(good));
        List<byte[]> delivered = Wire.inbound(channel);
        assertThat(delivered).containsExactly(Wire.ulpduOf(good));
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void fencedEncoderHoldsFpdusUntilTheFenceOpens() {
        // MPA-R-061 at the codec: nothing on the wire while fenced, then the framed FPDUs in order.
        MpaFrameEncoder encoder = new MpaFrameEncoder(false, true, true);
        EmbeddedChannel channel = new EmbeddedChannel(encoder);
        byte[] first = TestVectors.bytes("V-FPDU-5");
        byte[] second = TestVectors.bytes("V-FPDU-4");
        channel.writeOutbound(Wire.buf(Wire.ulpduOf(first)));
        channel.writeOutbound(Wire.buf(Wire.ulpduOf(second)));
        assertThat(Wire.outbound(channel)).isEmpty();
        encoder.openFence();
        assertThat(Wire.outbound(channel)).isEqualTo(Wire.concat(first, second));
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void heldWritesFailAndAreReleasedWhenTheConnectionCloses() {
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, true));
        ChannelFuture write = channel.writeOneOutbound(Wire.buf(new byte[10]));
        channel.flushOutbound();
        assertThat(write.isDone()).isFalse();
        channel.close();
        assertThat(write.cause()).isInstanceOf(ClosedChannelException.class);
    }
}
