package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.SplittableRandom;

/** Deterministic pseudo-random payloads. */
final class Payloads {

    private Payloads() {
    }

    static byte[] bytes(int size, long seed) {
        byte[] bytes = new byte[size];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    /** A direct buffer of {@code size} pseudo-random octets from {@code alloc}. */
    static ByteBuf direct(ByteBufAllocator alloc, int size, long seed) {
        ByteBuf buf = alloc.directBuffer(size, size);
        buf.writeBytes(bytes(size, seed));
        return buf;
    }
}
