package org.iwarp4j.tools.loopback;

import java.util.function.DoubleSupplier;
import org.iwarp4j.tools.bench.internal.CpuClock;

/**
 * Octets counted at the receiver over a measured interval that follows a warm-up, per second of
 * wall-clock time and per second of the event loops' CPU time (user + system of the Netty event
 * loop threads of both ends, which includes the kernel's TCP work done in their system calls; not
 * the JIT compiler's or GC's threads). The second figure is the one to compare on a shared
 * machine: other processes' load lowers throughput much more than it changes work per octet.
 */
record Measurement(double megabytesPerSecond, double megabytesPerCpuSecond) {

    /** CPU time so far of this process's live Netty event loop threads, in nanoseconds (as {@code iwarp bench} counts it). */
    static long eventLoopCpuNanos() {
        return CpuClock.eventLoopNanos();
    }

    static Measurement of(DoubleSupplier receivedOctets, double warmupSeconds, double seconds)
            throws InterruptedException {
        Thread.sleep((long) (warmupSeconds * 1000));
        double before = receivedOctets.getAsDouble();
        long cpuBefore = eventLoopCpuNanos();
        long start = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        double after = receivedOctets.getAsDouble();
        long cpu = eventLoopCpuNanos() - cpuBefore;
        long nanos = System.nanoTime() - start;
        double megabytes = (after - before) / 1e6;
        return new Measurement(megabytes / (nanos / 1e9), megabytes / (cpu / 1e9));
    }
}
