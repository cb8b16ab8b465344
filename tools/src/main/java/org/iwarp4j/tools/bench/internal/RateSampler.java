package org.iwarp4j.tools.bench.internal;

import java.util.Arrays;

/**
 * Finds a run's peak bandwidth without keeping a timestamp per message: it samples the completion
 * count at most once a millisecond, and the peak is the best rate over any window of a twentieth of
 * the run (at least 10 ms). perftest's peak is the best single-message time, which on a software
 * RNIC with batched completions says nothing; a short window still shows bursts.
 */
final class RateSampler {

    private static final long SAMPLE_NANOS = 1_000_000;
    private static final long MIN_WINDOW_NANOS = 10_000_000;

    private long[] times = new long[1024];
    private long[] counts = new long[1024];
    private int samples;

    RateSampler(long start) {
        add(start, 0);
    }

    /** Records that {@code completed} messages were done at {@code now}. */
    void record(long now, long completed) {
        if (now - times[samples - 1] >= SAMPLE_NANOS) {
            add(now, completed);
        }
    }

    /** The peak in octets per second; {@code end}/{@code total} close the last sample. */
    double peakBytesPerSecond(long end, long total, int size) {
        add(end, total);
        long span = times[samples - 1] - times[0];
        long window = Math.max(MIN_WINDOW_NANOS, span / 20);
        double best = 0;
        int from = 0;
        for (int to = 1; to < samples; to++) {
            while (from + 1 < to && times[to] - times[from + 1] >= window) {
                from++;
            }
            long nanos = times[to] - times[from];
            if (nanos >= window || (from == 0 && to == samples - 1)) {
                best = Math.max(best, (counts[to] - counts[from]) * (double) size / (nanos / 1e9));
            }
        }
        return best;
    }

    private void add(long time, long count) {
        if (samples == times.length) {
            times = Arrays.copyOf(times, samples * 2);
            counts = Arrays.copyOf(counts, samples * 2);
        }
        times[samples] = time;
        counts[samples] = count;
        samples++;
    }
}
