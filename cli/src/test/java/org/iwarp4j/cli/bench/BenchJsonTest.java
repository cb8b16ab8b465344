package org.iwarp4j.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What a run leaves to keep: {@code --json} (one document, its documented field names, every size's
 * figures, RDMA and TCP, ratio and percentiles), {@code --out_json FILE} beside the table, {@code
 * --chart} (well-formed SVG, one point per size and transport), {@code -H}, and rows that stream. Short
 * runs of small sizes: the shape is tested, never the speed.
 */
class BenchJsonTest {

    private static final String SHORT = " -n 20 --warmup 0";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    /** {@code --order tcp-first} reaches the run: the table's header says it, the document records it. */
    @Test
    void orderTcpFirstIsSaidAndRecorded() throws Exception {
        assertThat(iwarp("bench write -s 4096 --order tcp-first" + SHORT)).as(err.toString()).isZero();
        assertThat(out.toString()).contains("# order: each size's TCP and TCP+copy measured before its RDMA");
        out.getBuffer().setLength(0);

        assertThat(iwarp("bench write -s 4096 --order TCP-FIRST --json" + SHORT)).as(err.toString()).isZero();
        JsonNode doc = JSON.readTree(out.toString());
        assertThat(doc.get("settings").get("order").asText()).isEqualTo("tcp-first");
        assertThat(doc.get("verification").get("verified").asBoolean()).isTrue();
        assertThat(doc.get("results").get(0).get("tcp_copy").get("iterations").asLong()).isEqualTo(20);
    }

    @Test
    void jsonIsOneDocumentWithEveryFigurePerSize() throws Exception {
        assertThat(iwarp("bench write -a --max-size 1K --json" + SHORT)).as(err.toString()).isZero();
        JsonNode doc = JSON.readTree(out.toString()); // the whole of stdout: nothing else is printed
        assertThat(doc.get("format").asInt()).isEqualTo(1);
        assertThat(doc.get("tool").asText()).isEqualTo("iwarp bench write");
        assertThat(doc.get("perftest_equivalent").asText()).isEqualTo("ib_write_bw");
        assertThat(doc.get("kind").asText()).isEqualTo("bandwidth");
        assertThat(doc.get("role").asText()).isEqualTo("loopback");
        assertThat(doc.get("peer").isNull()).isTrue();
        List<Integer> sizes = new ArrayList<>();
        doc.get("settings").get("sizes").forEach(n -> sizes.add(n.asInt()));
        assertThat(sizes).containsExactly(2, 4, 8, 16, 32, 64, 128, 256, 512, 1024);
        assertThat(doc.get("settings").get("iterations").asLong()).isEqualTo(20);
        assertThat(doc.get("settings").get("crc").asText()).isEqualTo("on");
        assertThat(doc.get("settings").get("poll").asText()).isEqualTo("busy"); // --poll's default, perftest's
        assertThat(doc.get("settings").get("order").asText()).isEqualTo("rdma-first"); // --order's default
        assertThat(doc.get("machine").get("cores").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(doc.get("machine").get("jdk").asText()).isEqualTo(System.getProperty("java.version"));
        assertThat(doc.get("machine").get("transport").asText()).isIn("epoll", "nio");
        JsonNode results = doc.get("results");
        assertThat(results).hasSize(sizes.size());
        for (int i = 0; i < sizes.size(); i++) {
            JsonNode r = results.get(i);
            assertThat(r.get("bytes").asInt()).isEqualTo(sizes.get(i));
            assertThat(r.get("partial").asBoolean()).isFalse();
            JsonNode rdma = r.get("rdma");
            assertThat(rdma.get("iterations").asLong()).isEqualTo(20);
            for (String field : List.of("bw_peak_mb_per_sec", "bw_average_mb_per_sec", "bw_peak_gbit_per_sec",
                    "bw_average_gbit_per_sec", "msg_rate_mpps")) {
                assertThat(rdma.get(field).asDouble()).as(field).isPositive();
            }
            // MB = 2^20 octets, Gb = 10^9 bits: the same figure in both units
            assertThat(rdma.get("bw_average_gbit_per_sec").asDouble()).isCloseTo(
                    rdma.get("bw_average_mb_per_sec").asDouble() * (1 << 20) * 8 / 1e9,
                    org.assertj.core.data.Percentage.withPercentage(0.001));
            assertThat(r.get("tcp").get("bw_average_mb_per_sec").asDouble()).isPositive();
            assertThat(r.get("ratio").asDouble()).isCloseTo(rdma.get("bw_average_mb_per_sec").asDouble()
                    / r.get("tcp").get("bw_average_mb_per_sec").asDouble(),
                    org.assertj.core.data.Percentage.withPercentage(0.001));
            assertThat(r.get("tcp_copy").get("bw_average_mb_per_sec").asDouble()).isPositive();
            assertThat(r.get("ratio_copy").asDouble()).isCloseTo(rdma.get("bw_average_mb_per_sec").asDouble()
                    / r.get("tcp_copy").get("bw_average_mb_per_sec").asDouble(),
                    org.assertj.core.data.Percentage.withPercentage(0.001));
        }
        assertThat(doc.get("interrupted").asBoolean()).isFalse();
        assertThat(doc.get("verification").get("verified").asBoolean()).isTrue();
        assertThat(doc.get("verification").get("state").asText()).isEqualTo("verified");
        assertThat(doc.get("tcp_note").isNull()).isTrue();
        assertThat(doc.get("exit_status").asInt()).isZero();
    }

    @Test
    void latencyJsonHasPercentilesAndHPrintsTheDistribution() throws Exception {
        Path file = dir.resolve("lat.json");
        assertThat(iwarp("bench lat-send -s 64 -H --out_json " + file + SHORT)).as(err.toString()).isZero();
        // the table still goes to stdout, with -H's distribution after the row
        assertThat(out.toString()).contains("t_typical[usec]").contains("# histogram, 64 octets, RDMA")
                .contains("# histogram, 64 octets, plain TCP").contains("Percentile");
        JsonNode doc = JSON.readTree(file.toFile());
        assertThat(doc.get("kind").asText()).isEqualTo("latency");
        JsonNode rdma = doc.get("results").get(0).get("rdma");
        assertThat(rdma.get("iterations").asLong()).isEqualTo(20);
        JsonNode p = rdma.get("percentiles_usec");
        assertThat(List.of("50", "90", "99", "99.9", "99.99")).allSatisfy(k -> assertThat(p.has(k)).as(k).isTrue());
        assertThat(p.get("50").asDouble()).isPositive().isLessThanOrEqualTo(p.get("99.99").asDouble());
        assertThat(rdma.get("t_min_usec").asDouble()).isLessThanOrEqualTo(rdma.get("t_typical_usec").asDouble());
        assertThat(rdma.get("t_typical_usec").asDouble()).isLessThanOrEqualTo(rdma.get("t_max_usec").asDouble());
        assertThat(doc.get("results").get(0).get("tcp").get("percentiles_usec").get("99").asDouble()).isPositive();
    }

    @Test
    void chartIsWellFormedSvgWithOnePointPerSizeAndTransport() throws Exception {
        Path svg = dir.resolve("bw.svg");
        assertThat(iwarp("bench read -a --max-size 256 --chart " + svg + SHORT)).as(err.toString()).isZero();
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        Document doc = factory.newDocumentBuilder().parse(svg.toFile()); // throws if not well-formed
        assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
        assertThat(points(doc, "rdma")).isEqualTo(8); // 2 .. 256
        assertThat(points(doc, "tcp")).isEqualTo(8);
        assertThat(points(doc, "tcp-copy")).as("the TCP-with-copy baseline").isEqualTo(8);

        Path html = dir.resolve("bw.html");
        assertThat(iwarp("bench write -s 4K --no-tcp --chart " + html + SHORT)).as(err.toString()).isZero();
        String page = Files.readString(html);
        assertThat(page).startsWith("<!DOCTYPE html>").contains("<svg").contains("class=\"point rdma\"")
                .doesNotContain("class=\"point tcp\"");
    }

    private static int points(Document doc, String series) {
        NodeList circles = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "circle");
        int n = 0;
        for (int i = 0; i < circles.getLength(); i++) {
            if (((Element) circles.item(i)).getAttribute("class").equals("point " + series)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void cpuColumnsAndTheJsonCpuObjectGiveTheEventLoopsCpuPerOctet() throws Exception {
        Path file = dir.resolve("cpu.json");
        assertThat(iwarp("bench write -s 4K -n 200 --warmup 0 --cpu --out_json " + file)).as(err.toString()).isZero();
        List<String> lines = List.of(out.toString().split("\\R"));
        assertThat(lines.get(2)).startsWith("# CPU: the event loops' CPU time (user + system; both ends, this process)");
        assertThat(lines.get(4).trim().split("\\s+")).endsWith("CPU[ns/B]", "TCP", "CPU[ns/B]", "cpu", "ratio",
                "TCP+copy", "CPU[ns/B]", "cpu", "ratio");
        String[] row = lines.get(5).trim().split("\\s+");
        assertThat(row).as("perftest's 5, TCP and TCP+copy with ratios 4, CPU 5").hasSize(14);
        JsonNode doc = JSON.readTree(file.toFile());
        JsonNode r = doc.get("results").get(0);
        JsonNode cpu = r.get("cpu");
        assertThat(cpu.get("scope").asText()).isEqualTo("both ends");
        for (String side : List.of("rdma", "tcp", "tcp_copy")) {
            JsonNode c = cpu.get(side);
            assertThat(c.get("event_loop_cpu_ns").asLong()).as(side).isPositive();
            assertThat(c.get("octets").asLong()).as(side).isEqualTo(c.get("messages").asLong() * 4096);
            assertThat(c.get("event_loop_ns_per_octet").asDouble()).as(side)
                    .isEqualTo(c.get("event_loop_cpu_ns").asDouble() / c.get("octets").asDouble());
            assertThat(c.has("app_cpu_ns")).as(side).isTrue();
        }
        assertThat(cpu.get("rdma").get("messages").asLong()).isEqualTo(r.get("rdma").get("iterations").asLong());
        assertThat(cpu.get("ratio").asDouble()).isCloseTo(cpu.get("rdma").get("event_loop_ns_per_octet").asDouble()
                / cpu.get("tcp").get("event_loop_ns_per_octet").asDouble(),
                org.assertj.core.data.Percentage.withPercentage(0.001));
        // the table prints the same figures
        assertThat(Double.parseDouble(row[9])).isCloseTo(cpu.get("rdma").get("event_loop_ns_per_octet").asDouble(),
                org.assertj.core.data.Offset.offset(0.0001));
        assertThat(row[11]).isEqualTo(String.format("%.3f", cpu.get("ratio").asDouble()));
    }

    @Test
    void latencyCpuIsPerRoundTrip() {
        assertThat(iwarp("bench lat-send -s 64 --cpu" + SHORT)).as(err.toString()).isZero();
        List<String> lines = List.of(out.toString().split("\\R"));
        assertThat(lines.get(4)).endsWith("CPU[usec/rt]   TCP CPU[usec/rt]   cpu ratio");
        String[] row = lines.get(5).trim().split("\\s+");
        assertThat(row).as("perftest's 9, TCP and ratio, CPU 3").hasSize(14);
        assertThat(Double.parseDouble(row[11])).isPositive();
        assertThat(Double.parseDouble(row[12])).isPositive();
    }

    @Test
    void theServerEndWritesItsOwnDocument() throws Exception {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Path serverFile = dir.resolve("server.json");
        String options = " -s 2K -n 50 --warmup 0.05 -p " + port;
        InProcessBenchServer server = InProcessBenchServer.start("bench write --server --json --out_json "
                + serverFile + options);
        assertThat(iwarp("bench write 127.0.0.1 --json" + options)).as(err.toString()).isZero();
        assertThat(server.exitStatus()).as(server.err()).isZero();
        assertThat(server.err()).contains("waiting for a client on port " + port);
        JsonNode doc = JSON.readTree(server.out()); // stdout is the document alone
        assertThat(JSON.readTree(serverFile.toFile())).isEqualTo(doc);
        assertThat(doc.get("role").asText()).isEqualTo("server");
        assertThat(doc.get("port").asInt()).isEqualTo(port);
        assertThat(doc.get("settings").get("iterations").asLong()).isEqualTo(50);
        assertThat(doc.get("machine").get("cores").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
        JsonNode served = doc.get("served");
        assertThat(served).hasSize(1);
        JsonNode size = served.get(0);
        assertThat(size.get("bytes").asInt()).isEqualTo(2048);
        assertThat(size.get("counted_by").asText()).isEqualTo("client");
        assertThat(size.get("messages").asLong()).as("the 50 measured, and the warm-up's").isGreaterThanOrEqualTo(50);
        assertThat(size.get("octets").asLong()).isEqualTo(size.get("messages").asLong() * 2048);
        assertThat(size.get("seconds").asDouble()).isPositive();
        assertThat(size.get("bw_average_mb_per_sec").asDouble()).isCloseTo(size.get("octets").asDouble()
                / size.get("seconds").asDouble() / (1 << 20), org.assertj.core.data.Percentage.withPercentage(0.001));
        JsonNode client = JSON.readTree(out.toString());
        assertThat(doc.get("client_report").get(0).get("rdma").get("iterations").asLong()).isEqualTo(50);
        assertThat(doc.get("client_report").get(0).get("rdma").get("bw_average_mb_per_sec").asDouble()).isCloseTo(
                client.get("results").get(0).get("rdma").get("bw_average_mb_per_sec").asDouble(),
                org.assertj.core.data.Percentage.withPercentage(0.001));
        assertThat(doc.get("verification").get("state").asText()).isEqualTo("verified");
        assertThat(doc.get("verification").get("peer_version").asText()).contains("iwarp4j");
        assertThat(client.get("results").get(0).get("cpu").get("scope").asText()).isEqualTo("this end");
    }

    @Test
    void aSendServerCountsTheMessagesItself() throws Exception {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        String options = " -a --max-size 64 -n 30 --warmup 0 --no-tcp -p " + port;
        InProcessBenchServer server = InProcessBenchServer.start("bench send --server --json" + options);
        assertThat(iwarp("bench send 127.0.0.1" + options)).as(err.toString()).isZero();
        assertThat(server.exitStatus()).as(server.err()).isZero();
        JsonNode served = JSON.readTree(server.out()).get("served");
        assertThat(served).hasSize(6); // 2 .. 64
        for (int i = 0; i < 6; i++) {
            assertThat(served.get(i).get("bytes").asInt()).isEqualTo(2 << i);
            assertThat(served.get(i).get("counted_by").asText()).isEqualTo("server");
            assertThat(served.get(i).get("messages").asLong()).as("-n 30, no warm-up").isEqualTo(30);
        }
    }

    @Test
    void aBackgroundLoadRunsInAnotherProcessForTheRunOnly() throws Exception {
        assertThat(iwarp("bench write -s 1K --background-load 1 --json --no-tcp" + SHORT)).as(err.toString()).isZero();
        JsonNode load = JSON.readTree(out.toString()).get("settings").get("background_load");
        assertThat(load.get("threads").asInt()).isEqualTo(1);
        long pid = load.get("pid").asLong();
        assertThat(pid).isPositive().isNotEqualTo(ProcessHandle.current().pid());
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("the load's process has ended with the run").isFalse();
        assertThat(iwarp("bench write --background-load -1")).isEqualTo(2);
        assertThat(err.toString()).contains("--background-load -1: must be 0 (none) or more threads");
    }

    @Test
    void perftestSpellingsAreAcceptedAndTheUnusedOnesSaidSo() {
        assertThat(iwarp("bench write -s 4K -F -R -d siw0 -i 1 --report_gbits --no-tcp" + SHORT))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("BW average[Gb/sec]");
        assertThat(err.toString()).contains("iwarp bench write: -F ignored")
                .contains("iwarp bench write: -d siw0 not used").contains("iwarp bench write: -i 1 not used");
    }

    @Test
    void aPortInUseIsSaidInWordsWithItsPort() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            int port = taken.getLocalPort();
            assertThat(iwarp("bench write --server -p " + port)).isEqualTo(3);
            assertThat(err.toString().strip()).isEqualTo("iwarp bench write: 0.0.0.0:" + port + " is already in use");
        }
    }

    @Test
    void anUnknownHostIsSaidInWords() {
        assertThat(iwarp("bench write nosuchhost.invalid -s 4K" + SHORT)).isEqualTo(3);
        assertThat(err.toString().strip()).isEqualTo("iwarp bench write: no such host: nosuchhost.invalid");
    }
}
