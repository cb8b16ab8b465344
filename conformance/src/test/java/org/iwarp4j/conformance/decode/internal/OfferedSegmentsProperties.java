package org.iwarp4j.conformance.decode.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;

/**
 * {@link OfferedSegments} against a list searched one segment at a time: segments of two handles
 * that overlap freely, added by owners and removed owner by owner, within a window of 64 offsets at
 * 0 or at the top of the unsigned offset space; a transfer is found exactly when some kept segment
 * holds it.
 */
class OfferedSegmentsProperties {

    private record Kept(int owner, RdmaSegment segment) {
    }

    /** {owner, handle, offset, length} to add, or {owner, -1, ...} to remove the owner's segments. */
    @Provide
    Arbitrary<List<int[]>> steps() {
        return Combinators.combine(Arbitraries.integers().between(0, 5), Arbitraries.integers().between(-1, 2),
                Arbitraries.integers().between(0, 63), Arbitraries.integers().between(0, 30))
                .as((owner, handle, offset, length) -> new int[] {owner, handle, offset, length}).list().ofMaxSize(30);
    }

    @Provide
    Arbitrary<Long> base() {
        return Arbitraries.of(0L, -48L);
    }

    @Property(tries = 400)
    void findsASegmentExactlyWhenOneHoldsTheTransfer(@ForAll("steps") List<int[]> steps, @ForAll("base") long base,
            @ForAll("steps") List<int[]> queries) {
        OfferedSegments<Kept> index = new OfferedSegments<>();
        List<Kept> model = new ArrayList<>();
        for (int[] step : steps) {
            if (step[1] < 0) {
                index.removeOwner(step[0]);
                model.removeIf(k -> k.owner() == step[0]);
            } else {
                Kept k = new Kept(step[0], new RdmaSegment(step[1], step[3], base + step[2]));
                index.add(k.owner(), k.segment(), k);
                model.add(k);
            }
        }
        for (int[] q : queries) {
            int handle = Math.max(0, q[1]);
            long to = base + q[2];
            int length = q[3];
            Kept found = index.find(handle, to, length);
            boolean exists = model.stream().anyMatch(k -> holds(k.segment(), handle, to, length));
            assertThat(found != null).as("handle %d to %x length %d", handle, to, length).isEqualTo(exists);
            if (found != null) {
                assertThat(holds(found.segment(), handle, to, length)).isTrue();
                // Whatever shape the random priorities gave the tree: the first added of those that reach furthest.
                assertThat(found).isSameAs(model.stream().filter(k -> holds(k.segment(), handle, to, length))
                        .max(Comparator.comparing(k -> last(k.segment()), Long::compareUnsigned)).orElseThrow());
            }
            RdmaSegment near = index.near(handle, to);
            assertThat(near != null).isEqualTo(model.stream().anyMatch(k -> k.segment().handle() == handle
                    && k.segment().length() > 0));
        }
    }

    /** Every octet of the transfer lies in the segment; a segment running past 2^64 ends there. */
    private static boolean holds(RdmaSegment s, int handle, long to, long length) {
        long last = to + length - 1;
        if (s.handle() != handle || s.length() == 0 || length == 0 || Long.compareUnsigned(last, to) < 0) {
            return false;
        }
        return Long.compareUnsigned(to, s.offset()) >= 0 && Long.compareUnsigned(last, last(s)) <= 0;
    }

    /** A segment's last octet; one running past 2^64 ends there. */
    private static long last(RdmaSegment s) {
        long last = s.offset() + s.length() - 1;
        return Long.compareUnsigned(last, s.offset()) < 0 ? -1L : last;
    }
}
