package org.iwarp4j.tools.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The order of RDMA, raw TCP and TCP with copy within each window of an interleaved size ({@code
 * --interleave}): rotated one step every window, so that over three windows each goes first, second
 * and third once, and none always runs right after the same other (the one before leaves the
 * caches, the CPU's frequency and the JIT's queue as it leaves them). With {@link
 * BenchRunner.Order#TCP_FIRST} the rotation starts one step on, with raw TCP. It used to keep RDMA
 * first in every window, raw TCP and TCP with copy alone taking turns behind it.
 */
final class WindowRotation {

    /** One of the three measurements of a window. */
    enum Side {
        RDMA,
        RAW_TCP,
        TCP_COPY
    }

    private static final List<Side> SIDES = List.of(Side.values());

    private WindowRotation() {
    }

    /** The three in the order window {@code window} (from 0) measures them. */
    static List<Side> of(int window, BenchRunner.Order order) {
        int shift = (window + (order == BenchRunner.Order.TCP_FIRST ? 1 : 0)) % SIDES.size();
        List<Side> sides = new ArrayList<>(SIDES.size());
        for (int i = 0; i < SIDES.size(); i++) {
            sides.add(SIDES.get((i + shift) % SIDES.size()));
        }
        return sides;
    }
}
