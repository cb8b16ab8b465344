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
        return encodedLength(readList.size(), writeList, replyChunk);
    }

    /**
     * Octets in XDR (§4.7) of lists with {@code readSegments} read segments, {@code writeList} and
     * {@code replyChunk}, without building them: a Requester sizes its header this way up to three
     * times per Call before it knows which lists it sends.
     */
    public static int encodedLength(int readSegments, List<WriteChunk> writeList, Optional<WriteChunk> replyChunk) {
        int n = RpcRdmaConstants.WORD + readSegments * (RpcRdmaConstants.WORD + RpcRdmaConstants.READ_SEGMENT_LENGTH);
        n += RpcRdmaConstants.WORD;
        for (int i = 0; i < writeList.size(); i++) {
            n += RpcRdmaConstants.WORD + writeList.get(i).encodedLength();
        }
        n += RpcRdmaConstants.WORD + (replyChunk.isPresent() ? replyChunk.get().encodedLength() : 0);
        return n;
    }
}
