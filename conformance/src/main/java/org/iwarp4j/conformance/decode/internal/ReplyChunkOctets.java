package org.iwarp4j.conformance.decode.internal;

import java.util.ArrayList;
import java.util.List;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;

/**
 * What RDMA Writes placed in one Call's Reply chunk, in the order they came (RFC 8166 §3.5.3: the
 * Responder writes the RPC reply there, then sends RDMA_NOMSG). Never more than the chunk's
 * offered length is kept; the caller also bounds what all Calls of one Requester hold ({@link
 * RpcTracker#REPLY_CHUNK_BUDGET}), so {@link #held} is at most that.
 */
final class ReplyChunkOctets {

    /** The length of the chunk the Call offered. */
    final long offered;
    private final List<WrittenMemory.Write> writes = new ArrayList<>();
    /** Octets kept. */
    long held;
    /** Octets written into the chunk but not kept: the reply is then not decoded. */
    long dropped;

    ReplyChunkOctets(WriteChunk chunk) {
        this.offered = chunk.length();
    }

    /** Whether {@code length} more octets fit the offered length; none do once some were dropped. */
    boolean fits(long length) {
        return dropped == 0 && held + length <= offered;
    }

    /** Keeps one Write's payload (already copied out of its ULPDU). */
    void keep(int stag, long to, byte[] octets) {
        writes.add(new WrittenMemory.Write(stag, to, octets));
        held += octets.length;
    }

    /** The Requester's memory as the kept Writes left it, for the Reply. */
    WrittenMemory memory() {
        return WrittenMemory.of(writes);
    }
}
