package org.iwarp4j.rpcrdma.internal.wire;

/**
 * What a receiver accepts in chunk lists (RFC 8166 §4.5.2 "chunk complexity", §8.1.4): more than
 * this is {@link HeaderProblem#LIMIT_EXCEEDED}. Counts are checked against the octets the message
 * actually holds before anything is allocated, so a peer can make the decoder hold at most one
 * list entry per 16 received octets.
 *
 * @param maxReadSegments read segments in one Read list
 * @param maxWriteChunks Write chunks in one Write list
 * @param maxSegmentsPerChunk segments in one Write chunk or Reply chunk
 * @param maxChunkLength octets one chunk (Read chunk, Write chunk or Reply chunk) may describe
 */
public record HeaderLimits(int maxReadSegments, int maxWriteChunks, int maxSegmentsPerChunk, long maxChunkLength) {

    /** 64 read segments, 16 Write chunks, 64 segments a chunk, 16 MiB a chunk. */
    public static final HeaderLimits DEFAULT = new HeaderLimits(64, 16, 64, 16L << 20);

    public HeaderLimits {
        if (maxReadSegments < 0 || maxWriteChunks < 0 || maxSegmentsPerChunk < 0 || maxChunkLength < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
    }
}
