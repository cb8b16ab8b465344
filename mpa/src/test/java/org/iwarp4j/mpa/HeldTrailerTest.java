package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * How {@link MpaFrameEncoder} hands a large {@link OutboundUlpdu}'s FPDU to the transport: its
 * trailer (PAD, CRC) is held until the next write or flush and leaves in one buffer with the next
 * FPDU's ULPDU_Length and header, so that each FPDU costs two outbound entries, not three. The
 * octets on the wire stay those of RFC 5044 §4 (MPA-R-001, MPA-R-007, MPA-R-022): the reference
 * here is the same ULPDUs framed one buffer each.
 */
class HeldTrailerTest {

    private static final int LARGE = MpaFrameEncoder.CONTIGUOUS_LIMIT + 1;

    @Property(tries = 60)
    void writesWithoutFlushesFrameToTheSameOctetsAsFramingOneByOne(
            @ForAll @Size(min = 1, max = 7) List<@IntRange(max = 30000) Integer> payloadLengths,
            @ForAll @IntRange(max = 18) int headerLength, @ForAll boolean markers, @ForAll boolean crc,
            @ForAll boolean heapPayloads, @ForAll long seed) {
        Random random = new Random(seed);
        EmbeddedChannel held = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false));
        EmbeddedChannel oneByOne = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false));
        List<ChannelFuture> futures = new ArrayList<>();
        // The entries expected: two per large FPDU (the trailer before it in its head), one per
        // small one (the trailer before it at its start when a promise is void, else one more),
        // one more for a trailer still held at a flush.
        int expectedEntries = 0;
        boolean trailerHeld = false;
        boolean heldPromiseVoid = false;
        for (int payloadLength : payloadLengths) {
            byte[] header = new byte[headerLength];
            byte[] payload = new byte[payloadLength];
            random.nextBytes(header);
            random.nextBytes(payload);
            ByteBuf body = heapPayloads ? Unpooled.wrappedBuffer(payload) : Wire.buf(payload);
            // Void and real promises mixed: a trailer shares a small FPDU's buffer only when one is void.
            ChannelPromise promise = random.nextBoolean() ? held.voidPromise() : held.newPromise();
            if (!promise.isVoid()) {
                futures.add(promise);
            }
            held.write(OutboundUlpdu.of(header, body), promise);
            if (!markers && headerLength + payloadLength >= MpaFrameEncoder.CONTIGUOUS_LIMIT) {
                expectedEntries += 2;
                trailerHeld = true;
                heldPromiseVoid = promise.isVoid();
            } else {
                expectedEntries += trailerHeld && !heldPromiseVoid && !promise.isVoid() ? 2 : 1;
                trailerHeld = false;
            }
            if (random.nextInt(4) == 0) {
                held.flush();
                expectedEntries += trailerHeld ? 1 : 0;
                trailerHeld = false;
            }
            oneByOne.writeOutbound(Wire.buf(concat(header, payload)));
        }
        held.flush();
        expectedEntries += trailerHeld ? 1 : 0;
        List<ByteBuf> entries = drain(held);
        try {
            assertThat(octets(entries)).isEqualTo(Wire.outbound(oneByOne));
            assertThat(entries).hasSize(expectedEntries);
        } finally {
            entries.forEach(ByteBuf::release);
        }
        assertThat(futures).allMatch(ChannelFuture::isSuccess);
        assertThat(held.finish()).isFalse();
        assertThat(oneByOne.finish()).isFalse();
    }

    @Test
    void threeLargeFpdusInOneFlushLeaveAsSevenBuffersTrailersJoinedToTheNextHead() {
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        EmbeddedChannel reference = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        byte[][] headers = new byte[3][];
        ByteBuf[] payloads = new ByteBuf[3];
        Random random = new Random(5044);
        for (int i = 0; i < 3; i++) {
            headers[i] = new byte[14];
            byte[] octets = new byte[LARGE + i]; // ULPDU 8207..8209: PAD 3, 2, 1
            random.nextBytes(headers[i]);
            random.nextBytes(octets);
            payloads[i] = Wire.buf(octets);
            reference.writeOutbound(Wire.buf(concat(headers[i], octets)));
            channel.write(OutboundUlpdu.of(headers[i], payloads[i].retain()));
        }
        channel.flush();
        byte[][] fpdus = fpdus(Wire.outbound(reference));
        List<ByteBuf> entries = drain(channel);
        try {
            assertThat(entries).hasSize(2 * 3 + 1);
            for (int i = 0; i < 3; i++) {
                assertThat(entries.get(2 * i + 1)).isSameAs(payloads[i]); // not copied
            }
            int trailer0 = 4 + MpaFrameEncoder.padLength(14 + LARGE);
            int trailer1 = 4 + MpaFrameEncoder.padLength(14 + LARGE + 1);
            int trailer2 = 4 + MpaFrameEncoder.padLength(14 + LARGE + 2);
            assertThat(bytes(entries.get(0))).isEqualTo(head(fpdus[0]));
            assertThat(bytes(entries.get(2))).isEqualTo(concat(tail(fpdus[0], trailer0), head(fpdus[1])));
            assertThat(bytes(entries.get(4))).isEqualTo(concat(tail(fpdus[1], trailer1), head(fpdus[2])));
            assertThat(bytes(entries.get(6))).isEqualTo(tail(fpdus[2], trailer2));
        } finally {
            entries.forEach(ByteBuf::release);
        }
        for (ByteBuf payload : payloads) {
            assertThat(payload.release()).isTrue();
        }
        assertThat(channel.finish()).isFalse();
        assertThat(reference.finish()).isFalse();
    }

    @Test
    void aPromiseRidesOnAWriteAfterItsTrailerAndTheLastTrailerWaitsForTheFlush() {
        Capture capture = new Capture();
        EmbeddedChannel channel = new EmbeddedChannel(capture, new MpaFrameEncoder(false, true, false));
        int fpduLength = 2 + 14 + LARGE + MpaFrameEncoder.padLength(14 + LARGE) + 4;
        ChannelPromise first = channel.newPromise();
        ChannelPromise second = channel.newPromise();
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[LARGE])), first);
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[LARGE])), second);
        // head 1, payload 1, trailer 1 + head 2, payload 2; trailer 2 is held
        assertThat(capture.events).hasSize(4);
        // the first promise is on the buffer that ends the first FPDU (its trailer, then head 2)
        assertThat(capture.promises.get(2)).isSameAs(first);
        assertThat(capture.octetsUpTo(first)).isEqualTo(fpduLength + 2 + 14);
        assertThat(capture.promises).doesNotContain(second);

        channel.flush();
        assertThat(capture.events).hasSize(6);
        assertThat(capture.events.get(5)).isEqualTo(Capture.FLUSH);
        assertThat(capture.promises.get(4)).isSameAs(second);
        assertThat(capture.octetsUpTo(second)).isEqualTo(2 * fpduLength);

        List<String> completed = new ArrayList<>();
        first.addListener(f -> completed.add("first"));
        second.addListener(f -> completed.add("second"));
        capture.completeAll();
        assertThat(completed).containsExactly("first", "second");
        assertThat(first.isSuccess()).isTrue();
        assertThat(second.isSuccess()).isTrue();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void closeFailsAnUnflushedFpduTrailerIncludedAndLeaksNothing() {
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        ByteBuf payload = Wire.buf(new byte[LARGE]);
        ChannelPromise promise = channel.newPromise();
        channel.write(OutboundUlpdu.of(new byte[14], payload), promise);
        assertThat(promise.isDone()).isFalse(); // its trailer is held
        channel.close();
        assertThat(promise.cause()).isInstanceOf(ClosedChannelException.class);
        assertThat(payload.refCnt()).isZero();
        assertThat((Object) channel.readOutbound()).isNull();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void anEncoderRemovedWithATrailerHeldWritesItAfterItsFpdu() {
        MpaFrameEncoder encoder = new MpaFrameEncoder(false, true, false);
        EmbeddedChannel channel = new EmbeddedChannel(encoder);
        EmbeddedChannel reference = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        byte[] payload = new byte[LARGE];
        new Random(7).nextBytes(payload);
        ChannelPromise promise = channel.newPromise();
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(payload)), promise);
        channel.pipeline().remove(encoder);
        channel.flush();
        reference.writeOutbound(Wire.buf(concat(new byte[14], payload)));
        assertThat(Wire.outbound(channel)).isEqualTo(Wire.outbound(reference));
        assertThat(promise.isSuccess()).isTrue();
        assertThat(channel.finish()).isFalse();
        assertThat(reference.finish()).isFalse();
    }

    @Test
    void aMessageOfAnotherTypeGoesAfterTheHeldTrailer() {
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        Object other = "not a ULPDU";
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[LARGE])));
        channel.write(other);
        channel.flush();
        List<Object> out = new ArrayList<>();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            out.add(o);
        }
        try {
            assertThat(out).hasSize(4);
            assertThat(((ByteBuf) out.get(2)).readableBytes())
                    .isEqualTo(MpaFrameEncoder.padLength(14 + LARGE) + 4);
            assertThat(out.get(3)).isSameAs(other);
        } finally {
            out.forEach(ReferenceCountUtil::release);
        }
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void aSmallFpduCarriesTheHeldTrailerWhenOnePromiseIsVoidElseTheTrailerGoesAlone() {
        // RDMAP's case: the large segment's promise is void, the message's last (small) segment's is not.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[LARGE])), channel.voidPromise());
        ChannelPromise small = channel.newPromise();
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[80])), small);
        channel.flush();
        int trailer = MpaFrameEncoder.padLength(14 + LARGE) + 4;
        List<ByteBuf> entries = drain(channel);
        try {
            assertThat(entries).hasSize(3);
            assertThat(entries.get(2).readableBytes()).isEqualTo(trailer + 2 + 94 + 0 + 4);
            assertThat(entries.get(2).getUnsignedShort(trailer)).isEqualTo(94); // ULPDU_Length after the trailer
        } finally {
            entries.forEach(ByteBuf::release);
        }
        assertThat(small.isSuccess()).isTrue();

        ChannelPromise large = channel.newPromise();
        ChannelPromise second = channel.newPromise();
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[LARGE])), large);
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[80])), second);
        channel.flush();
        entries = drain(channel);
        try {
            assertThat(entries).hasSize(4);
            assertThat(entries.get(2).readableBytes()).isEqualTo(trailer);
        } finally {
            entries.forEach(ByteBuf::release);
        }
        assertThat(large.isSuccess()).isTrue();
        assertThat(second.isSuccess()).isTrue();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void failedWritesFailEveryFpdusPromiseWithoutFiringExceptionCaughtAndLeakNothing() {
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
        List<ByteBuf> payloads = new ArrayList<>();
        List<ChannelFuture> written = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ByteBuf payload = Wire.buf(new byte[LARGE]);
            payloads.add(payload);
            written.add(channel.write(OutboundUlpdu.of(new byte[14], payload)));
        }
        channel.flush();
        assertThat(written).allSatisfy(f -> assertThat(f.cause()).isSameAs(broken));
        assertThat(caught).isEmpty();
        assertThat(payloads).allSatisfy(p -> assertThat(p.refCnt()).isZero());
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void aReopenedFenceFlushesTheLastTrailer() {
        MpaFrameEncoder encoder = new MpaFrameEncoder(false, true, true);
        Capture capture = new Capture();
        EmbeddedChannel channel = new EmbeddedChannel(capture, encoder);
        ChannelPromise first = channel.newPromise();
        ChannelPromise second = channel.newPromise();
        channel.write(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[LARGE])), first);
        channel.writeAndFlush(OutboundUlpdu.of(new byte[14], Wire.buf(new byte[LARGE])), second);
        assertThat(capture.events).containsExactly(Capture.FLUSH); // nothing written: MPA-R-061
        encoder.openFence();
        // then head, payload, trailer + head carrying the first promise, payload, trailer, flush
        assertThat(capture.events).hasSize(7);
        assertThat(capture.events.get(6)).isEqualTo(Capture.FLUSH);
        assertThat(capture.promises.get(3)).isSameAs(first);
        assertThat(capture.promises.get(5)).isSameAs(second);
        capture.completeAll();
        assertThat(first.isSuccess()).isTrue();
        assertThat(second.isSuccess()).isTrue();
        assertThat(channel.finish()).isFalse();
    }

    /**
     * Between the transport and the encoder: records every write (its octets and promise) and
     * flush, completing nothing until told.
     */
    private static final class Capture extends ChannelOutboundHandlerAdapter {
        static final String FLUSH = "flush";
        final List<Object> events = new ArrayList<>();
        final List<ChannelPromise> promises = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            events.add(ByteBufUtil.getBytes((ByteBuf) msg));
            promises.add(promise);
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            events.add(FLUSH);
            promises.add(null);
        }

        /** Octets of the writes up to and including the one carrying {@code promise}. */
        int octetsUpTo(ChannelPromise promise) {
            int octets = 0;
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i) instanceof byte[]) {
                    octets += ((byte[]) events.get(i)).length;
                }
                if (promises.get(i) == promise) {
                    return octets;
                }
            }
            throw new AssertionError("no write carries " + promise);
        }

        /** Completes the recorded promises in write order, as the transport would. */
        void completeAll() {
            for (ChannelPromise p : promises) {
                if (p != null) {
                    p.trySuccess();
                }
            }
        }
    }

    private static List<ByteBuf> drain(EmbeddedChannel channel) {
        List<ByteBuf> out = new ArrayList<>();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            out.add((ByteBuf) o);
        }
        return out;
    }

    private static byte[] octets(List<ByteBuf> buffers) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        buffers.forEach(b -> out.writeBytes(bytes(b)));
        return out.toByteArray();
    }

    private static byte[] bytes(ByteBuf buf) {
        return ByteBufUtil.getBytes(buf);
    }

    /** Splits a marker-free stream of FPDUs by their ULPDU_Length. */
    private static byte[][] fpdus(byte[] stream) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < stream.length; ) {
            int length = (stream[i] & 0xFF) << 8 | stream[i + 1] & 0xFF;
            int wire = 2 + length + MpaFrameEncoder.padLength(length) + 4;
            byte[] fpdu = new byte[wire];
            System.arraycopy(stream, i, fpdu, 0, wire);
            out.add(fpdu);
            i += wire;
        }
        return out.toArray(new byte[0][]);
    }

    /** ULPDU_Length and the 14-octet header. */
    private static byte[] head(byte[] fpdu) {
        byte[] head = new byte[2 + 14];
        System.arraycopy(fpdu, 0, head, 0, head.length);
        return head;
    }

    private static byte[] tail(byte[] fpdu, int length) {
        byte[] tail = new byte[length];
        System.arraycopy(fpdu, fpdu.length - length, tail, 0, length);
        return tail;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return Wire.concat(a, b);
    }
}
