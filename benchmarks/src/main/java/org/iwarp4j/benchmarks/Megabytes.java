package org.iwarp4j.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Payload megabytes (10^6 octets) handled, which JMH normalises per second of wall time: the
 * secondary score {@code <benchmark>:megabytes} is MB/s of ULPDU payload, with its error.
 *
 * <p>{@code <benchmark>:cpuMegabytes} is the same per second of the benchmark thread's own CPU
 * time (it holds megabytes × wall / CPU of the iteration, which JMH divides by the wall time). On
 * a machine shared with other work it is steadier than wall-clock MB/s; it leaves out GC and JIT
 * threads, so it flatters code that allocates.
 */
@AuxCounters(AuxCounters.Type.OPERATIONS)
@State(Scope.Thread)
public class Megabytes {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Megabytes of payload handled in this iteration. */
    public double megabytes;

    /** Megabytes scaled by wall time / thread CPU time of the iteration; set at its end. */
    public double cpuMegabytes;

    private long wallStart;
    private long cpuStart;

    @Setup(Level.Iteration)
    public void start() {
        megabytes = 0;
        cpuMegabytes = 0;
        wallStart = System.nanoTime();
        cpuStart = THREADS.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void stop() {
        long wall = System.nanoTime() - wallStart;
        long cpu = THREADS.getCurrentThreadCpuTime() - cpuStart;
        cpuMegabytes = cpu > 0 ? megabytes * wall / cpu : 0;
    }
}
