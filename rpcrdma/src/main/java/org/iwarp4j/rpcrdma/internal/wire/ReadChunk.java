package org.iwarp4j.rpcrdma.internal.wire;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Read chunk (RFC 8166 §3.4.5): the read segments of a Read list that share one Position, in
 * list order. The Read list on the wire is flat; this is its grouping.
 */
public record ReadChunk(long position, List<RdmaSegment> segments) {

    public ReadChunk {
        segments = List.copyOf(segments);
    }

    /** The sum of the segment lengths. */
    public long length() {
        long total = 0;
        for (RdmaSegment s : segments) {
            total += s.length();
        }
        return total;
    }

    /**
     * Groups a Read list into chunks by Position (§4.3.1), in order of first appearance; segments
     * keep their list order within a chunk (§3.4.5).
     */
    public static List<ReadChunk> group(List<ReadSegment> readList) {
        if (readList.isEmpty()) {
            return List.of(); // most Calls (every NFS READ): no map or lists for nothing
        }
        if (readList.size() == 1) {
            // One segment (a 1 MiB NFS WRITE's data item): one chunk, without the map and its lists.
            ReadSegment only = readList.get(0);
            return List.of(new ReadChunk(only.position(), List.of(only.target())));
        }
        Map<Long, List<RdmaSegment>> byPosition = new LinkedHashMap<>();
        for (ReadSegment s : readList) {
            byPosition.computeIfAbsent(s.position(), p -> new ArrayList<>()).add(s.target());
        }
        List<ReadChunk> chunks = new ArrayList<>(byPosition.size());
        byPosition.forEach((position, segs) -> chunks.add(new ReadChunk(position, segs)));
        return chunks;
    }

    /** The chunk's segments as a Read list fragment, each carrying the chunk's Position. */
    public List<ReadSegment> toReadSegments() {
        List<ReadSegment> out = new ArrayList<>(segments.size());
        for (RdmaSegment s : segments) {
            out.add(new ReadSegment(position, s));
        }
        return out;
    }
}
