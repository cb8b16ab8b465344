package org.iwarp4j.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Helpers shared by the {@code *FuzzTarget} classes: TCP-like chunking derived from the fuzz input
 * itself (so that a finding replays exactly), and an allocator that counts what is still held, so
 * a leak is found per input, at once, rather than when the garbage collector gets to it.
 */
public final class FuzzInput {

    private FuzzInput() {
    }

    /**
     * Piece sizes that add up to {@code length}: {@code seed} 0 is one piece; otherwise the sizes
     * come from a small generator seeded with {@code seed} and lie in {@code [1, 4 * seed]}, so
     * small seeds give the one-octet reads that split every field.
     */
    public static List<Integer> chunkSizes(int seed, int length) {
        List<Integer> sizes = new ArrayList<>();
        if (seed == 0) {
            sizes.add(length);
            return sizes;
        }
        int max = 4 * seed;
        int state = 0x9E3779B9 * seed;
        for (int done = 0; done < length; ) {
            state ^= state << 13;
            state ^= state >>> 17;
            state ^= state << 5;
            int n = Math.min(length - done, 1 + Integer.remainderUnsigned(state, max));
            sizes.add(n);
            done += n;
        }
        return sizes;
    }

    /**
     * Writes {@code bytes[offset..]} inbound in the pieces of {@link #chunkSizes}, each a buffer of
     * the channel's allocator (which the channel's handlers release).
     */
    public static void feed(EmbeddedChannel channel, byte[] bytes, int offset, int chunkSeed) {
        int at = offset;
        for (int n : chunkSizes(chunkSeed, bytes.length - offset)) {
            ByteBuf piece = channel.alloc().buffer(n).writeBytes(bytes, at, n);
            at += n;
            channel.writeInbound(piece);
            if (!channel.isOpen()) {
                return;
            }
        }
    }

    /** A fresh allocator whose {@link #held} counts every octet allocated through it and not yet freed. */
    public static UnpooledByteBufAllocator countingAllocator() {
        return new UnpooledByteBufAllocator(false);
    }

    /** Octets allocated through {@code alloc} and not released. */
    public static long held(UnpooledByteBufAllocator alloc) {
        return alloc.metric().usedHeapMemory() + alloc.metric().usedDirectMemory();
    }

    /** Throws an {@link AssertionError} if any buffer of {@code alloc} is still held. */
    public static void assertNothingHeld(UnpooledByteBufAllocator alloc) {
        long held = held(alloc);
        if (held != 0) {
            throw new AssertionError(held + " octets allocated while decoding this input were never released");
        }
    }

    /** An {@link EmbeddedChannel} that allocates through {@code alloc}, with {@code handlers}. */
    public static EmbeddedChannel channel(ByteBufAllocator alloc, ChannelHandler... handlers) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast(handlers);
        return channel;
    }
}
