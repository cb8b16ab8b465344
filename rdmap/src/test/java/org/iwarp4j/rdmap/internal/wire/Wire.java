package org.iwarp4j.rdmap.internal.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Octets in and out of buffers for the wire tests, releasing every buffer it makes, and the DDP
 * header octets the tests need (written here, not by the {@code ddp} module).
 */
final class Wire {

    private Wire() {
    }

    /** A pooled (leak-tracked) buffer holding {@code bytes}; the receiver releases it. */
    static ByteBuf buf(byte[] bytes) {
        return ByteBufAllocator.DEFAULT.buffer(bytes.length).writeBytes(bytes);
    }

    /** The readable octets of {@code buf}, which is released. */
    static byte[] bytes(ByteBuf buf) {
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** What {@code writer} writes into a fresh buffer, which is released. */
    static byte[] written(Consumer<ByteBuf> writer) {
        return bytes(withBuffer(writer));
    }

    private static ByteBuf withBuffer(Consumer<ByteBuf> writer) {
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer();
        try {
            writer.accept(out);
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            throw e;
        }
    }

    /** Applies {@code reader} to a buffer holding {@code bytes} and releases the buffer. */
    static <T> T read(byte[] bytes, Function<ByteBuf, T> reader) {
        ByteBuf in = buf(bytes);
        try {
            return reader.apply(in);
        } finally {
            in.release();
        }
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
        return Arrays.copyOfRange(fpdu, 2, 2 + length);
    }

    static byte[] range(byte[] bytes, int from, int to) {
        return Arrays.copyOfRange(bytes, from, to);
    }

    static byte[] shortBe(int value) {
        return new byte[] {(byte) (value >>> 8), (byte) value};
    }

    static byte[] intBe(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    /** An 18-octet untagged DDP header: control, RDMAP control, RsvdULP[8:39], QN, MSN, MO. */
    static byte[] untaggedHeader(int ddpControl, int rdmapControl, int invalidateStag, int qn, int msn, int mo) {
        return ByteBuffer.allocate(18).put((byte) ddpControl).put((byte) rdmapControl).putInt(invalidateStag)
                .putInt(qn).putInt(msn).putInt(mo).array();
    }

    /** A 14-octet tagged DDP header: control, RDMAP control, STag, TO. */
    static byte[] taggedHeader(int ddpControl, int rdmapControl, int stag, long to) {
        return ByteBuffer.allocate(14).put((byte) ddpControl).put((byte) rdmapControl).putInt(stag).putLong(to)
                .array();
    }

    static int uint8(byte[] b, int offset) {
        return b[offset] & 0xFF;
    }

    static long uint32(byte[] b, int offset) {
        return ByteBuffer.wrap(b, offset, 4).getInt() & 0xFFFFFFFFL;
    }

    static int int32(byte[] b, int offset) {
        return ByteBuffer.wrap(b, offset, 4).getInt();
    }

    static long int64(byte[] b, int offset) {
        return ByteBuffer.wrap(b, offset, 8).getLong();
    }
}
