package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.EnumSet;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.ScatterGatherElement;

/**
 * Send buffers registered once per connection, as Linux's xprtrdma and svcrdma pre-register
 * theirs: a ring of {@code count} slots of the largest Send this end may post (its RFC 8797 Send
 * Size, which bounds the inline threshold, RFC 8166 §3.3.2), in one local-only region. A Send
 * copies its octets into a free slot instead of registering (and later invalidating and
 * deregistering) a region of its own; registering costs an STag from the RNIC's random source and
 * a table update each time.
 *
 * <p>A slot belongs to its Send until the Send's work completion: the RNIC completes a Send only
 * after its last segment has been written to the socket, so the octets are no longer read from the
 * slot by then. The ring's memory is this object's and is released by {@link #close}; slices the
 * RNIC may still hold keep it alive until they are released. Thread-safe: Sends are posted from any
 * thread, completions arrive on the event loop.
 */
final class SendSlots {

    private final ByteBuf memory;
    private final MemoryRegion region;
    private final int slotSize;
    private final int[] free;
    private int freeCount;
    private boolean closed;

    SendSlots(ProtectionDomain pd, int slotSize, int count) {
        this.slotSize = slotSize;
        int total = slotSize * count;
        this.memory = PooledByteBufAllocator.DEFAULT.directBuffer(total, total);
        memory.writerIndex(total); // never sent beyond what a Send copied in, so not zeroed
        this.region = pd.register(memory, EnumSet.noneOf(Access.class)); // the peer never reaches it
        this.free = new int[count];
        for (int i = 0; i < count; i++) {
            free[i] = count - 1 - i;
        }
        this.freeCount = count;
    }

    /**
     * Copies {@code message}'s readable octets (not released here) into a free slot and returns the
     * slot's SGE for them, or {@code null} if the message is larger than a slot, no slot is free or
     * the ring is closed: the caller then registers the message itself.
     */
    synchronized ScatterGatherElement take(ByteBuf message) {
        int n = message.readableBytes();
        if (closed || freeCount == 0 || n > slotSize) {
            return null;
        }
        int slot = free[--freeCount];
        int offset = slot * slotSize;
        memory.setBytes(offset, message, message.readerIndex(), n); // under the lock: close() cannot free it meanwhile
        return region.sge(offset, n);
    }

    /** Gives back the slot of an SGE from {@link #take}, once its Send has completed (in any way). */
    synchronized void give(ScatterGatherElement sge) {
        free[freeCount++] = (int) (sge.offset() / slotSize);
    }

    synchronized int freeSlots() {
        return freeCount;
    }

    int slotSize() {
        return slotSize;
    }

    /** Deregisters the ring and releases this object's reference to its memory; idempotent. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        region.close();
        memory.release();
    }
}
