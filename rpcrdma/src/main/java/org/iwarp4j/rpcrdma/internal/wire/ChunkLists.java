package org.iwarp4j.rpcrdma.internal.wire;

import java.util.List;
import java.util.Optional;

/**
 * The three chunk lists of an RDMA_MSG, RDMA_NOMSG or RDMA_MSGP header (RFC 8166 §4.3): the Read
 * list (flat read segments), the Write list (Write chunks) and the optional Reply chunk.
 */
public record ChunkLists(List<ReadSegment> readList, List<WriteChunk> writeList, Optional<WriteChunk> replyChunk) {

    /** All three marked not present: the common case (§4.3). */
    public static final ChunkLists NONE = new ChunkLists(List.of(), List.of(), Optional.empty());

    public ChunkLists {
        readList = List.copyOf(readList);
        writeList = List.copyOf(writeList);
        replyChunk = java.util.Objects.requireNonNull(replyChunk);
    }

    /** No read segment, no Write chunk, no Reply chunk. */
    public boolean isEmpty() {
        return readList.isEmpty() && writeList.isEmpty() && replyChunk.isEmpty();
    }

    /** The Read list grouped into Read chunks by Position. */
    public List<ReadChunk> readChunks() {
        return ReadChunk.group(readList);
    }

    /** Octets of the three lists in XDR (§4.7). */
    public int encodedLength() {
        int n = RpcRdmaConstants.WORD + readList.size() * (RpcRdmaConstants.WORD + RpcRdmaConstants.READ_SEGMENT_LENGTH);
        n += RpcRdmaConstants.WORD;
        for (WriteChunk w : writeList) {
            n += RpcRdmaConstants.WORD + w.encodedLength();
        }
        n += RpcRdmaConstants.WORD + replyChunk.map(WriteChunk::encodedLength).orElse(0);
        return n;
    }
}
