package org.iwarp4j.rpcrdma.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The grouping of a flat Read list into Read chunks (RFC 8166 §3.4.5, §4.3.1) and the XDR length
 * of the chunk lists (§4.7), which a Requester computes before it builds them.
 */
class ChunkListsTest {

    private static RdmaSegment segment(int handle, long length) {
        return new RdmaSegment(handle, length, 0x1000L * handle);
    }

    @Test
    void aReadListOfOneSegmentIsOneChunk() {
        RdmaSegment s = segment(7, 1 << 20);
        assertThat(ReadChunk.group(List.of(new ReadSegment(132, s))))
                .containsExactly(new ReadChunk(132, List.of(s)));
    }

    @Test
    void segmentsAreGroupedByPositionInOrderOfFirstAppearance() {
        RdmaSegment a = segment(1, 100);
        RdmaSegment b = segment(2, 200);
        RdmaSegment c = segment(3, 300);
        RdmaSegment d = segment(4, 400);
        List<ReadChunk> chunks = ReadChunk.group(List.of(new ReadSegment(40, a), new ReadSegment(8, b),
                new ReadSegment(40, c), new ReadSegment(8, d)));
        assertThat(chunks).containsExactly(new ReadChunk(40, List.of(a, c)), new ReadChunk(8, List.of(b, d)));
        assertThat(chunks.get(0).length()).isEqualTo(400);
        assertThat(ReadChunk.group(List.of())).isEmpty();
    }

    @Test
    void theLengthWithoutTheListsIsTheLengthOfTheLists() {
        List<ReadSegment> reads = List.of(new ReadSegment(0, segment(1, 10)), new ReadSegment(0, segment(2, 20)));
        List<WriteChunk> writes = List.of(new WriteChunk(List.of(segment(3, 30))),
                new WriteChunk(List.of(segment(4, 40), segment(5, 50))));
        Optional<WriteChunk> reply = Optional.of(new WriteChunk(List.of(segment(6, 60))));
        for (List<ReadSegment> r : List.of(List.<ReadSegment>of(), reads)) {
            for (List<WriteChunk> w : List.of(List.<WriteChunk>of(), writes)) {
                for (Optional<WriteChunk> c : List.of(Optional.<WriteChunk>empty(), reply)) {
                    assertThat(ChunkLists.encodedLength(r.size(), w, c))
                            .isEqualTo(new ChunkLists(r, w, c).encodedLength());
                }
            }
        }
        // §4.3: three absent lists are three words; a read segment is a Position and an RDMA segment.
        assertThat(ChunkLists.NONE.encodedLength()).isEqualTo(12);
        assertThat(ChunkLists.encodedLength(1, List.of(), Optional.empty())).isEqualTo(12 + 4 + 4 + 16);
    }
}
