package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FuzzInputTest {

    @Test
    void seedZeroIsOneReadAndOtherSeedsCoverTheLengthInBoundedPieces() {
        assertEquals(List.of(100), FuzzInput.chunkSizes(0, 100));
        for (int seed = 1; seed < 256; seed++) {
            List<Integer> sizes = FuzzInput.chunkSizes(seed, 1000);
            assertEquals(1000, sizes.stream().mapToInt(Integer::intValue).sum());
            for (int n : sizes) {
                assertTrue(n >= 1 && n <= 4 * seed, "piece of " + n + " for seed " + seed);
            }
        }
        assertTrue(FuzzInput.chunkSizes(1, 40).size() >= 10, "seed 1 cuts into pieces of at most 4");
        assertEquals(FuzzInput.chunkSizes(7, 500), FuzzInput.chunkSizes(7, 500));
    }

    @Test
    void anUnreleasedBufferOfTheCountingAllocatorIsReported() {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ByteBuf heap = alloc.heapBuffer(10);
        ByteBuf direct = alloc.directBuffer(20);
        assertTrue(FuzzInput.held(alloc) >= 30);
        AssertionError error = assertThrows(AssertionError.class, () -> FuzzInput.assertNothingHeld(alloc));
        assertTrue(error.getMessage().contains("never released"), error.getMessage());
        heap.release();
        direct.release();
        assertEquals(0, FuzzInput.held(alloc));
        FuzzInput.assertNothingHeld(alloc);
    }

    @Test
    void feedWritesThePiecesThroughTheChannelsAllocator() {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        List<Integer> seen = new ArrayList<>();
        EmbeddedChannel channel = FuzzInput.channel(alloc, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf piece = (ByteBuf) msg;
                assertSame(alloc, piece.alloc());
                seen.add(piece.readableBytes());
                piece.release();
            }
        });
        FuzzInput.feed(channel, new byte[50], 2, 3);
        assertEquals(FuzzInput.chunkSizes(3, 48), seen);
        assertFalse(channel.finish());
        FuzzInput.assertNothingHeld(alloc);
    }
}
