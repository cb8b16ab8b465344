package org.iwarp4j.tools.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's steady-state rule on a fake clock and a fake compile-time source: it stops at the
 * first round under the share, or at the cap and says so; and the measured passes take turns.
 */
class SteadyStateTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final AtomicLong compiled = new AtomicLong(5_000);

    /** A round of one second whose compile time is the next of {@code millis} (the last one repeats). */
    private SteadyState.Round round(AtomicInteger runs, long... millis) {
        return () -> {
            int i = runs.getAndIncrement();
            clock.addAndGet(1_000_000_000L);
            compiled.addAndGet(millis[Math.min(i, millis.length - 1)]);
        };
    }

    @Test
    void stopsAtTheFirstRoundUnderTheShare() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        SteadyState.Outcome o = new SteadyState(clock::get, compiled::get, 0.02, 60)
                .run(round(runs, 900, 300, 20, 10, 0));
        assertThat(runs).hasValue(4); // 20 ms of 1 s is 2 %: not under; 10 ms is
        assertThat(o.rounds()).isEqualTo(4);
        assertThat(o.lastShare()).isEqualTo(0.01);
        assertThat(o.capped()).isFalse();
        assertThat(o.nanos()).isEqualTo(4_000_000_000L);
        assertThat(o.describe(0.02, 60)).isEqualTo("4 rounds in 4.0 s; the last spent 1.0 % of its time in JIT "
                + "compilation (under 2.0 %)");
    }

    @Test
    void stopsAtTheCapAndSaysSo() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        SteadyState.Outcome o = new SteadyState(clock::get, compiled::get, 0.02, 5).run(round(runs, 100));
        assertThat(runs).hasValue(5);
        assertThat(o.capped()).isTrue();
        assertThat(o.lastShare()).isEqualTo(0.1);
        assertThat(o.describe(0.02, 5)).isEqualTo("5 rounds in 5.0 s; the last spent 10.0 % of its time in JIT "
                + "compilation (not under 2.0 %): stopped at the cap of 5 s, NOT steady");
    }

    @Test
    void aCapOfZeroRunsNoRoundAndAJvmWithoutCompileTimeNeither() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        SteadyState.Outcome none = new SteadyState(clock::get, compiled::get, 0.02, 0).run(round(runs, 0));
        assertThat(none.rounds()).isZero();
        assertThat(none.describe(0.02, 0)).isEqualTo("no rounds (--steady-cap 0)");
        SteadyState.Outcome blind = new SteadyState(clock::get, null, 0.02, 60).run(round(runs, 0));
        assertThat(blind.measurable()).isFalse();
        assertThat(blind.describe(0.02, 60)).contains("does not report");
        assertThat(runs).hasValue(0);
    }

    private NfsBenchSettings settings(int passes, double seconds) {
        return new NfsBenchSettings(1000, 4096, 4096, passes, seconds, 0, 1,
                List.of(NfsTransport.RDMA, NfsTransport.TCP));
    }

    /** A pass that logs its name, takes {@code ticks} nanoseconds and makes {@code calls} calls. */
    private NfsBenchRun.Pass pass(List<String> log, String name, long ticks, long calls) {
        return () -> {
            log.add(name);
            clock.addAndGet(ticks);
            return calls;
        };
    }

    @Test
    void countedPassesAlternateBetweenTheTransports() throws Exception {
        List<String> log = new ArrayList<>();
        List<NfsThroughput> t = NfsBenchRun.alternate(List.of(pass(log, "RDMA", 7, 3), pass(log, "TCP", 5, 2)),
                settings(3, 0), clock::get);
        assertThat(log).containsExactly("RDMA", "TCP", "RDMA", "TCP", "RDMA", "TCP");
        assertThat(t.get(0)).isEqualTo(new NfsThroughput(3000, 9, 21, 3));
        assertThat(t.get(1)).isEqualTo(new NfsThroughput(3000, 6, 15, 3));
    }

    @Test
    void timedPassesAlternateUntilEachTransportHasItsOwnDuration() throws Exception {
        List<String> log = new ArrayList<>();
        // 0.5 s each: one RDMA pass of 0.5 s reaches it, TCP's passes of 0.2 s need three
        List<NfsThroughput> t = NfsBenchRun.alternate(
                List.of(pass(log, "RDMA", 500_000_000, 1), pass(log, "TCP", 200_000_000, 1)), settings(0, 0.5),
                clock::get);
        assertThat(log).containsExactly("RDMA", "TCP", "TCP", "TCP");
        assertThat(t.get(0)).isEqualTo(new NfsThroughput(1000, 1, 500_000_000, 1));
        assertThat(t.get(1)).isEqualTo(new NfsThroughput(3000, 3, 600_000_000, 3));
    }
}
