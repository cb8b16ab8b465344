package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.junit.jupiter.api.Test;

/**
 * {@link BenchSettings#order()}: which of a size's measurements comes first, seen in the order the
 * run reports them as it starts them (its progress lines). Without windows, RDMA and then both TCP
 * baselines, or both baselines and then RDMA; with windows, the three rotated one step every
 * window, from where the order says. Short runs of a small size: the order, never the speed.
 */
class BenchOrderTest {

    private static final int SIZE = 4096;

    /** The progress lines of one loopback Write run. */
    private static List<String> progress(BenchSettings settings) throws Exception {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        BenchRunner.ClientResult result = BenchRunner.loopback(settings, null, null, new BenchListener() {
            @Override
            public void progress(String what) {
                lines.add(what);
            }
        });
        assertThat(result.rdma().verified()).as(result.rdma().problems().toString()).isTrue();
        assertThat(result.rows()).hasSize(1);
        assertThat(result.rows().get(0).tcpCopyBandwidth()).isNotNull();
        return lines;
    }

    private static BenchSettings write(double seconds) {
        return new BenchSettings(BenchTest.WRITE, List.of(SIZE), 0, seconds, 0, 1, 8, NegotiationMode.REQUIRE, false,
                2, 0, Transport.best(), true);
    }

    @Test
    void tcpFirstMeasuresBothBaselinesBeforeRdma() throws Exception {
        List<String> lines = progress(write(0.1).withOrder(BenchRunner.Order.TCP_FIRST));

        int rdma = lines.indexOf("RDMA Write " + SIZE + " octets");
        assertThat(lines.indexOf("plain TCP " + SIZE + " octets")).as(lines.toString()).isBetween(0, rdma);
        assertThat(lines.indexOf("plain TCP with copy " + SIZE + " octets")).as(lines.toString()).isBetween(0, rdma);
    }

    @Test
    void rdmaFirstMeasuresRdmaBeforeBothBaselines() throws Exception {
        List<String> lines = progress(write(0.1));

        int rdma = lines.indexOf("RDMA Write " + SIZE + " octets");
        assertThat(rdma).as(lines.toString()).isNotNegative();
        assertThat(lines.indexOf("plain TCP " + SIZE + " octets")).as(lines.toString()).isGreaterThan(rdma);
        assertThat(lines.indexOf("plain TCP with copy " + SIZE + " octets")).isGreaterThan(rdma);
    }

    @Test
    void interleavedWindowsRotateAllThree() throws Exception {
        assertThat(windows(BenchRunner.Order.RDMA_FIRST)).containsExactly(
                "RDMA 1", "raw 1", "copy 1",
                "raw 2", "copy 2", "RDMA 2",
                "copy 3", "RDMA 3", "raw 3");
        assertThat(windows(BenchRunner.Order.TCP_FIRST)).containsExactly(
                "raw 1", "copy 1", "RDMA 1",
                "copy 2", "RDMA 2", "raw 2",
                "RDMA 3", "raw 3", "copy 3");
    }

    /** Which measurement of which window started when, in short: "RDMA 1", "raw 1", "copy 1", ... */
    private static List<String> windows(BenchRunner.Order order) throws Exception {
        List<String> measured = new ArrayList<>();
        for (String line : progress(write(0.3).withInterleave(3).withOrder(order))) {
            int at = line.indexOf(" octets, window ");
            if (at < 0) {
                continue;
            }
            String window = line.substring(at + " octets, window ".length(), line.indexOf(" of "));
            String what = line.startsWith("RDMA Write") ? "RDMA"
                    : line.startsWith("plain TCP with copy") ? "copy" : line.startsWith("plain TCP") ? "raw" : line;
            measured.add(what + " " + window);
        }
        return measured;
    }
}
