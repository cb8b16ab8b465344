package org.iwarp4j.rpcrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A pooled allocator that records the initial capacity of every direct buffer asked of it. */
public final class RecordingAllocator extends PooledByteBufAllocator {

    private final List<Integer> direct = new CopyOnWriteArrayList<>();

    public RecordingAllocator() {
        super(true);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        direct.add(initialCapacity);
        return super.newDirectBuffer(initialCapacity, maxCapacity);
    }

    /** The initial capacities asked for so far, in order. */
    public List<Integer> directRequests() {
        return List.copyOf(direct);
    }

    /** The largest initial capacity asked for so far, 0 if none. */
    public int largestDirectRequest() {
        return direct.stream().mapToInt(Integer::intValue).max().orElse(0);
    }
}
