package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/** Moves octets in and out of buffers in tests, releasing every buffer it consumes. */
final class Bufs {

    private Bufs() {
    }

    /** A pooled (leak-tracked) buffer holding {@code bytes}; the caller releases it. */
    static ByteBuf buf(byte[] bytes) {
        return ByteBufAllocator.DEFAULT.buffer(bytes.length).writeBytes(bytes);
    }

    /** The readable octets of {@code buf}, which is released. */
    static byte[] drain(ByteBuf buf) {
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** The readable octets of {@code buf}, which is not released. */
    static byte[] peek(ByteBuf buf) {
        return ByteBufUtil.getBytes(buf);
    }

    /** Everything written to the network so far by an embedded channel, as one array. */
    static byte[] outbound(EmbeddedChannel channel) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            out.writeBytes(drain((ByteBuf) o));
        }
        return out.toByteArray();
    }

    /** The ULPDU inside a marker-free FPDU: after the 2-octet length, ULPDU_Length octets (testdata/vectors/fpdus.txt). */
    static byte[] ulpduOf(byte[] fpdu) {
        int length = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
        return Arrays.copyOfRange(fpdu, 2, 2 + length);
    }

    /** {@code n} octets of a pattern that differs at every offset mod 251. */
    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ((i + seed) % 251);
        }
        return b;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
