package org.iwarp4j.mpa.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Memory for the small buffers one flush of an encoder sends without markers: per large FPDU the
 * one with ULPDU_Length and the header (after the previous FPDU's held PAD and CRC, RFC 5044 §4),
 * and a trailer written on its own at the flush. They are slices of one direct buffer of
 * {@value #SLAB_SIZE} octets, the slab, instead of an allocation each.
 *
 * <p>Why: a 1 MiB RDMA Write is 16 FPDUs of 64 KiB, each with such a buffer of 20 to 27 octets.
 * Allocating each, with the leak detector's sampling of allocations (a stack trace each time it
 * samples one) and releases, was 5.6 % of the sending event loop's profile samples in a 1 MiB
 * Write benchmark; cut from a slab, 1.3 % (docs/performance-log.md, fourth session). A slice only
 * moves the slab's writer index and takes a reference to it.
 *
 * <p>The slab is let go at the end of each flush ({@link #endFlush}), and when full: this
 * class then holds no memory, so an idle connection keeps none (10,000 queue pairs need that);
 * the slab returns to the allocator when the transport has released its last slice. A connection
 * whose socket is backed up keeps the slab of each flush still queued, 2 KiB instead of the 20 to
 * 27 octets its unsent small buffers hold. So a flush
 * costs one allocation per {@value #SLAB_SIZE} octets of such buffers (at least 75 FPDUs, 4.7 MiB
 * of 64 KiB FPDUs) instead of one per FPDU. Event loop only.
 */
public final class FlushSlab {

    /** Octets per slab: at least 75 FPDUs' small buffers (at most 7 + 2 + 18 octets each). */
    public static final int SLAB_SIZE = 2048;

    private ByteBuf slab;
    /** Released for good: every later buffer is an allocation of its own. */
    private boolean released;

    /**
     * An empty direct buffer of exactly {@code length} octets capacity; the caller owns it (one
     * reference), normally to write it downstream.
     */
    public ByteBuf take(ByteBufAllocator alloc, int length) {
        if (length > SLAB_SIZE || released) {
            return alloc.directBuffer(length, length);
        }
        ByteBuf current = slab;
        if (current == null || current.writableBytes() < length) {
            endFlush();
            current = alloc.directBuffer(SLAB_SIZE, SLAB_SIZE);
            slab = current;
        }
        return cut(current, length);
    }

    /**
     * The next {@code length} octets of {@code slab} from its writer index, which moves past them,
     * as an empty slice that holds a reference to {@code slab}.
     */
    static ByteBuf cut(ByteBuf slab, int length) {
        int at = slab.writerIndex();
        slab.writerIndex(at + length);
        return slab.retainedSlice(at, length).clear();
    }

    /**
     * The flush is over: the slab is let go (its slices keep it until the transport has released
     * them); the next buffer starts a new one.
     */
    public void endFlush() {
        ByteBuf current = slab;
        if (current != null) {
            slab = null;
            current.release();
        }
    }

    /** Lets the slab go for good (the channel closed); later buffers are allocated one by one. Idempotent. */
    public void release() {
        released = true;
        endFlush();
    }

    /** Whether a slab is held now (for tests). */
    public boolean holdsSlab() {
        return slab != null;
    }
}
