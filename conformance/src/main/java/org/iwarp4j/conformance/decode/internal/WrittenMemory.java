package org.iwarp4j.conformance.decode.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Requester's memory as a series of RDMA Writes left it: for each STag, the octets written,
 * as runs in TO order that do not overlap, each taken from the latest Write that covered it (a
 * later Write over the same octets wins, as in memory). Built once from the Writes, then asked
 * about ranges in O(log n) (how much of a range was written, where the first unwritten octet is)
 * or copied from in time proportional to the octets copied, so that a Reply chunk returning many
 * segments over many Writes costs (segments + Writes) log n, never their product.
 *
 * <p>TOs and segment offsets are unsigned 64-bit (RFC 5041 §5.1, RFC 8166 §4.3.1). A range is
 * cut off at TO 2^64 - 1: the one octet there cannot be named by an exclusive end in 64 bits, and
 * is taken as not written.
 */
final class WrittenMemory {

    private static final Comparator<Long> UNSIGNED = Long::compareUnsigned;

    /** {@code length} octets at TO {@code to} of one STag, from {@code octets[from...]}. */
    private record Run(long to, long length, byte[] octets, int from) {
        long end() {
            return to + length;
        }
    }

    /** The runs of one STag in TO order, and the sum of the lengths of the runs before each. */
    private record Runs(Run[] runs, long[] before) {
    }

    private final Map<Integer, Runs> byStag;

    private WrittenMemory(Map<Integer, Runs> byStag) {
        this.byStag = byStag;
    }

    /** One Write's octets: its STag, TO and payload. */
    record Write(int stag, long to, byte[] octets) {
    }

    /** The memory after {@code writes}, given in the order they arrived. */
    static WrittenMemory of(List<Write> writes) {
        Map<Integer, List<Run>> runs = new HashMap<>();
        Map<Integer, TreeMap<Long, Long>> taken = new HashMap<>();
        // Newest first: a Write only fills what no later Write covers. The taken ranges are merged as
        // they grow, so each is walked over once: O(n log n) in all.
        for (int i = writes.size() - 1; i >= 0; i--) {
            Write w = writes.get(i);
            long length = clip(w.to(), w.octets().length);
            if (length > 0) {
                place(w, length, taken.computeIfAbsent(w.stag(), k -> new TreeMap<>(UNSIGNED)),
                        runs.computeIfAbsent(w.stag(), k -> new ArrayList<>()));
            }
        }
        Map<Integer, Runs> byStag = new HashMap<>();
        runs.forEach((stag, list) -> {
            Run[] sorted = list.toArray(new Run[0]);
            Arrays.sort(sorted, (a, b) -> Long.compareUnsigned(a.to(), b.to()));
            long[] before = new long[sorted.length + 1];
            for (int k = 0; k < sorted.length; k++) {
                before[k + 1] = before[k] + sorted[k].length();
            }
            byStag.put(stag, new Runs(sorted, before));
        });
        return new WrittenMemory(byStag);
    }

    /** Adds the parts of {@code w} that {@code taken} (start to end) does not hold yet, and takes them. */
    private static void place(Write w, long length, TreeMap<Long, Long> taken, List<Run> runs) {
        long to = w.to();
        long end = to + length;
        long start = to;
        long merged = end;
        long at = to;
        Map.Entry<Long, Long> left = taken.floorEntry(to);
        if (left != null && Long.compareUnsigned(left.getValue(), to) >= 0) {
            taken.remove(left.getKey());
            start = left.getKey();
            at = max(at, left.getValue());
            merged = max(merged, left.getValue());
        }
        for (Map.Entry<Long, Long> e = taken.ceilingEntry(to); e != null && Long.compareUnsigned(e.getKey(), end) <= 0;
                e = taken.ceilingEntry(to)) {
            if (Long.compareUnsigned(e.getKey(), at) > 0) {
                runs.add(new Run(at, e.getKey() - at, w.octets(), (int) (at - to)));
            }
            at = max(at, e.getValue());
            merged = max(merged, e.getValue());
            taken.remove(e.getKey());
        }
        if (Long.compareUnsigned(at, end) < 0) {
            runs.add(new Run(at, end - at, w.octets(), (int) (at - to)));
        }
        taken.put(start, merged);
    }

    /** {@code length} cut so that {@code to + length} stays below 2^64 (unsigned). */
    static long clip(long to, long length) {
        long room = -1L - to;
        return Long.compareUnsigned(length, room) > 0 ? room : length;
    }

    private static long max(long a, long b) {
        return Long.compareUnsigned(a, b) >= 0 ? a : b;
    }

    /** How many octets of {@code [offset, offset + length)} of {@code stag} were written. */
    long written(int stag, long offset, long length) {
        Runs r = byStag.get(stag);
        long end = offset + clip(offset, length);
        if (r == null || offset == end) {
            return 0;
        }
        int i = firstEndingAfter(r.runs(), offset);
        int j = lastStartingBefore(r.runs(), end);
        if (i > j) {
            return 0;
        }
        long sum = r.before()[j + 1] - r.before()[i];
        Run first = r.runs()[i];
        Run last = r.runs()[j];
        if (Long.compareUnsigned(first.to(), offset) < 0) {
            sum -= offset - first.to();
        }
        if (Long.compareUnsigned(last.end(), end) > 0) {
            sum -= last.end() - end;
        }
        return sum;
    }

    /**
     * The first octets of {@code [offset, offset + length)} of {@code stag} no Write placed: {from,
     * to} relative to {@code offset}, or null if all were written. Walks the runs in the range.
     */
    long[] firstUnwritten(int stag, long offset, long length) {
        long clipped = clip(offset, length);
        long end = offset + clipped;
        Runs r = byStag.get(stag);
        long at = offset;
        if (r != null) {
            Run[] runs = r.runs();
            for (int k = firstEndingAfter(runs, offset); k < runs.length
                    && Long.compareUnsigned(runs[k].to(), end) < 0; k++) {
                if (Long.compareUnsigned(runs[k].to(), at) > 0) {
                    return new long[] {at - offset, runs[k].to() - offset};
                }
                at = max(at, runs[k].end());
            }
        }
        if (Long.compareUnsigned(at, end) < 0) {
            return new long[] {at - offset, length};
        }
        return clipped < length ? new long[] {clipped, length} : null;
    }

    /** Copies the written octets of {@code [offset, offset + length)} of {@code stag} to {@code out[at...]}. */
    void copy(int stag, long offset, long length, byte[] out, int at) {
        Runs r = byStag.get(stag);
        long end = offset + clip(offset, length);
        if (r == null) {
            return;
        }
        Run[] runs = r.runs();
        for (int k = firstEndingAfter(runs, offset); k < runs.length && Long.compareUnsigned(runs[k].to(), end) < 0;
                k++) {
            Run run = runs[k];
            long from = max(run.to(), offset);
            long to = Long.compareUnsigned(run.end(), end) < 0 ? run.end() : end;
            System.arraycopy(run.octets(), run.from() + (int) (from - run.to()), out, at + (int) (from - offset),
                    (int) (to - from));
        }
    }

    /** The index of the first run that ends after {@code offset}; runs.length if none. */
    private static int firstEndingAfter(Run[] runs, long offset) {
        int k = lastStartingBefore(runs, offset + 1);
        if (offset == -1L) {
            k = runs.length - 1; // every run starts at or before the highest TO
        }
        return k >= 0 && Long.compareUnsigned(runs[k].end(), offset) > 0 ? k : k + 1;
    }

    /** The index of the last run that starts before {@code end}; -1 if none. */
    private static int lastStartingBefore(Run[] runs, long end) {
        int lo = 0;
        int hi = runs.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(runs[mid].to(), end) < 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }
}
