package org.iwarp4j.tools.nfs;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Warm-up until the JIT compiler is quiet, not for a number of passes (as JMH judges a warm-up):
 * rounds run until one spends less than {@code share} of its wall time compiling, by the growth of
 * {@link CompilationMXBean#getTotalCompilationTime()}, or until {@code cap} has passed since the
 * first round began. At 1 MiB per RPC a few hundred RPCs a second reach the compiler's higher tiers
 * late: a fixed number of passes measured the first transport while its per-RPC code was still
 * interpreted or at tier 2, and the second after the first had run the compile queue down (see
 * docs/performance-log.md, sixth session f).
 *
 * <p>The compile time is the sum over the compiler threads, so a share can exceed 1. The cap is
 * checked after each round: a round begun before it runs to its end, so the warm-up can exceed the
 * cap by up to one round.
 */
public final class SteadyState {

    /** The default: a round with less than 2 % of its time in JIT compilation is steady. */
    public static final double DEFAULT_SHARE = 0.02;
    /** The default cap, in seconds of rounds. */
    public static final double DEFAULT_CAP_SECONDS = 60;

    /** One round: every transport's WRITE pass and READ pass. */
    public interface Round {
        void run() throws IOException, InterruptedException;
    }

    /**
     * What the warm-up did after its fixed passes.
     *
     * @param rounds    rounds run (0: the cap was 0, or compile time cannot be read in this JVM)
     * @param lastShare the last round's compile time over its wall time (NaN without rounds)
     * @param capped    the cap ended the rounds while the last was still compiling at or above the share
     * @param measurable false when this JVM does not report its compile time
     * @param nanos     the rounds' wall time
     */
    public record Outcome(int rounds, double lastShare, boolean capped, boolean measurable, long nanos) {

        /** One line for the report, e.g. {@code 3 rounds, 4.1 s; the last compiled 1.2 % of its time (< 2 %)}. */
        public String describe(double share, double capSeconds) {
            if (!measurable) {
                return "no rounds: this JVM does not report its JIT compilation time";
            }
            if (rounds == 0) {
                return "no rounds (--steady-cap 0)";
            }
            return String.format(Locale.ROOT, "%d round%s in %.1f s; the last spent %.1f %% of its time in JIT "
                            + "compilation (%s %.1f %%)%s", rounds, rounds == 1 ? "" : "s", nanos / 1e9,
                    lastShare * 100, capped ? "not under" : "under", share * 100,
                    capped ? ": stopped at the cap of " + seconds(capSeconds) + " s, NOT steady" : "");
        }
    }

    /** Seconds as given: {@code 60}, {@code 0.5}. */
    public static String seconds(double seconds) {
        return java.math.BigDecimal.valueOf(seconds).stripTrailingZeros().toPlainString();
    }

    private final LongSupplier nanoClock;
    private final LongSupplier compileMillis;
    private final double share;
    private final long capNanos;

    /**
     * @param nanoClock     wall time in nanoseconds
     * @param compileMillis the JVM's total compile time in milliseconds, or null when it is not known
     * @param share         the largest share of a round's time in compilation that counts as steady
     * @param capSeconds    no round begins after this many seconds of rounds; 0 runs none
     */
    public SteadyState(LongSupplier nanoClock, LongSupplier compileMillis, double share, double capSeconds) {
        if (!(share > 0) || !(capSeconds >= 0)) {
            throw new IllegalArgumentException("share must be positive and the cap 0 or more: " + share + ", "
                    + capSeconds);
        }
        this.nanoClock = nanoClock;
        this.compileMillis = compileMillis;
        this.share = share;
        this.capNanos = (long) (capSeconds * 1e9);
    }

    /** This JVM's clock and compiler, or no compile time when the JVM does not monitor it. */
    public static SteadyState ofThisJvm(double share, double capSeconds) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        LongSupplier compile = jit != null && jit.isCompilationTimeMonitoringSupported()
                ? jit::getTotalCompilationTime : null;
        return new SteadyState(System::nanoTime, compile, share, capSeconds);
    }

    /** Runs rounds until one is steady or the cap has passed. */
    public Outcome run(Round round) throws IOException, InterruptedException {
        if (compileMillis == null) {
            return new Outcome(0, Double.NaN, false, false, 0);
        }
        if (capNanos == 0) {
            return new Outcome(0, Double.NaN, false, true, 0);
        }
        long start = nanoClock.getAsLong();
        int rounds = 0;
        while (true) {
            long t0 = nanoClock.getAsLong();
            long c0 = compileMillis.getAsLong();
            round.run();
            long t1 = nanoClock.getAsLong();
            long c1 = compileMillis.getAsLong();
            rounds++;
            double last = (c1 - c0) * 1e6 / Math.max(1, t1 - t0);
            if (last < share) {
                return new Outcome(rounds, last, false, true, t1 - start);
            }
            if (t1 - start >= capNanos) {
                return new Outcome(rounds, last, true, true, t1 - start);
            }
        }
    }
}
