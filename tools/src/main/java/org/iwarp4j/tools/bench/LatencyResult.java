package org.iwarp4j.tools.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.HdrHistogram.Histogram;

/**
 * One latency measurement in microseconds, as perftest's {@code print_report_lat}: minimum,
 * maximum, typical (the median), average, standard deviation and the 99 % and 99.9 %
 * percentiles of the one-way latency (half the round trip, perftest's rtt_factor 2). The round
 * trips are kept in an HdrHistogram (3 significant digits, so every figure is within 0.1 % of the
 * exact one) for the other percentiles and for {@code -H}'s distribution.
 *
 * @param histogram the round trips in nanoseconds, or {@code null} for a result without them
 */
public record LatencyResult(int size, long iterations, double min, double max, double typical, double average,
                            double stdev, double p99, double p999, Histogram histogram) {

    /** Round trips from 1 ns to 1 hour, 3 significant digits. */
    private static final long HIGHEST_NANOS = 3_600_000_000_000L;
    private static final double NANOS_TO_ONE_WAY_MICROS = 1 / 2000.0;

    /** A histogram for round-trip times in nanoseconds, as {@link #of} takes it. */
    public static Histogram newRoundTripHistogram() {
        return new Histogram(1, HIGHEST_NANOS, 3);
    }

    /** Statistics of the round trips (nanoseconds) recorded in {@code roundTrips}. */
    public static LatencyResult of(int size, Histogram roundTrips) {
        long count = roundTrips.getTotalCount();
        if (count < 1) {
            throw new IllegalArgumentException("no round trips measured");
        }
        double k = NANOS_TO_ONE_WAY_MICROS;
        return new LatencyResult(size, count, roundTrips.getMinValue() * k, roundTrips.getMaxValue() * k,
                roundTrips.getValueAtPercentile(50) * k, roundTrips.getMean() * k, roundTrips.getStdDeviation() * k,
                roundTrips.getValueAtPercentile(99) * k, roundTrips.getValueAtPercentile(99.9) * k, roundTrips);
    }

    /** Statistics of the first {@code count} round trips of {@code roundTrips}, in nanoseconds. */
    public static LatencyResult ofRoundTrips(int size, long[] roundTrips, int count) {
        Histogram h = newRoundTripHistogram();
        for (int i = 0; i < count; i++) {
            h.recordValue(Math.max(1, Math.min(HIGHEST_NANOS, roundTrips[i])));
        }
        return of(size, h);
    }

    /** The one-way latency in microseconds below which {@code percent} % of the samples lie. */
    public double percentile(double percent) {
        if (histogram == null) {
            throw new IllegalStateException("no histogram kept");
        }
        return histogram.getValueAtPercentile(percent) * NANOS_TO_ONE_WAY_MICROS;
    }

    /**
     * {@code -H}: HdrHistogram's percentile distribution of the one-way latency in microseconds
     * (value, percentile, count, 1/(1-percentile)), as perftest's histogram shows every sample.
     */
    public String distribution() {
        if (histogram == null) {
            return "";
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            histogram.outputPercentileDistribution(out, 5, 1 / NANOS_TO_ONE_WAY_MICROS);
        }
        return text.toString(StandardCharsets.UTF_8);
    }
}
