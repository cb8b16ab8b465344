package org.iwarp4j.tools.bench;

import java.util.Arrays;

/**
 * One latency measurement in microseconds, as perftest's {@code print_report_lat}: minimum,
 * maximum, typical (the median), average, standard deviation and the 99 % and 99.9 %
 * percentiles of the one-way latency (half the round trip, perftest's rtt_factor 2).
 */
public record LatencyResult(int size, long iterations, double min, double max, double typical, double average,
                            double stdev, double p99, double p999) {

    /** Statistics of round trips in nanoseconds ({@code roundTrips} is sorted in place). */
    public static LatencyResult ofRoundTrips(int size, long[] roundTrips, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("no round trips measured");
        }
        long[] rtt = Arrays.copyOf(roundTrips, count);
        Arrays.sort(rtt);
        double sum = 0;
        for (long t : rtt) {
            sum += t;
        }
        double mean = sum / count;
        double squares = 0;
        for (long t : rtt) {
            squares += (t - mean) * (t - mean);
        }
        double toOneWayMicros = 1 / 2000.0;
        return new LatencyResult(size, count, rtt[0] * toOneWayMicros, rtt[count - 1] * toOneWayMicros,
                rtt[count / 2] * toOneWayMicros, mean * toOneWayMicros,
                Math.sqrt(squares / count) * toOneWayMicros, percentile(rtt, 0.99) * toOneWayMicros,
                percentile(rtt, 0.999) * toOneWayMicros);
    }

    private static long percentile(long[] sorted, double p) {
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
