package org.iwarp4j.tools.loopback;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.bench.BenchListener;
import org.iwarp4j.tools.bench.BenchRow;
import org.iwarp4j.tools.bench.BenchRunner;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import org.junit.jupiter.api.Test;

/**
 * LoopbackBench's bandwidth cases are {@code iwarp bench}'s harness: its options become {@link
 * BenchSettings}, and its even rounds measure TCP before RDMA ({@link BenchRunner.Order#TCP_FIRST}),
 * which must give the same complete, verified row (both TCP baselines, CPU figures of every side) as
 * the command's order. A short run of a small size: the shape, never the speed.
 */
class LoopbackBenchTest {

    @Test
    void optionsBecomeTheBenchsSettings() {
        BenchSettings s = LoopbackBench.settings(BenchTest.READ, Map.of("size", "1048576", "seconds", "3",
                "warmup", "1", "no-crc", "", "mulpdu", "16384"), Transport.NIO);
        assertThat(s.sizes()).containsExactly(1048576);
        assertThat(s.byDuration()).isTrue();
        assertThat(s.durationSeconds()).isEqualTo(3);
        assertThat(s.warmupSeconds()).isEqualTo(1);
        assertThat(s.txDepth()).as("read's default depth").isEqualTo(8);
        assertThat(s.crc()).isEqualTo(NegotiationMode.ACCEPT);
        assertThat(s.maxUlpdu()).isEqualTo(16384);
        assertThat(s.compareTcp()).isTrue();
        assertThat(LoopbackBench.settings(BenchTest.WRITE, Map.of("rdma-only", ""), Transport.NIO).compareTcp())
                .isFalse();
    }

    @Test
    void tcpFirstGivesTheSameCompleteRow() throws Exception {
        org.assertj.core.api.Assumptions.assumeThat(org.iwarp4j.tools.bench.internal.CpuClock.available()).isTrue();
        BenchSettings settings = new BenchSettings(BenchTest.WRITE, List.of(4096), 0, 0.1, 0, 1, 8,
                NegotiationMode.REQUIRE, false, 2, 0, Transport.best(), true);
        for (BenchRunner.Order order : BenchRunner.Order.values()) {
            BenchRunner.ClientResult result = BenchRunner.loopback(settings, null, null, BenchListener.NONE, order);
            assertThat(result.rdma().verified()).as(order + " verified").isTrue();
            assertThat(result.rows()).as(order.toString()).hasSize(1);
            BenchRow row = result.rows().get(0);
            assertThat(row.partial()).isFalse();
            assertThat(row.rdmaBandwidth().iterations()).as(order + " RDMA").isPositive();
            assertThat(row.tcpBandwidth().iterations()).as(order + " TCP").isPositive();
            assertThat(row.tcpCopyBandwidth().iterations()).as(order + " TCP with copy").isPositive();
            assertThat(row.rdmaCpu().bothEnds()).isTrue();
            assertThat(row.rdmaCpu().octets()).isEqualTo(row.rdmaBandwidth().iterations() * 4096);
            assertThat(row.tcpCpu().octets()).isEqualTo(row.tcpBandwidth().iterations() * 4096);
            assertThat(row.cpuRatio()).as(order + " CPU ratio").isPositive();
            assertThat(row.cpuRatioCopy()).as(order + " CPU ratio with copy").isPositive();
            assertThat(result.tcpBandwidth()).containsExactly(row.tcpBandwidth());
        }
    }

    @Test
    void theSendLatencyBaselineRunsAgainstTheBenchsTcpServer() throws Exception {
        RoundTrips tcp = TcpPingPong.run(64, 10, 50, Transport.best());
        assertThat(tcp.meanMicros()).isPositive();
        assertThat(tcp.cpuMicros()).isGreaterThanOrEqualTo(0);
    }
}
