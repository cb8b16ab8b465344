package org.iwarp4j.benchmarks.loopback;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.DoubleSupplier;

/**
 * Octets counted at the receiver over a measured interval that follows a warm-up, per second of
 * wall-clock time and per second of this process's CPU time (user + system, all threads: both
 * ends' event loops and the kernel's TCP work done on their behalf). The second figure is the one
 * to compare on a shared machine: other processes' load lowers throughput, not work per octet.
 */
record Measurement(double megabytesPerSecond, double megabytesPerCpuSecond) {

    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** This process's CPU time so far, in nanoseconds. */
    static long processCpuNanos() {
        return OS.getProcessCpuTime();
    }

    static Measurement of(DoubleSupplier receivedOctets, double warmupSeconds, double seconds)
            throws InterruptedException {
        Thread.sleep((long) (warmupSeconds * 1000));
        double before = receivedOctets.getAsDouble();
        long cpuBefore = processCpuNanos();
        long start = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        double after = receivedOctets.getAsDouble();
        long cpu = processCpuNanos() - cpuBefore;
        long nanos = System.nanoTime() - start;
        double megabytes = (after - before) / 1e6;
        return new Measurement(megabytes / (nanos / 1e9), megabytes / (cpu / 1e9));
    }
}
