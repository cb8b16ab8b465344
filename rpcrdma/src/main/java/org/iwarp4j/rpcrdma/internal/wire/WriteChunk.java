package org.iwarp4j.rpcrdma.internal.wire;

import java.util.List;

/**
 * A Write chunk, {@code xdr_write_chunk} (RFC 8166 §3.4.6, §4.1.2): a counted array of plain
 * segments the Responder fills in order. Also the shape of the Reply chunk (§4.3.3). A chunk with
 * no segments is an empty Write chunk (§4.3.2.3); one whose segments all have length 0 is unused.
 */
public record WriteChunk(List<RdmaSegment> segments) {

    public WriteChunk {
        segments = List.copyOf(segments);
    }

    public static WriteChunk of(RdmaSegment... segments) {
        return new WriteChunk(List.of(segments));
    }

    /** The sum of the segment lengths: the chunk's length (§3.4.4). */
    public long length() {
        long total = 0;
        for (RdmaSegment s : segments) {
            total += s.length();
        }
        return total;
    }

    /** No segments (§4.3.2.3). */
    public boolean isEmpty() {
        return segments.isEmpty();
    }

    /**
     * The chunk as a Responder returns it after writing {@code written} octets into it: segments
     * filled in order, the rest with length 0, the segment count unchanged (§3.4.6, §4.3.2.2).
     *
     * @throws IllegalArgumentException if {@code written} is more than the chunk holds
     */
    public WriteChunk withWritten(long written) {
        if (written < 0 || written > length()) {
            throw new IllegalArgumentException(written + " octets do not fit a chunk of " + length());
        }
        RdmaSegment[] out = new RdmaSegment[segments.size()];
        long left = written;
        for (int i = 0; i < out.length; i++) {
            RdmaSegment s = segments.get(i);
            long n = Math.min(left, s.length());
            out[i] = s.withLength(n);
            left -= n;
        }
        return new WriteChunk(List.of(out));
    }

    /** Octets of this chunk in XDR: the count and the segments. */
    public int encodedLength() {
        return RpcRdmaConstants.WORD + segments.size() * RpcRdmaConstants.SEGMENT_LENGTH;
    }
}
