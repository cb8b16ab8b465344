package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.zip.CRC32C;
import org.iwarp4j.testkit.TestVectors;

/**
 * Shared pieces of the MPA startup tests: channels on a frozen virtual clock, startup frames and
 * FPDUs built from the field definitions (keys taken from the test vectors, never hand-copied),
 * outcome accessors and a probe that records what reaches the ULP.
 */
final class MpaStartupFixtures {

    /** Byte 16 masks (RFC 5044 §7.1.1, RFC 6581 §6), written out here so that the tests do not trust MpaConstants. */
    static final int M = 0x80;
    static final int C = 0x40;
    static final int R = 0x20;
    static final int S = 0x10;

    /** The 16-octet keys, taken from the V-MPA-REQ1 / V-MPA-REP1 vectors. */
    static final byte[] REQUEST_KEY = Arrays.copyOf(TestVectors.bytes("V-MPA-REQ1"), 16);
    static final byte[] REPLY_KEY = Arrays.copyOf(TestVectors.bytes("V-MPA-REP1"), 16);

    /** 0-based index of the one octet where the keys differ ('q' / 'p'; the RFC's "octet 10" counts from 1). */
    static final int KEY_DIFFERS_AT = Arrays.mismatch(REQUEST_KEY, REPLY_KEY);

    static final Duration TIMEOUT = MpaSettings.DEFAULT_STARTUP_TIMEOUT;

    private MpaStartupFixtures() {
    }

    /**
     * An active EmbeddedChannel whose clock is frozen before the handlers are added, so that the
     * startup timeout's deadline is exact in virtual time.
     */
    static EmbeddedChannel channel(ChannelHandler... handlers) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.pipeline().addLast(handlers);
        return ch;
    }

    /** Advances the virtual clock and runs the tasks that became due. */
    static void elapse(EmbeddedChannel ch, Duration d) {
        ch.advanceTimeBy(d.toNanos(), TimeUnit.NANOSECONDS);
        ch.runScheduledPendingTasks();
    }

    // ------------------------------------------------------------------ frames

    /** Key, byte 16, Rev, PD_Length = {@code pdLength}; no private data. */
    static byte[] header(byte[] key, int flags, int revision, int pdLength) {
        byte[] h = Arrays.copyOf(key, 20);
        h[16] = (byte) flags;
        h[17] = (byte) revision;
        h[18] = (byte) (pdLength >>> 8);
        h[19] = (byte) pdLength;
        return h;
    }

    static byte[] request(int flags, int revision, byte[] privateData) {
        return Wire.concat(header(REQUEST_KEY, flags, revision, privateData.length), privateData);
    }

    static byte[] reply(int flags, int revision, byte[] privateData) {
        return Wire.concat(header(REPLY_KEY, flags, revision, privateData.length), privateData);
    }

    /** The RFC 6581 word from its two 16-bit halves (A|B|IRD and C|D|ORD), network order. */
    static byte[] word(int irdHalf, int ordHalf) {
        return new byte[] {(byte) (irdHalf >>> 8), (byte) irdHalf, (byte) (ordHalf >>> 8), (byte) ordHalf};
    }

    static int flags(byte[] frame) {
        return frame[16] & 0xFF;
    }

    static int revision(byte[] frame) {
        return frame[17] & 0xFF;
    }

    static int pdLength(byte[] frame) {
        return (frame[18] & 0xFF) << 8 | frame[19] & 0xFF;
    }

    static byte[] privateData(byte[] frame) {
        return Arrays.copyOfRange(frame, 20, frame.length);
    }

    static byte[] key(byte[] frame) {
        return Arrays.copyOf(frame, 16);
    }

    /** IRD half of the enhanced word of a frame's private data. */
    static int irdHalf(byte[] frame) {
        return (frame[20] & 0xFF) << 8 | frame[21] & 0xFF;
    }

    static int ordHalf(byte[] frame) {
        return (frame[22] & 0xFF) << 8 | frame[23] & 0xFF;
    }

    // ------------------------------------------------------------------ FPDUs

    /**
     * An FPDU for the first few hundred octets of a direction (no marker inside): optional leading
     * marker {@code 00000000} (FPDUPTR 0, covered by the CRC, RFC 5044 §4.4 rule 2), ULPDU_Length,
     * ULPDU, zero PAD, CRC32c least-significant octet first, or {@code DE AD BE EF} when
     * {@code goodCrc} is false.
     */
    static byte[] fpdu(byte[] ulpdu, boolean leadingMarker, boolean goodCrc) {
        int pad = (4 - ((2 + ulpdu.length) & 3)) & 3;
        int lead = leadingMarker ? 4 : 0;
        byte[] f = new byte[lead + 2 + ulpdu.length + pad + 4];
        f[lead] = (byte) (ulpdu.length >>> 8);
        f[lead + 1] = (byte) ulpdu.length;
        System.arraycopy(ulpdu, 0, f, lead + 2, ulpdu.length);
        int crcAt = f.length - 4;
        if (goodCrc) {
            CRC32C crc = new CRC32C();
            crc.update(f, 0, crcAt);
            int v = (int) crc.getValue();
            f[crcAt] = (byte) v;
            f[crcAt + 1] = (byte) (v >>> 8);
            f[crcAt + 2] = (byte) (v >>> 16);
            f[crcAt + 3] = (byte) (v >>> 24);
        } else {
            f[crcAt] = (byte) 0xDE;
            f[crcAt + 1] = (byte) 0xAD;
            f[crcAt + 2] = (byte) 0xBE;
            f[crcAt + 3] = (byte) 0xEF;
        }
        return f;
    }

    /** The ULPDU of a vector FPDU of testdata/vectors/fpdus.txt (no markers). */
    static byte[] ulpdu(String vectorId) {
        return Wire.ulpduOf(TestVectors.bytes(vectorId));
    }

    // ------------------------------------------------------------------ outcomes

    static NegotiatedParameters success(MpaStartupHandler handler) {
        CompletableFuture<NegotiatedParameters> f = handler.startup();
        assertThat(f).as("startup outcome").isCompletedWithValueMatching(p -> p != null);
        return f.join();
    }

    static MpaException failure(MpaStartupHandler handler) {
        CompletableFuture<NegotiatedParameters> f = handler.startup();
        assertThat(f).as("startup outcome").isCompletedExceptionally();
        try {
            f.getNow(null);
        } catch (CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(MpaException.class);
            return (MpaException) e.getCause();
        }
        throw new AssertionError("unreachable");
    }

    /** Startup failed with an invalid Request/Reply frame (RFC 5044 §8 code 4). */
    static MpaException assertInvalidFrame(MpaStartupHandler handler) {
        MpaException e = failure(handler);
        assertThat(e.error()).isEqualTo(MpaError.INVALID_STARTUP_FRAME);
        assertThat(e.error().code()).isEqualTo(4);
        assertThat(e.terminateRequired()).isFalse();
        return e;
    }

    static void assertStillStarting(EmbeddedChannel ch, MpaStartupHandler handler) {
        assertThat(handler.startup()).isNotDone();
        assertThat(ch.isOpen()).isTrue();
        assertThat(ch.pipeline().get(MpaStartupHandler.class)).isSameAs(handler);
        assertThat(ch.pipeline().get(MpaStartupHandler.FRAME_DECODER_NAME)).isNull();
        assertThat(ch.pipeline().get(MpaStartupHandler.FRAME_ENCODER_NAME)).isNull();
    }

    /**
     * Full Operation: the startup handler is gone and the FPDU encoder and decoder stand where it
     * stood, encoder on the network side of the decoder.
     */
    static void assertFullOperation(EmbeddedChannel ch) {
        assertThat(ch.pipeline().get(MpaStartupHandler.class)).isNull();
        assertThat(ch.pipeline().get(MpaStartupHandler.FRAME_DECODER_NAME)).isInstanceOf(MpaFrameDecoder.class);
        assertThat(ch.pipeline().get(MpaStartupHandler.FRAME_ENCODER_NAME)).isInstanceOf(MpaFrameEncoder.class);
        List<String> names = ch.pipeline().names();
        assertThat(names.indexOf(MpaStartupHandler.FRAME_ENCODER_NAME))
                .isLessThan(names.indexOf(MpaStartupHandler.FRAME_DECODER_NAME));
    }

    /** MPA was left without entering Full Operation: no startup handler, no framing. */
    static void assertExitedMpa(EmbeddedChannel ch) {
        assertThat(ch.pipeline().get(MpaStartupHandler.class)).isNull();
        assertThat(ch.pipeline().get(MpaStartupHandler.FRAME_DECODER_NAME)).isNull();
        assertThat(ch.pipeline().get(MpaStartupHandler.FRAME_ENCODER_NAME)).isNull();
    }

    /** Moves everything {@code from} wrote into {@code to}'s inbound side (dropped if {@code to} is closed). */
    static void pump(EmbeddedChannel from, EmbeddedChannel to) {
        for (Object o; (o = from.readOutbound()) != null; ) {
            if (to.isOpen()) {
                to.writeInbound(o);
            } else {
                ReferenceCountUtil.release(o);
            }
        }
    }

    static ChannelFuture write(EmbeddedChannel ch, byte[] ulpdu) {
        ChannelFuture f = ch.writeAndFlush(Wire.buf(ulpdu));
        ch.checkException();
        return f;
    }

    // ------------------------------------------------------------------ probe

    /**
     * The ULP's view, placed after the startup handler: records the startup events and the order
     * of events and ULPDUs, passes ULPDUs on (to the channel's inbound queue), and can write a
     * ULPDU the moment the startup event arrives.
     */
    static final class Probe extends ChannelInboundHandlerAdapter {
        final List<MpaStartupEvent> events = new ArrayList<>();
        final List<String> order = new ArrayList<>();
        final List<ChannelFuture> writes = new ArrayList<>();
        private final Function<MpaStartupEvent, byte[]> onEvent;

        Probe() {
            this(e -> null);
        }

        /** {@code onEvent} returns the ULPDU to write in reaction to the event, or {@code null}. */
        Probe(Function<MpaStartupEvent, byte[]> onEvent) {
            this.onEvent = onEvent;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof MpaStartupEvent) {
                MpaStartupEvent e = (MpaStartupEvent) evt;
                events.add(e);
                order.add("event");
                byte[] ulpdu = onEvent.apply(e);
                if (ulpdu != null) {
                    writes.add(ctx.writeAndFlush(Wire.buf(ulpdu)));
                }
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf) {
                order.add("read");
            }
            ctx.fireChannelRead(msg);
        }

        MpaStartupEvent only() {
            assertThat(events).hasSize(1);
            return events.get(0);
        }
    }
}
