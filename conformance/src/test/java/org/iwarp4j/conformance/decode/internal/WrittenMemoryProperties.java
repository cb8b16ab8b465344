package org.iwarp4j.conformance.decode.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link WrittenMemory} against the obvious model, one octet at a time: Writes applied in order to
 * a map from (STag, TO) to octet, a later Write overwriting an earlier one. Two STags and a window
 * of 64 TOs make overlaps common; a base near 2^64 brings in the unsigned order and the last octet,
 * which the class takes as never written.
 */
class WrittenMemoryProperties {

    private static final long[] BASES = {0, 0x7fff_ffff_ffff_ffe0L, -64L};

    @Provide
    Arbitrary<List<WrittenMemory.Write>> writes() {
        Arbitrary<WrittenMemory.Write> w = Combinators.combine(Arbitraries.integers().between(1, 2),
                Arbitraries.integers().between(0, 63), Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(24))
                .as((stag, to, octets) -> new WrittenMemory.Write(stag, to, octets));
        return w.list().ofMaxSize(12);
    }

    @Property(tries = 400)
    void answersAsTheOctetModelDoes(@ForAll("writes") List<WrittenMemory.Write> relative,
            @ForAll("base") long base, @ForAll("ranges") List<int[]> ranges) {
        List<WrittenMemory.Write> writes = new ArrayList<>();
        Map<String, Byte> model = new HashMap<>();
        for (WrittenMemory.Write r : relative) {
            WrittenMemory.Write w = new WrittenMemory.Write(r.stag(), base + r.to(), r.octets());
            writes.add(w);
            for (int i = 0; i < w.octets().length; i++) {
                long to = w.to() + i;
                if (Long.compareUnsigned(to, w.to()) >= 0 && to != -1L) { // wrapped or the last TO: not kept
                    model.put(w.stag() + "@" + to, w.octets()[i]);
                }
            }
        }
        WrittenMemory memory = WrittenMemory.of(writes);
        for (int[] range : ranges) {
            int stag = range[0];
            long offset = base + range[1];
            int length = range[2];
            long written = 0;
            long[] firstGap = null;
            byte[] expected = new byte[length];
            for (int i = 0; i < length; i++) {
                Byte b = model.get(stag + "@" + (offset + i));
                boolean inRange = Long.compareUnsigned(offset + i, offset) >= 0;
                if (b != null && inRange) {
                    written++;
                    expected[i] = b;
                } else if (firstGap == null) {
                    firstGap = new long[] {i, i + 1};
                } else if (firstGap[1] == i) {
                    firstGap[1] = i + 1;
                }
            }
            assertThat(memory.written(stag, offset, length)).as("written %s", (Object) range).isEqualTo(written);
            long[] gap = memory.firstUnwritten(stag, offset, length);
            if (firstGap == null) {
                assertThat(gap).isNull();
            } else {
                assertThat(gap).isNotNull();
                assertThat(gap[0]).isEqualTo(firstGap[0]);
                if (firstGap[1] < length) {
                    assertThat(gap[1]).isEqualTo(firstGap[1]); // a gap that runs to the end may be wrapped
                }
            }
            byte[] copied = new byte[length];
            memory.copy(stag, offset, length, copied, 0);
            assertThat(copied).isEqualTo(expected);
        }
    }

    @Provide
    Arbitrary<Long> base() {
        return Arbitraries.of(BASES[0], BASES[1], BASES[2]);
    }

    @Provide
    Arbitrary<List<int[]>> ranges() {
        return Combinators.combine(Arbitraries.integers().between(1, 3), Arbitraries.integers().between(0, 70),
                Arbitraries.integers().between(0, 40)).as((stag, from, length) -> new int[] {stag, from, length})
                .list().ofMinSize(1).ofMaxSize(8);
    }
}
