package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboundUlpdu}s (header and payload apart, as RDMAP writes its segments) are framed into
 * exactly the octets the same ULPDU as one buffer gives (RFC 5044 §4.1-§4.4, MPA-R-001, MPA-R-007,
 * MPA-R-022), and a large one without markers, written and flushed alone, leaves as three flat
 * buffers, the payload not copied ({@link HeldTrailerTest}: what happens without a flush between).
 */
class OutboundUlpduFramingTest {

    @Property(tries = 40)
    void partsAreFramedToTheSameOctetsAsOneBuffer(
            @ForAll @Size(min = 1, max = 6) List<@IntRange(max = MpaConstants.MAX_ULPDU - 18) Integer> payloadLengths,
            @ForAll @IntRange(max = 18) int headerLength, @ForAll boolean markers, @ForAll boolean crc,
            @ForAll long seed) {
        Random random = new Random(seed);
        EmbeddedChannel asParts = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false));
        EmbeddedChannel asOne = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false));
        for (int payloadLength : payloadLengths) {
            byte[] header = new byte[headerLength];
            byte[] payload = new byte[payloadLength];
            random.nextBytes(header);
            random.nextBytes(payload);
            asParts.writeOutbound(OutboundUlpdu.of(header, Wire.buf(payload)));
            asOne.writeOutbound(Wire.buf(concat(header, payload)));
        }
        assertThat(Wire.outbound(asParts)).isEqualTo(Wire.outbound(asOne));
        assertThat(asParts.finish()).isFalse();
        assertThat(asOne.finish()).isFalse();
    }

    @Test
    void aLargeUlpduWithoutMarkersLeavesAsHeadPayloadAndTrailerThePayloadNotCopied() {
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        byte[] header = {0x41, 0x40, 0, 0, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0x10, 0};
        byte[] payloadOctets = new byte[MpaFrameEncoder.CONTIGUOUS_LIMIT + 1]; // 14 + 8193: PAD 3
        new Random(5044).nextBytes(payloadOctets);
        ByteBuf payload = Wire.buf(payloadOctets);
        ChannelFuture written = channel.writeAndFlush(OutboundUlpdu.of(header, payload));
        assertThat(written.isSuccess()).isTrue();

        ByteBuf head = channel.readOutbound();
        ByteBuf body = channel.readOutbound();
        ByteBuf tail = channel.readOutbound();
        assertThat((Object) channel.readOutbound()).isNull();
        try {
            int length = header.length + payloadOctets.length;
            byte[] lengthField = {(byte) (length >>> 8), (byte) length};
            assertThat(ByteBufUtil.getBytes(head)).isEqualTo(concat(lengthField, header));
            assertThat(body).isSameAs(payload);
            byte[] pad = new byte[MpaFrameEncoder.padLength(length)];
            assertThat(pad).hasSize(3);
            CRC32C crc = new CRC32C();
            crc.update(ByteBufUtil.getBytes(head));
            crc.update(payloadOctets);
            crc.update(pad);
            byte[] trailer = ByteBuffer.allocate(pad.length + 4).put(pad).order(ByteOrder.LITTLE_ENDIAN)
                    .putInt((int) crc.getValue()).array();
            assertThat(ByteBufUtil.getBytes(tail)).isEqualTo(trailer); // MPA-R-022: CRC LSB first
        } finally {
            head.release();
            body.release();
            tail.release();
        }
        assertThat(payload.refCnt()).isZero();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void aSmallUlpduIsCopiedIntoOneBufferAndItsPayloadReleased() {
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        ByteBuf payload = Wire.buf(new byte[100]);
        channel.writeOutbound(OutboundUlpdu.of(new byte[18], payload));
        assertThat(payload.refCnt()).isZero();
        ByteBuf fpdu = channel.readOutbound();
        try {
            assertThat(fpdu.readableBytes()).isEqualTo(2 + 118 + 0 + 4);
            assertThat(fpdu.getUnsignedShort(0)).isEqualTo(118);
        } finally {
            fpdu.release();
        }
        assertThat((Object) channel.readOutbound()).isNull();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void aLargeUlpduWhoseWritesFailFailsItsPromiseOnceAndLeaksNothing() {
        List<Throwable> caught = new ArrayList<>();
        IOException broken = new IOException("broken pipe");
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg); // a socket that fails every write
                promise.setFailure(broken);
            }
        }, new MpaFrameEncoder(false, true, false), new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                caught.add(cause);
            }
        });
        ByteBuf payload = Wire.buf(new byte[MpaConstants.MAX_ULPDU - 14]);
        ChannelFuture written = channel.writeAndFlush(OutboundUlpdu.of(new byte[14], payload));
        assertThat(written.cause()).isSameAs(broken);
        // The head and payload writes fail silently: the FPDU's one outcome is its last write's.
        assertThat(caught).isEmpty();
        assertThat(payload.refCnt()).isZero();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void aUlpduOverTheLimitIsRefusedAndReleased() {
        // MPA-R-006: 18 + 64751 = 64769 octets, one over.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        ByteBuf payload = Wire.buf(new byte[MpaConstants.MAX_ULPDU - 17]);
        ChannelFuture written = channel.writeAndFlush(OutboundUlpdu.of(new byte[18], payload));
        assertThat(written.cause()).isInstanceOf(IllegalArgumentException.class);
        assertThat(payload.refCnt()).isZero();
        assertThat((Object) channel.readOutbound()).isNull();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void aFencedEncoderHoldsPartsUntilOpenedAndReleasesThemIfRemoved() {
        MpaFrameEncoder encoder = new MpaFrameEncoder(false, true, true);
        EmbeddedChannel channel = new EmbeddedChannel(encoder);
        channel.writeAndFlush(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[20000])));
        assertThat((Object) channel.readOutbound()).isNull(); // MPA-R-061
        encoder.openFence();
        assertThat(Wire.outbound(channel)).hasSize(2 + 14 + 20000 + 4);

        MpaFrameEncoder held = new MpaFrameEncoder(false, true, true);
        EmbeddedChannel removed = new EmbeddedChannel(held);
        ByteBuf payload = Wire.buf(new byte[20000]);
        ChannelFuture written = removed.writeAndFlush(OutboundUlpdu.of(new byte[14], payload));
        removed.pipeline().remove(held);
        assertThat(written.cause()).isInstanceOf(ClosedChannelException.class);
        assertThat(payload.refCnt()).isZero();
        assertThat(channel.finish()).isFalse();
        assertThat(removed.finish()).isFalse();
    }

    @Test
    void toByteBufCopiesHeaderThenPayload() {
        OutboundUlpdu ulpdu = OutboundUlpdu.of(new byte[] {1, 2}, Wire.buf(new byte[] {3, 4, 5}));
        try {
            assertThat(ulpdu.length()).isEqualTo(5);
            assertThat(Wire.bytes(ulpdu.toByteBuf(ByteBufAllocator.DEFAULT))).containsExactly(1, 2, 3, 4, 5);
        } finally {
            ulpdu.release();
        }
        assertThat(ulpdu.refCnt()).isZero();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
