package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.junit.jupiter.api.Test;

/**
 * The JSON documents' new parts from known figures: each row's {@code cpu} object (RDMA, both TCP
 * baselines, the ratios of event-loop CPU per octet), the background load in the settings, and the
 * server end's document ({@code served} per size, the client's report, the verification).
 */
class BenchJsonDocumentTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static BenchSettings settings(BenchTest test) {
        return new BenchSettings(test, List.of(4096), 100, 0, 0, 1, 16, NegotiationMode.REQUIRE, false, 2, 0,
                Transport.NIO, true);
    }

    @Test
    void rowsCarryTheCpuOfEachSideAndTheRatios() throws Exception {
        BandwidthResult bw = new BandwidthResult(4096, 100, 4e8, 4e8, 1e5);
        BenchRow row = new BenchRow(4096, bw, null, bw, null, false, bw,
                new CpuUsage(1_228_800, 50_000, 409_600, 100, true), // 3 ns per octet
                new CpuUsage(819_200, 10_000, 409_600, 100, true), // 2 ns per octet
                new CpuUsage(1_638_400, 10_000, 409_600, 100, true)); // 4 ns per octet
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BenchJson.write(out, new BenchJson.Run("v", settings(BenchTest.WRITE), "loopback", null, List.of(row), null,
                null, false, null, 0, new BackgroundLoad.Info(1, 4242)));
        JsonNode doc = JSON.readTree(out.toByteArray());
        JsonNode load = doc.get("settings").get("background_load");
        assertThat(load.get("threads").asInt()).isEqualTo(1);
        assertThat(load.get("pid").asLong()).isEqualTo(4242);
        JsonNode cpu = doc.get("results").get(0).get("cpu");
        assertThat(cpu.get("scope").asText()).isEqualTo("both ends");
        assertThat(cpu.get("rdma").get("event_loop_cpu_ns").asLong()).isEqualTo(1_228_800);
        assertThat(cpu.get("rdma").get("app_cpu_ns").asLong()).isEqualTo(50_000);
        assertThat(cpu.get("rdma").get("octets").asLong()).isEqualTo(409_600);
        assertThat(cpu.get("rdma").get("event_loop_ns_per_octet").asDouble()).isEqualTo(3.0);
        assertThat(cpu.get("tcp").get("event_loop_ns_per_octet").asDouble()).isEqualTo(2.0);
        assertThat(cpu.get("tcp_copy").get("event_loop_usec_per_message").asDouble()).isEqualTo(16.384);
        assertThat(cpu.get("ratio").asDouble()).isEqualTo(1.5);
        assertThat(cpu.get("ratio_copy").asDouble()).isEqualTo(0.75);
    }

    @Test
    void withoutCpuFiguresOrLoadTheFieldsAreNull() throws Exception {
        BandwidthResult bw = new BandwidthResult(4096, 100, 4e8, 4e8, 1e5);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BenchJson.write(out, new BenchJson.Run("v", settings(BenchTest.WRITE), "loopback", null,
                List.of(new BenchRow(4096, bw, null, null, null, false)), null, null, false, null, 0));
        JsonNode doc = JSON.readTree(out.toByteArray());
        assertThat(doc.get("settings").get("background_load").isNull()).isTrue();
        assertThat(doc.get("results").get(0).get("cpu").isNull()).isTrue();
    }

    @Test
    void theServerDocumentSaysWhatItServedPerSize() throws Exception {
        RdmaOutcome outcome = new RdmaOutcome("6.06 iwarp4j", List.of(new BandwidthResult(4096, 100, 5e8, 4e8, 1e5)),
                List.of(), true, List.of(), List.of(new ServedSize(4096, 250, false, 2_000_000_000L)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BenchJson.write(out, new BenchJson.ServerRun("v", settings(BenchTest.WRITE), 18515, outcome, false, null, 0,
                null));
        JsonNode doc = JSON.readTree(out.toByteArray());
        assertThat(doc.get("role").asText()).isEqualTo("server");
        assertThat(doc.get("port").asInt()).isEqualTo(18515);
        assertThat(doc.get("tool").asText()).isEqualTo("iwarp bench write");
        assertThat(doc.get("settings").get("sizes").get(0).asInt()).isEqualTo(4096);
        assertThat(doc.get("machine").get("transport").asText()).isEqualTo("nio");
        JsonNode served = doc.get("served").get(0);
        assertThat(served.get("bytes").asInt()).isEqualTo(4096);
        assertThat(served.get("messages").asLong()).isEqualTo(250);
        assertThat(served.get("counted_by").asText()).isEqualTo("client");
        assertThat(served.get("octets").asLong()).isEqualTo(250L * 4096);
        assertThat(served.get("seconds").asDouble()).isEqualTo(2.0);
        assertThat(served.get("bw_average_mb_per_sec").asDouble()).isEqualTo(250.0 * 4096 / 2 / (1 << 20));
        JsonNode report = doc.get("client_report").get(0);
        assertThat(report.get("rdma").get("bw_average_mb_per_sec").asDouble()).isEqualTo(4e8 / (1 << 20));
        assertThat(doc.get("verification").get("state").asText()).isEqualTo("verified");
        assertThat(doc.get("exit_status").asInt()).isZero();
    }

    @Test
    void aServerThatFailedSaysWhy() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BenchJson.write(out, new BenchJson.ServerRun("v", settings(BenchTest.LAT_SEND), 1, null, false,
                "control connection failed", 3, null));
        JsonNode doc = JSON.readTree(out.toByteArray());
        assertThat(doc.get("served")).isEmpty();
        assertThat(doc.get("error").asText()).isEqualTo("control connection failed");
        assertThat(doc.get("verification").get("state").asText()).isEqualTo("not finished");
        assertThat(doc.get("exit_status").asInt()).isEqualTo(3);
    }
}
