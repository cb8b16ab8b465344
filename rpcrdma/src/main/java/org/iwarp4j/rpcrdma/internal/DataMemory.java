package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;

/**
 * Where the large buffers of RPC-over-RDMA data come from: the memory RDMA Reads and the peer's
 * RDMA Writes land in ({@link ReadSinks}, when its kept buffers are busy) and the buffers a
 * Requester's callers fill with data to send ({@code RpcRdmaRequester.alloc()}).
 *
 * <p>Not {@code PooledByteBufAllocator.DEFAULT}: it serves a 1 MiB buffer from a 4 MiB arena
 * chunk, frees a chunk as soon as its last buffer is released and creates (and zeroes) a new one
 * on the next allocation, so a stream of 1 MiB NFS READs or WRITEs with a few in flight made it
 * allocate and zero a chunk every few calls (Netty's {@code io.netty.AllocateChunk} JFR event
 * counted 16 such chunks for the Read sinks and 8 for Write-chunk targets in 192 calls of each).
 * The adaptive allocator keeps its chunks for reuse, within its own bounds. It is what plain Netty
 * TCP channels allocate from by default, so both transports of an NFS client now fill their
 * WRITE buffers from the same kind of allocator.
 */
public final class DataMemory {

    /** Direct buffers, shared by every connection of the process (thread-safe). */
    public static final ByteBufAllocator ALLOCATOR = new AdaptiveByteBufAllocator(true);

    private DataMemory() {
    }
}
