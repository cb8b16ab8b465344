package org.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/** Moves octets in and out of an {@link EmbeddedChannel}, releasing every buffer it reads. */
final class Wire {

    private Wire() {
    }

    /** A pooled (leak-tracked) buffer holding {@code bytes}; the receiver releases it. */
    static ByteBuf buf(byte[] bytes) {
        return ByteBufAllocator.DEFAULT.buffer(bytes.length).writeBytes(bytes);
    }

    static byte[] bytes(ByteBuf buf) {
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** Everything written to the network so far, as one array. */
    static byte[] outbound(EmbeddedChannel channel) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            out.writeBytes(bytes((ByteBuf) o));
        }
        return out.toByteArray();
    }

    /** Every ULPDU (or other ByteBuf) delivered inbound so far. */
    static List<byte[]> inbound(EmbeddedChannel channel) {
        List<byte[]> out = new ArrayList<>();
        for (Object o; (o = channel.readInbound()) != null; ) {
            out.add(bytes((ByteBuf) o));
        }
        return out;
    }

    /** Feeds {@code stream} to the channel in pieces of {@code chunk} octets. */
    static void feed(EmbeddedChannel channel, byte[] stream, int chunk) {
        for (int i = 0; i < stream.length; i += chunk) {
            int n = Math.min(chunk, stream.length - i);
            channel.writeInbound(ByteBufAllocator.DEFAULT.buffer(n).writeBytes(stream, i, n));
        }
    }

    /**
     * Writes {@code stream} inbound and returns the {@link MpaException} the pipeline raised with it;
     * fails the test if there was none. ULPDUs delivered before the error stay readable.
     */
    static MpaException inboundError(EmbeddedChannel channel, byte[] stream) {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> channel.writeInbound(buf(stream)));
        org.assertj.core.api.Assertions.assertThat(thrown).isInstanceOf(MpaException.class);
        return (MpaException) thrown;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** The ULPDU inside a marker-free FPDU: after the 2-octet length, ULPDU_Length octets. */
    static byte[] ulpduOf(byte[] fpdu) {
        int length = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
        byte[] ulpdu = new byte[length];
        System.arraycopy(fpdu, 2, ulpdu, 0, length);
        return ulpdu;
    }
}
