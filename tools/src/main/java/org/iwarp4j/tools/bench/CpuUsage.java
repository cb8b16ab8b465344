package org.iwarp4j.tools.bench;

import java.util.List;

/**
 * The CPU time one measured transfer cost, as thread CPU time (user + system, so the kernel's TCP
 * work done in a thread's system calls counts; the JIT compiler's and the garbage collector's
 * threads do not): the Netty event loops that moved the data, and the application threads that
 * posted the work and waited for it (the benchmark's own threads). Per octet this is the figure to
 * compare on a shared machine: other processes' load lowers throughput much more than it changes
 * the work done per octet.
 *
 * @param eventLoopNanos   CPU time of the event loops during the measurement
 * @param applicationNanos CPU time of the application threads during the measurement
 * @param octets           payload octets the measurement moved (a round trip counts both directions)
 * @param messages         messages (bandwidth) or round trips (latency) measured
 * @param bothEnds         {@code true} when both ends ran in this process (loopback), so the figures
 *                         cover sender and receiver; {@code false}: this end only
 */
public record CpuUsage(long eventLoopNanos, long applicationNanos, long octets, long messages, boolean bothEnds) {

    /** {@code parts} (e.g. the windows of an interleaved run) added up; {@code null} if there are none or any is {@code null}. */
    public static CpuUsage combined(List<CpuUsage> parts) {
        if (parts.isEmpty() || parts.stream().anyMatch(part -> part == null)) {
            return null;
        }
        long loops = 0;
        long app = 0;
        long octets = 0;
        long messages = 0;
        for (CpuUsage part : parts) {
            loops += part.eventLoopNanos();
            app += part.applicationNanos();
            octets += part.octets();
            messages += part.messages();
        }
        return new CpuUsage(loops, app, octets, messages, parts.get(0).bothEnds());
    }

    /** Event-loop CPU nanoseconds per payload octet; {@code NaN} if nothing was moved. */
    public double eventLoopNanosPerOctet() {
        return octets > 0 ? eventLoopNanos / (double) octets : Double.NaN;
    }

    /** Application-thread CPU nanoseconds per payload octet; {@code NaN} if nothing was moved. */
    public double applicationNanosPerOctet() {
        return octets > 0 ? applicationNanos / (double) octets : Double.NaN;
    }

    /** Event-loop CPU microseconds per message (per round trip for latency); {@code NaN} without one. */
    public double eventLoopMicrosPerMessage() {
        return messages > 0 ? eventLoopNanos / 1e3 / messages : Double.NaN;
    }

    /** Application-thread CPU microseconds per message (per round trip for latency); {@code NaN} without one. */
    public double applicationMicrosPerMessage() {
        return messages > 0 ? applicationNanos / 1e3 / messages : Double.NaN;
    }

    /** {@code "both ends"} or {@code "this end"}. */
    public String scope() {
        return bothEnds ? "both ends" : "this end";
    }

    /**
     * This transfer's event-loop CPU per octet over {@code baseline}'s: 1.2 means 20 % more work per
     * octet than the baseline (issue 15's target is at most 1.2 against raw TCP); {@code NaN} when
     * either is unknown.
     */
    public double eventLoopRatio(CpuUsage baseline) {
        if (baseline == null) {
            return Double.NaN;
        }
        double ours = eventLoopNanosPerOctet();
        double theirs = baseline.eventLoopNanosPerOctet();
        return theirs > 0 && !Double.isNaN(ours) ? ours / theirs : Double.NaN;
    }
}
