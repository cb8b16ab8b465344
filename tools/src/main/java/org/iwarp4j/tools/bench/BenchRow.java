package org.iwarp4j.tools.bench;

import java.util.List;

/**
 * One line of the client's table: a message size with RDMA's figures and, when both ends are
 * iwarp4j and the comparison was not skipped, plain TCP's for the same transfer. Bandwidth tests fill
 * the bandwidth fields, latency tests the latency fields; the others are {@code null}.
 *
 * @param tcpBandwidth plain TCP, raw: the receiver drops what it reads
 * @param partial the run was stopped while this size was measured: the figures cover the part done
 * @param tcpCopyBandwidth plain TCP with copy: the receiver also copies every octet into an
 *     application buffer the size of the RDMA region (bandwidth tests only)
 * @param rdmaCpu the CPU time RDMA's measurement cost, or {@code null} (not measured)
 * @param tcpCpu the CPU time raw TCP's (or TCP latency's) measurement cost, or {@code null}
 * @param tcpCopyCpu the CPU time TCP-with-copy's measurement cost, or {@code null}
 * @param windows with {@code --interleave}, each window's figures (the fields above add them up);
 *     otherwise empty
 */
public record BenchRow(int size, BandwidthResult rdmaBandwidth, LatencyResult rdmaLatency,
                       BandwidthResult tcpBandwidth, LatencyResult tcpLatency, boolean partial,
                       BandwidthResult tcpCopyBandwidth, CpuUsage rdmaCpu, CpuUsage tcpCpu, CpuUsage tcpCopyCpu,
                       List<InterleavedWindow> windows) {

    public BenchRow {
        windows = List.copyOf(windows);
    }

    /** A row measured in consecutive phases (no windows). */
    public BenchRow(int size, BandwidthResult rdmaBandwidth, LatencyResult rdmaLatency,
                    BandwidthResult tcpBandwidth, LatencyResult tcpLatency, boolean partial,
                    BandwidthResult tcpCopyBandwidth, CpuUsage rdmaCpu, CpuUsage tcpCpu, CpuUsage tcpCopyCpu) {
        this(size, rdmaBandwidth, rdmaLatency, tcpBandwidth, tcpLatency, partial, tcpCopyBandwidth, rdmaCpu, tcpCpu,
                tcpCopyCpu, List.of());
    }

    /** A row without CPU figures. */
    public BenchRow(int size, BandwidthResult rdmaBandwidth, LatencyResult rdmaLatency,
                    BandwidthResult tcpBandwidth, LatencyResult tcpLatency, boolean partial,
                    BandwidthResult tcpCopyBandwidth) {
        this(size, rdmaBandwidth, rdmaLatency, tcpBandwidth, tcpLatency, partial, tcpCopyBandwidth, null, null, null);
    }

    /** A row without the TCP-with-copy baseline. */
    public BenchRow(int size, BandwidthResult rdmaBandwidth, LatencyResult rdmaLatency,
                    BandwidthResult tcpBandwidth, LatencyResult tcpLatency, boolean partial) {
        this(size, rdmaBandwidth, rdmaLatency, tcpBandwidth, tcpLatency, partial, null);
    }

    /** RDMA / TCP with copy, average bandwidth; {@code NaN} without that figure. */
    public double copyRatio() {
        if (rdmaBandwidth != null && tcpCopyBandwidth != null && tcpCopyBandwidth.averageBytesPerSecond() > 0) {
            return rdmaBandwidth.averageBytesPerSecond() / tcpCopyBandwidth.averageBytesPerSecond();
        }
        return Double.NaN;
    }

    /** RDMA / TCP: average bandwidth, or typical latency; {@code NaN} without a TCP figure. */
    public double ratio() {
        if (rdmaBandwidth != null && tcpBandwidth != null && tcpBandwidth.averageBytesPerSecond() > 0) {
            return rdmaBandwidth.averageBytesPerSecond() / tcpBandwidth.averageBytesPerSecond();
        }
        if (rdmaLatency != null && tcpLatency != null && tcpLatency.typical() > 0) {
            return rdmaLatency.typical() / tcpLatency.typical();
        }
        return Double.NaN;
    }

    /**
     * RDMA's event-loop CPU per octet over raw TCP's (latency: per round trip, the same thing as both
     * move the same octets per round trip); {@code NaN} without both figures. Lower is less work;
     * issue 15's target is at most 1.2.
     */
    public double cpuRatio() {
        return rdmaCpu == null ? Double.NaN : rdmaCpu.eventLoopRatio(tcpCpu);
    }

    /** RDMA's event-loop CPU per octet over TCP-with-copy's; {@code NaN} without both figures. */
    public double cpuRatioCopy() {
        return rdmaCpu == null ? Double.NaN : rdmaCpu.eventLoopRatio(tcpCopyCpu);
    }
}
