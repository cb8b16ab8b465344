package org.iwarp4j.tools.bench;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One window of an interleaved bandwidth run ({@code iwarp bench --interleave N}): RDMA, raw TCP and
 * TCP with copy, each measured for the same short time right after one another, so that the three
 * figures of a window share the machine's conditions of that moment. On a virtual machine the cost
 * of every octet can change two- to threefold within seconds with the host's memory traffic, which
 * consecutive phases of several seconds each see at different times; the ratio of a window does not.
 *
 * @param rdma     RDMA's figures in this window
 * @param rdmaCpu  what they cost, or {@code null} if not measured
 * @param tcp      raw TCP's figures (the receiver drops what it reads), or {@code null} if none were measured
 * @param tcpCpu   what they cost, or {@code null}
 * @param tcpCopy  TCP-with-copy's figures (the receiver copies every octet into an application buffer), or {@code null}
 * @param tcpCopyCpu what they cost, or {@code null}
 */
public record InterleavedWindow(BandwidthResult rdma, CpuUsage rdmaCpu, BandwidthResult tcp, CpuUsage tcpCpu,
                               BandwidthResult tcpCopy, CpuUsage tcpCopyCpu) {

    /** RDMA / raw TCP, average bandwidth; {@code NaN} without both. */
    public double ratio() {
        return ratio(rdma, tcp);
    }

    /** RDMA / TCP with copy, average bandwidth; {@code NaN} without both. */
    public double copyRatio() {
        return ratio(rdma, tcpCopy);
    }

    /** RDMA's event-loop CPU per octet over raw TCP's; {@code NaN} without both. */
    public double cpuRatio() {
        return rdmaCpu == null ? Double.NaN : rdmaCpu.eventLoopRatio(tcpCpu);
    }

    /** RDMA's event-loop CPU per octet over TCP-with-copy's; {@code NaN} without both. */
    public double cpuRatioCopy() {
        return rdmaCpu == null ? Double.NaN : rdmaCpu.eventLoopRatio(tcpCopyCpu);
    }

    /**
     * The median of {@code figure} over the windows where it is known (the mean of the middle two for
     * an even count); {@code NaN} if it is known in none.
     */
    public static double median(List<InterleavedWindow> windows, ToDoubleFunction<InterleavedWindow> figure) {
        double[] known = windows.stream().mapToDouble(figure).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (known.length == 0) {
            return Double.NaN;
        }
        int middle = known.length / 2;
        return known.length % 2 == 1 ? known[middle] : (known[middle - 1] + known[middle]) / 2;
    }

    private static double ratio(BandwidthResult ours, BandwidthResult theirs) {
        return ours != null && theirs != null && theirs.averageBytesPerSecond() > 0
                ? ours.averageBytesPerSecond() / theirs.averageBytesPerSecond() : Double.NaN;
    }
}
