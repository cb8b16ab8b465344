package org.iwarp4j.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.data.Offset;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code iwarp bench --interleave N}: each of RDMA, raw TCP and TCP with copy measured in N windows,
 * every window's figures reported, the row adding them up, the medians of the windows' ratios
 * computed from them, and the data still verified (a sink's TCP connections are replaced after every
 * window, each checked against the server's count). Short runs of a small size: the shape and the
 * bookkeeping are tested, never the speed.
 */
class BenchInterleaveTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WINDOWS = 3;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"write", "read", "send"})
    void everyWindowHasAllThreeAndTheRowAddsThemUp(String test) throws Exception {
        assertThat(iwarp("bench " + test + " -s 4096 -D 0.9 --warmup 0.2 --interleave " + WINDOWS + " --json"))
                .as(err.toString()).isZero();
        JsonNode doc = JSON.readTree(out.toString());
        assertThat(doc.get("settings").get("interleave").asInt()).isEqualTo(WINDOWS);
        assertThat(doc.get("verification").get("state").asText()).isEqualTo("verified");
        JsonNode row = doc.get("results").get(0);
        JsonNode windows = row.get("windows");
        assertThat(windows).hasSize(WINDOWS);
        List<Double> ratios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        for (String side : List.of("rdma", "tcp", "tcp_copy")) {
            long messages = 0;
            double seconds = 0;
            long loopNanos = 0;
            for (JsonNode w : windows) {
                JsonNode figures = w.get(side);
                assertThat(figures.get("iterations").asLong()).as(side).isPositive();
                messages += figures.get("iterations").asLong();
                seconds += figures.get("iterations").asLong() / (figures.get("msg_rate_mpps").asDouble() * 1e6);
                loopNanos += w.get("cpu").get(side).get("event_loop_cpu_ns").asLong();
            }
            // The row is the windows added up: messages, time (so the average), CPU time.
            assertThat(row.get(side).get("iterations").asLong()).as(side).isEqualTo(messages);
            assertThat(row.get(side).get("bw_average_mb_per_sec").asDouble()).as(side)
                    .isCloseTo(messages * 4096.0 / seconds / (1 << 20), Offset.offset(0.01 * messages * 4096.0
                            / seconds / (1 << 20)));
            assertThat(row.get("cpu").get(side).get("event_loop_cpu_ns").asLong()).as(side).isEqualTo(loopNanos);
        }
        for (JsonNode w : windows) {
            double ratio = w.get("rdma").get("bw_average_mb_per_sec").asDouble()
                    / w.get("tcp").get("bw_average_mb_per_sec").asDouble();
            assertThat(w.get("ratio").asDouble()).isCloseTo(ratio, Offset.offset(1e-9 * ratio));
            ratios.add(ratio);
            cpuRatios.add(w.get("cpu").get("ratio").asDouble());
        }
        JsonNode medians = row.get("window_medians");
        assertThat(medians.get("ratio").asDouble()).isEqualTo(median(ratios));
        assertThat(medians.get("cpu_ratio").asDouble()).isEqualTo(median(cpuRatios));
        assertThat(medians.get("ratio_copy").asDouble()).isPositive();
    }

    @Test
    void theTableSaysSoAndGivesTheMedians() {
        assertThat(iwarp("bench write -s 4096 -D 0.6 --warmup 0.1 --interleave 2")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("# interleaved: each size's RDMA, TCP and TCP+copy measured in 2 rounds of"
                + " 0.300 s each").containsPattern("# 4096 octets in 2 interleaved windows, medians of the windows'"
                + " ratios: RDMA / TCP [0-9.]+, / TCP\\+copy [0-9.]+; cpu ratio [0-9.]+, / TCP\\+copy [0-9.]+");
    }

    @Test
    void withoutInterleavingARowHasNoWindows() throws Exception {
        assertThat(iwarp("bench write -s 4096 -n 50 --warmup 0 --json")).as(err.toString()).isZero();
        JsonNode doc = JSON.readTree(out.toString());
        assertThat(doc.get("settings").get("interleave").asInt()).isEqualTo(1);
        JsonNode row = doc.get("results").get(0);
        assertThat(row.get("windows")).isEmpty();
        assertThat(row.get("window_medians").isNull()).isTrue();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
