package org.iwarp4j.cli.bench.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.iwarp4j.cli.IwarpCommand;
import org.iwarp4j.tools.bench.BenchReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code iwarp bench rpc} with both ends in this process: the echo program over RPC-over-RDMA and
 * over TCP, every reply verified, positive figures (never their speed), and the RDMA data path
 * each procedure must take (RFC 8166 with the echo program's binding).
 */
class RpcBenchLoopbackTest {

    static final List<String> COLUMNS = List.of("procedure", "#bytes", "#calls", "RDMA[calls/sec]", "RDMA[MB/sec]",
            "TCP[calls/sec]", "TCP[MB/sec]", "ratio");

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    /** The figures lines: those between the rules after the column header. */
    static List<String[]> rows(String output) {
        List<String> lines = Arrays.asList(output.strip().split("\\R"));
        int first = lines.indexOf(BenchReport.LINE) + 2;
        int last = lines.lastIndexOf(BenchReport.LINE);
        assertThat(lines.get(first - 1).trim().split("\\s+")).containsExactlyElementsOf(COLUMNS);
        return lines.subList(first, last).stream().map(l -> l.trim().split("\\s+")).toList();
    }

    /** A port in use is said in words and is exit status 3, as for bench --server (not Netty's bind(..) text). */
    @Test
    void aServerWhosePortIsInUseSaysSoAndExitsThree() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            int port = taken.getLocalPort();
            assertThat(iwarp("bench rpc --server -p " + port)).isEqualTo(3);
            assertThat(err.toString().strip()).isEqualTo("iwarp bench rpc: 0.0.0.0:" + port + " (RDMA) or 0.0.0.0:"
                    + (port + 1) + " (TCP) is already in use");
        }
    }

    @Test
    void everyProcedureAndSizeOverBothTransportsVerified() {
        assertThat(iwarp("bench rpc --max-size 4096 -n 24 --warmup 0 -t 8")).as(err.toString()).isZero();
        String text = out.toString();
        assertThat(text).startsWith("# iwarp bench rpc: echo program 0x20495701 over RPC-over-RDMA v1")
                .contains("loopback, both ends in this process")
                .contains("inline 4096/4096 (call/reply), 32 credits granted, Send with Invalidate on")
                .contains("; 24 calls per row and transport; ")
                .contains("# no warm-up (--warmup 0)")
                .contains("# data verified: every reply (ECHO octets, SINK length and CRC32c, SOURCE pattern)");
        List<String[]> rows = rows(text);
        assertThat(rows.stream().map(r -> r[0] + " " + r[1])).containsExactly("ECHO 1024", "ECHO 4096",
                "SINK 1024", "SINK 4096", "SOURCE 1024", "SOURCE 4096");
        for (String[] row : rows) {
            assertThat(row).hasSize(8);
            assertThat(row[2]).isEqualTo("24");
            for (int column = 3; column < 8; column++) {
                assertThat(Double.parseDouble(row[column])).as("%s column %d", row[0], column).isPositive();
            }
        }
        // RPC-R-003: never more calls without a reply than the credits granted
        Matcher m = Pattern.compile("at most (\\d+) calls without a reply \\(credits (\\d+)\\)").matcher(text);
        assertThat(m.find()).isTrue();
        assertThat(Integer.parseInt(m.group(1))).isBetween(1, Integer.parseInt(m.group(2)));
    }

    /**
     * Above the 4 KiB inline threshold SINK's data is a Read chunk the server pulls by RDMA Read
     * (RPC-R-015, RPC-R-024) and SOURCE's result a Write chunk the server fills by RDMA Write
     * (RPC-R-048): the server RNIC's meters count them, one per call at least.
     */
    @Test
    void largePayloadsMoveByRdmaReadAndWrite() {
        assertThat(iwarp("bench rpc -s 65536 -P sink,source -n 10 --warmup 0 --no-tcp --metrics"))
                .as(err.toString()).isZero();
        String text = out.toString();
        assertThat(rows(text)).hasSize(2).allSatisfy(r -> assertThat(r[5]).isEqualTo("-"));
        assertThat(text).contains("TCP comparison skipped (--no-tcp)").contains("# meters, server RNIC:");
        String server = text.substring(text.indexOf("# meters, server RNIC:"));
        assertThat(count(server, "rdma_read_request")).isGreaterThanOrEqualTo(10);
        assertThat(count(server, "rdma_write")).isGreaterThanOrEqualTo(10);
    }

    /** ECHO's data is not DDP-eligible: 16 KiB each way is a Long Call and a Long Reply (RPC-R-031), verified. */
    @Test
    void echoBeyondTheInlineThresholdIsALongCallAndReply() {
        assertThat(iwarp("bench rpc -s 16384 -P echo -n 10 --warmup 0 --no-tcp --metrics --inline 1024"))
                .as(err.toString()).isZero();
        String text = out.toString();
        assertThat(text).contains("inline 1024/1024")
                .contains("# data verified: every reply (ECHO octets)" + System.lineSeparator());
        String server = text.substring(text.indexOf("# meters, server RNIC:"));
        assertThat(count(server, "rdma_read_request")).as("Position-Zero Read chunks pulled").isGreaterThanOrEqualTo(10);
        assertThat(count(server, "rdma_write")).as("Reply chunks written").isGreaterThanOrEqualTo(10);
    }

    @Test
    void durationModeCountsWhatFitted() {
        assertThat(iwarp("bench rpc -s 1024 -P source -D 0.1 --warmup 0.05")).as(err.toString()).isZero();
        String[] row = rows(out.toString()).get(0);
        assertThat(Long.parseLong(row[2])).isPositive();
        assertThat(out.toString()).contains("0.10 s per row and transport")
                .contains("# warm-up first: 0.05 s of calls over all 1 row on both transports (0.025 s each")
                .contains("# data verified: every reply (SOURCE pattern)");
    }

    /** {@code --pcap}: the RPC-over-RDMA connection is recorded from its MPA Request on (RNICs built by this command). */
    @Test
    void pcapRecordsTheRdmaConnection(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("rpc.pcap");
        assertThat(iwarp("--pcap " + pcap + " bench rpc -s 8192 -P sink -n 3 --warmup 0 --no-tcp"))
                .as(err.toString()).isZero();
        assertThat(err.toString()).contains("iwarp pcap: 1 connection recorded in " + pcap);
        byte[] file = Files.readAllBytes(pcap);
        // the MPA Request's key (RFC 5044 §7.1) is on the wire in the recording
        assertThat(new String(file, StandardCharsets.ISO_8859_1)).contains("MPA ID Req Frame");
    }

    @Test
    void noServerMeansExitThree() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        assertThat(iwarp("bench rpc 127.0.0.1 -p " + port + " -n 1")).isEqualTo(3);
        assertThat(err.toString()).contains("iwarp bench rpc: RPC-over-RDMA to ").contains(":" + port);
    }

    /** The tx count of an RDMAP opcode in MeterPrinter's lines ({@code iwarp.rdmap.messages{...} COUNT=n}). */
    static long count(String meters, String opcode) {
        Matcher m = Pattern.compile("(?m)^iwarp\\.rdmap\\.messages\\{([^}]*)} COUNT=(\\d+)").matcher(meters);
        long sum = 0;
        while (m.find()) {
            List<String> tags = List.of(m.group(1).split(","));
            if (tags.contains("direction=tx") && tags.contains("opcode=" + opcode)) {
                sum += Long.parseLong(m.group(2));
            }
        }
        return sum;
    }
}
