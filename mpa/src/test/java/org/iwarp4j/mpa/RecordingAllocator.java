package org.iwarp4j.mpa;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * An allocator for an encoder's channel that remembers every direct buffer it hands out (unpooled),
 * so a test can count an encoder's allocations and check that each was released.
 */
final class RecordingAllocator extends AbstractByteBufAllocator {

    /** The direct buffers handed out, oldest first. */
    final List<ByteBuf> direct = new ArrayList<>();

    RecordingAllocator() {
        super(true);
    }

    /** The last direct buffer handed out. */
    ByteBuf lastDirect() {
        return direct.get(direct.size() - 1);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf buf = UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
        direct.add(buf);
        return buf;
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }
}
