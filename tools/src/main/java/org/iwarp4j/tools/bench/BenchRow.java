package org.iwarp4j.tools.bench;

/**
 * One line of the client's table: a message size with RDMA's figures and, when both ends are
 * iwarp4j and the comparison was not skipped, plain TCP's for the same transfer. Bandwidth tests fill
 * the bandwidth fields, latency tests the latency fields; the others are {@code null}.
 *
 * @param partial the run was stopped while this size was measured: the figures cover the part done
 */
public record BenchRow(int size, BandwidthResult rdmaBandwidth, LatencyResult rdmaLatency,
                       BandwidthResult tcpBandwidth, LatencyResult tcpLatency, boolean partial) {

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
}
