package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory RDMA data of one connection lands in (RFC 8166 §3.4.5 Read chunks a Responder pulls,
 * draft-cel-nfsv4-rpcrdma-reliable-reply-02 §4.1.2 Position-Zero chunks a Requester pulls, and the
 * Write and Reply chunks a Requester provides, §3.4.6, which the Responder RDMA Writes into): a few
 * buffers kept for the connection's life and lent out again and again, so that a steady stream of
 * 1 MiB NFS WRITEs or READs does not allocate a fresh 1 MiB buffer per Call. Each loan is
 * registered for one RPC only and that registration ends before the RPC does: the memory is
 * reused, a registration never is.
 *
 * <p>A sink is a retained slice of a kept buffer. A kept buffer is free again when every buffer
 * derived from it has been released, which its reference count shows (1: only this pool holds it),
 * however the data travelled on (slices, composites of the Call or Reply). When every kept buffer
 * is busy, or the length is over {@code maxKeptSize}, the sink is a plain allocation, as before.
 *
 * <p>The NFS server's READ buffers come from one of these too (one per server, shared by its
 * connections of both transports), for the same reason.
 *
 * <p><b>Bounds and ownership:</b> at most {@code maxKept} buffers of at most {@code maxKeptSize}
 * octets each, and no more than the {@link KeptBufferQuota} shared with the other connections of
 * the server allows. The caller of {@link #take} releases what it got, whichever kind. {@link #close}
 * (when the connection closes) releases the pool's own reference; a sink still lent out keeps its
 * buffer until the holder releases it. Thread-safe.
 */
public final class ReadSinks {

    /** A kept buffer is at least this big, so small chunks of various sizes share one. */
    static final int MIN_KEPT_SIZE = 64 * 1024;

    private final ByteBufAllocator alloc;
    private final int maxKept;
    private final int maxKeptSize;
    private final KeptBufferQuota quota;
    // Guarded by this:
    private final List<ByteBuf> kept = new ArrayList<>();
    private boolean closed;

    public ReadSinks(ByteBufAllocator alloc, int maxKept, int maxKeptSize) {
        this(alloc, maxKept, maxKeptSize, KeptBufferQuota.unbounded());
    }

    /** As {@link #ReadSinks(ByteBufAllocator, int, int)}, keeping a buffer only as {@code quota} allows. */
    public ReadSinks(ByteBufAllocator alloc, int maxKept, int maxKeptSize, KeptBufferQuota quota) {
        this.alloc = alloc;
        this.maxKept = maxKept;
        this.maxKeptSize = maxKeptSize;
        this.quota = quota;
    }

    /**
     * A sink of exactly {@code length} octets (capacity and writer index {@code length}, contents
     * undefined: an RDMA Read completes only once it placed every octet, RDMAP-R-019; of memory a
     * peer's RDMA Writes fill, a Requester returns only what they placed in order from its start,
     * {@code MemoryRegion#peerPlacedPrefix}). The caller releases it.
     */
    public ByteBuf take(int length) {
        ByteBuf sink = lend(length);
        if (sink == null) {
            sink = alloc.directBuffer(length, length);
        }
        return sink.writerIndex(length);
    }

    private synchronized ByteBuf lend(int length) {
        if (closed || length == 0 || length > maxKeptSize) {
            return null;
        }
        int replaceable = -1;
        ByteBuf best = null;
        for (int i = 0; i < kept.size(); i++) {
            ByteBuf b = kept.get(i);
            if (b.refCnt() == 1) { // nobody holds anything derived from it any more
                if (b.capacity() >= length) {
                    // The smallest that fits: a 4-octet chunk taking a free 1 MiB buffer would leave
                    // the next 1 MiB chunk to replace (free and allocate) a small one.
                    if (best == null || b.capacity() < best.capacity()) {
                        best = b;
                    }
                } else {
                    replaceable = i;
                }
            }
        }
        if (best != null) {
            return best.retainedSlice(0, length);
        }
        int size = Math.min(maxKeptSize, Math.max(MIN_KEPT_SIZE, Integer.highestOneBit(length - 1) << 1));
        if (kept.size() < maxKept && quota.tryTake()) {
            kept.add(alloc.directBuffer(size, size));
            return kept.get(kept.size() - 1).retainedSlice(0, length);
        }
        if (replaceable >= 0) { // a free one that is too small gives way to a bigger one
            kept.get(replaceable).release();
            kept.set(replaceable, alloc.directBuffer(size, size));
            return kept.get(replaceable).retainedSlice(0, length);
        }
        return null;
    }

    /** How many buffers the pool keeps now. */
    public synchronized int kept() {
        return kept.size();
    }

    /** Releases the kept buffers (sinks still lent out stay usable until released). Idempotent. */
    public synchronized void close() {
        closed = true;
        quota.give(kept.size());
        kept.forEach(ByteBuf::release);
        kept.clear();
    }
}
