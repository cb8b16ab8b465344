package org.iwarp4j.conformance.decode.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.junit.jupiter.api.Test;

/** {@link OfferedSegments} against segments offered in the order a capture would choose to hurt it. */
class OfferedSegmentsTest {

    private static final int SEGMENTS = 65_536; // the most one chunk can list

    /**
     * One handle's segments added in an order that made the old treap a chain: its priorities were
     * a hash of the insertion number, so offsets ranked by that hash put every node on one path,
     * and split recursed 65,536 deep (StackOverflowError) after O(n^2) work. RPC-R-081 and
     * RPC-R-082 look a transfer up in this index for every RDMA Write and Read Request.
     */
    @Test
    void offsetsOrderedByTheOldPrioritiesStayFastAndRight() {
        Integer[] byOldPriority = IntStream.range(0, SEGMENTS).boxed().toArray(Integer[]::new);
        Arrays.sort(byOldPriority, Comparator.comparingInt(id -> Long.hashCode(id * 0x9E3779B97F4A7C15L)));
        long[] offsetOf = new long[SEGMENTS];
        for (int rank = 0; rank < SEGMENTS; rank++) {
            offsetOf[byOldPriority[rank]] = 2L * rank;
        }
        OfferedSegments<Integer> index = new OfferedSegments<>();
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            for (int id = 0; id < SEGMENTS; id++) {
                index.add(id % 2, new RdmaSegment(7, 2, offsetOf[id]), id);
            }
            for (int id = 0; id < SEGMENTS; id++) {
                assertThat(index.find(7, offsetOf[id] + 1, 1)).isEqualTo(id);
                assertThat(index.find(7, offsetOf[id], 2)).isEqualTo(id);
            }
            assertThat(index.find(7, 1, 2)).as("spans two segments, held by neither").isNull();
            index.removeOwner(0);
            for (int id = 0; id < SEGMENTS; id++) {
                assertThat(index.find(7, offsetOf[id], 2)).isEqualTo(id % 2 == 0 ? null : id);
            }
        });
    }
}
