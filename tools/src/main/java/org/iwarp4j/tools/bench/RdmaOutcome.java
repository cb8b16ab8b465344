package org.iwarp4j.tools.bench;

import java.util.List;

/**
 * What one end measured and found: the figures per size (bandwidth or latency), the peer's
 * perftest version string (its control characters escaped, as the peer chose it), whether the data was verified ({@code verified} false with
 * {@code problems} when it was wrong; {@code verifiable} false against a perftest peer, whose
 * memory holds no known pattern) and, from a client's report, the peer's view. A server end also
 * says what it served per size ({@code served}; empty at a client).
 */
public record RdmaOutcome(String peerVersion, List<BandwidthResult> bandwidth, List<LatencyResult> latency,
                          boolean verifiable, List<String> problems, List<ServedSize> served) {

    public RdmaOutcome {
        bandwidth = List.copyOf(bandwidth);
        latency = List.copyOf(latency);
        problems = List.copyOf(problems);
        served = List.copyOf(served);
    }

    /** An outcome without a server's per-size record. */
    public RdmaOutcome(String peerVersion, List<BandwidthResult> bandwidth, List<LatencyResult> latency,
                       boolean verifiable, List<String> problems) {
        this(peerVersion, bandwidth, latency, verifiable, problems, List.of());
    }

    public boolean verified() {
        return verifiable && problems.isEmpty();
    }

    public boolean peerIsIwarp4j() {
        return org.iwarp4j.tools.bench.internal.PerftestMessages.isIwarp4j(peerVersion);
    }
}
