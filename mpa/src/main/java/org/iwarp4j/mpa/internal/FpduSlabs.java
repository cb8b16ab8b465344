package org.iwarp4j.mpa.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayDeque;

/**
 * Memory for the FPDUs that one encoder copies with markers (RFC 5044 §4.3: markers cut the
 * ULPDU, so each FPDU is written into a buffer of its own): slices of a few larger direct
 * buffers, the slabs, each used again once everything cut from it has been written.
 *
 * <p>Why: an FPDU near 64 KiB per fresh allocation, with megabytes of them queued for the socket,
 * is more than Netty's adaptive allocator keeps between uses; it let go of chunks and took (and
 * zeroed) new ones, and that zeroing was about a third of the sending event loop's time. A slice
 * holds a reference to its slab ({@code retainedSlice}), so a slab whose count is back to this
 * class's own reference has been written and released by the transport, and is reused from its
 * start. At most {@value #MAX_SLABS} slabs of {@value #SLAB_SIZE} octets are kept; past that the
 * oldest is let go (it returns to the allocator once its last FPDU is written). Event loop only;
 * {@link #release()} when the connection closes; after that each FPDU has a buffer of its own.
 */
public final class FpduSlabs {

    /** Octets per slab: four FPDUs of the largest ULPDU (64768 octets, markers and framing included). */
    public static final int SLAB_SIZE = 256 * 1024;

    /** Slabs kept: bounds this encoder's memory to 4 MiB. */
    public static final int MAX_SLABS = 16;

    /** Oldest first; the last one is cut from. */
    private final ArrayDeque<ByteBuf> slabs = new ArrayDeque<>();
    /** Released: no slab is taken again (nothing would release it). */
    private boolean released;

    /**
     * An empty direct buffer of exactly {@code length} octets capacity, for one FPDU; the caller
     * owns it (one reference).
     */
    public ByteBuf take(ByteBufAllocator alloc, int length) {
        if (length > SLAB_SIZE || released) {
            return alloc.directBuffer(length, length);
        }
        ByteBuf slab = slabs.peekLast();
        if (slab == null || slab.writableBytes() < length) {
            slab = nextSlab(alloc);
        }
        return FlushSlab.cut(slab, length);
    }

    private ByteBuf nextSlab(ByteBufAllocator alloc) {
        ByteBuf oldest = slabs.peekFirst();
        if (oldest != null && oldest.refCnt() == 1) { // every FPDU cut from it was written
            slabs.pollFirst();
            slabs.addLast(oldest.clear());
            return oldest;
        }
        if (slabs.size() >= MAX_SLABS) {
            slabs.pollFirst().release();
        }
        ByteBuf slab = alloc.directBuffer(SLAB_SIZE, SLAB_SIZE);
        slabs.addLast(slab);
        return slab;
    }

    /** Slabs held now (for tests). */
    public int slabs() {
        return slabs.size();
    }

    /**
     * Lets every slab go, for good (later FPDUs are allocated on their own); FPDUs still queued
     * keep theirs until they are written or dropped. Idempotent.
     */
    public void release() {
        released = true;
        ByteBuf slab;
        while ((slab = slabs.pollFirst()) != null) {
            slab.release();
        }
    }
}
