package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.iwarp4j.tools.bench.WindowRotation.Side;
import org.junit.jupiter.api.Test;

/**
 * The three measurements of an interleaved window take turns: over three windows each goes first,
 * second and third once; {@code --order tcp-first} starts the rotation with raw TCP.
 */
class WindowRotationTest {

    @Test
    void rdmaFirstRotatesAllThreeStartingWithRdma() {
        assertThat(WindowRotation.of(0, BenchRunner.Order.RDMA_FIRST)).containsExactly(Side.RDMA, Side.RAW_TCP,
                Side.TCP_COPY);
        assertThat(WindowRotation.of(1, BenchRunner.Order.RDMA_FIRST)).containsExactly(Side.RAW_TCP, Side.TCP_COPY,
                Side.RDMA);
        assertThat(WindowRotation.of(2, BenchRunner.Order.RDMA_FIRST)).containsExactly(Side.TCP_COPY, Side.RDMA,
                Side.RAW_TCP);
        assertThat(WindowRotation.of(3, BenchRunner.Order.RDMA_FIRST)).isEqualTo(WindowRotation.of(0,
                BenchRunner.Order.RDMA_FIRST));
    }

    @Test
    void tcpFirstStartsTheRotationWithRawTcp() {
        assertThat(WindowRotation.of(0, BenchRunner.Order.TCP_FIRST)).containsExactly(Side.RAW_TCP, Side.TCP_COPY,
                Side.RDMA);
        for (int window = 0; window < 6; window++) {
            assertThat(WindowRotation.of(window, BenchRunner.Order.TCP_FIRST))
                    .isEqualTo(WindowRotation.of(window + 1, BenchRunner.Order.RDMA_FIRST));
        }
    }

    @Test
    void overThreeWindowsEachTakesEveryPlaceOnce() {
        for (BenchRunner.Order order : BenchRunner.Order.values()) {
            for (Side side : Side.values()) {
                List<Integer> places = List.of(0, 1, 2).stream()
                        .map(w -> WindowRotation.of(w, order).indexOf(side)).toList();
                assertThat(places).as(order + " " + side).containsExactlyInAnyOrder(0, 1, 2);
            }
        }
    }
}
