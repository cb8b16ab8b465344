package org.iwarp4j.benchmarks;

import static org.iwarp4j.mpa.MpaConstants.MARKER_INTERVAL;
import static org.iwarp4j.mpa.MpaConstants.MARKER_LENGTH;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markerAtOrAfter;

import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.internal.MarkerSpacing;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link MarkerSpacing#markersBeforeCrc}, which the decoder calls on every decode() (also for a
 * partial FPDU), loops once per marker; {@link #closedForm} is the O(1) count it could be. The
 * set-up checks both agree for every 4-aligned stream offset and every length.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class MarkerSpacingBenchmark {

    @Param({"64772"})
    public int preCrc;

    private long fpduStart;

    /** NOT PRODUCTION CODE: the O(1) form of {@link MarkerSpacing#markersBeforeCrc}. */
    static int closedForm(long fpduStart, int preCrcLength) {
        long before = markerAtOrAfter(fpduStart + 1) - fpduStart;
        return preCrcLength < before ? 0 : 1 + (int) ((preCrcLength - before) / (MARKER_INTERVAL - MARKER_LENGTH));
    }

    @Setup(Level.Trial)
    public void check() {
        for (long start = 0; start < MARKER_INTERVAL; start += 4) {
            for (int length = 0; length <= 65540; length += (length < 2048 ? 1 : 13)) {
                if (closedForm(start, length) != MarkerSpacing.markersBeforeCrc(start, length)) {
                    throw new IllegalStateException("closed form differs at " + start + ", " + length);
                }
            }
        }
    }

    @Benchmark
    public int loop() {
        fpduStart += 68;
        return MarkerSpacing.markersBeforeCrc(fpduStart, preCrc);
    }

    @Benchmark
    public int closedForm() {
        fpduStart += 68;
        return closedForm(fpduStart, preCrc);
    }
}
