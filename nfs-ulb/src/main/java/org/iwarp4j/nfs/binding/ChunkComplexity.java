package org.iwarp4j.nfs.binding;

/**
 * Chunk list complexity for NFSv4 (RFC 8267 §6.4.2): how many Read chunks, Write chunks and
 * segments per chunk one RPC-over-RDMA message may carry. A client that does not know a server's
 * limits SHOULD stay within {@link #RFC_8267_MINIMUM}; a server MUST accept at least that much and
 * SHOULD answer anything beyond its own limits with ERR_CHUNK (transport header) or GARBAGE_ARGS
 * (XDR reassembly), after which the client SHOULD NOT retransmit.
 *
 * @param positionZeroReadChunk whether a Position-Zero Read chunk is accepted
 * @param nonZeroReadChunks Read chunks at a non-zero Position
 * @param writeChunks Write chunks in the Write list
 * @param segmentsPerChunk RDMA segments in any one chunk (Read, Write or Reply)
 */
public record ChunkComplexity(boolean positionZeroReadChunk, int nonZeroReadChunks, int writeChunks,
                              int segmentsPerChunk) {

    /** What every NFSv4 server MUST accept: a PZRC and/or one Read chunk, one Write chunk, 16 segments. */
    public static final ChunkComplexity RFC_8267_MINIMUM = new ChunkComplexity(true,
            NfsBindingConstants.NFS4_MIN_ACCEPTED_NONZERO_READ_CHUNKS,
            NfsBindingConstants.NFS4_MIN_ACCEPTED_WRITE_CHUNKS,
            NfsBindingConstants.NFS4_MIN_ACCEPTED_SEGMENTS_PER_CHUNK);

    public ChunkComplexity {
        if (nonZeroReadChunks < 0 || writeChunks < 0 || segmentsPerChunk < 0) {
            throw new IllegalArgumentException("negative limit");
        }
    }

    /**
     * A server's limits: at least {@link #RFC_8267_MINIMUM} in every respect, since a server MUST
     * accept requests within it.
     */
    public static ChunkComplexity serverLimits(int nonZeroReadChunks, int writeChunks, int segmentsPerChunk) {
        if (nonZeroReadChunks < RFC_8267_MINIMUM.nonZeroReadChunks || writeChunks < RFC_8267_MINIMUM.writeChunks
                || segmentsPerChunk < RFC_8267_MINIMUM.segmentsPerChunk) {
            throw new IllegalArgumentException("an NFSv4 server MUST accept at least " + RFC_8267_MINIMUM);
        }
        return new ChunkComplexity(true, nonZeroReadChunks, writeChunks, segmentsPerChunk);
    }

    /**
     * The shape of one message's chunk lists.
     *
     * @param positionZeroReadChunk whether it has a Position-Zero Read chunk
     * @param nonZeroReadChunks its Read chunks at non-zero Positions (distinct Positions)
     * @param writeChunks its Write chunks
     * @param largestChunkSegments the segment count of its largest chunk, Reply chunk included
     */
    public record Shape(boolean positionZeroReadChunk, int nonZeroReadChunks, int writeChunks,
                        int largestChunkSegments) {
    }

    /** Whether a message of that shape is within these limits. */
    public boolean permits(Shape shape) {
        return (!shape.positionZeroReadChunk() || positionZeroReadChunk)
                && shape.nonZeroReadChunks() <= nonZeroReadChunks
                && shape.writeChunks() <= writeChunks
                && shape.largestChunkSegments() <= segmentsPerChunk;
    }
}
