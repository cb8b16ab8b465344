package org.iwarp4j.cli.bench;

import org.iwarp4j.tools.bench.BenchReport;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every bench end to end over loopback, as docs/bench.md runs them: exit status 0, perftest's header
 * and columns, positive figures and "data verified" (never their speed). Short runs, small sizes.
 */
class BenchLoopbackTest {

    private static final String SHORT = " -n 40 --warmup 0.05";
    private static final List<String> BANDWIDTH_COLUMNS = List.of("#bytes", "#iterations", "BW", "peak[MB/sec]", "BW",
            "average[MB/sec]", "MsgRate[Mpps]", "TCP", "BW", "average[MB/sec]", "ratio", "TCP+copy", "BW",
            "average[MB/sec]", "ratio");

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    private List<String> lines() {
        return Arrays.asList(out.toString().strip().split("\\R"));
    }

    /** The figures lines: those between the rules after the column header. */
    private static List<String[]> figures(List<String> lines) {
        int first = lines.indexOf(BenchReport.LINE) + 2;
        int last = lines.lastIndexOf(BenchReport.LINE);
        return lines.subList(first, last).stream().map(l -> l.trim().split("\\s+")).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"write", "read", "send"})
    void bandwidthTestsPrintPerftestColumnsAndVerify(String test) {
        assertThat(iwarp("bench " + test + " -s 4096" + SHORT)).as(err.toString()).isZero();
        List<String> lines = lines();
        assertThat(lines.get(0)).startsWith("# iwarp bench " + test + ": ").contains("loopback")
                .contains("CRC on, markers off, MPA revision 2");
        assertThat(lines.get(3).trim().split("\\s+")).containsExactlyElementsOf(BANDWIDTH_COLUMNS);
        List<String[]> rows = figures(lines);
        assertThat(rows).hasSize(1);
        String[] row = rows.get(0);
        assertThat(row).as("size, iterations, peak, average, rate, TCP raw and ratio, TCP with copy and ratio")
                .hasSize(9);
        assertThat(row[0]).isEqualTo("4096");
        assertThat(Long.parseLong(row[1])).isEqualTo(40);
        for (int column = 2; column < 9; column++) {
            assertThat(Double.parseDouble(row[column])).as("column %d", column).isPositive();
        }
        assertThat(Double.parseDouble(row[2])).isGreaterThanOrEqualTo(Double.parseDouble(row[3])); // peak >= average
        assertThat(out.toString()).contains("# data verified: every size, against the pattern, at both ends");
    }

    @ParameterizedTest
    @ValueSource(strings = {"lat-write", "lat-send"})
    void latencyTestsPrintPerftestColumnsAndVerify(String test) {
        assertThat(iwarp("bench " + test + " -s 64" + SHORT)).as(err.toString()).isZero();
        List<String> lines = lines();
        assertThat(lines.get(1)).contains("latency one-way (half the round trip) in usec");
        assertThat(lines.get(3)).contains("#bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
                + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]")
                .endsWith("TCP t_typical[usec]   ratio");
        String[] row = figures(lines).get(0);
        assertThat(row).hasSize(11);
        assertThat(row[0]).isEqualTo("64");
        assertThat(row[1]).isEqualTo("40");
        double[] v = Arrays.stream(row, 2, 11).mapToDouble(Double::parseDouble).toArray();
        assertThat(Arrays.stream(v).min().orElseThrow()).isNotNegative();
        assertThat(v[0]).isPositive().isLessThanOrEqualTo(v[2]); // min <= typical
        assertThat(v[2]).isLessThanOrEqualTo(v[1]); // typical <= max
        assertThat(v[5]).isLessThanOrEqualTo(v[6]); // 99% <= 99.9%
        assertThat(v[7]).isPositive();
        assertThat(out.toString()).contains("# data verified");
    }

    /**
     * {@code --poll}: busy polling (the default) and blocking both complete the ping-pong, RDMA and
     * TCP, and the header says which ran.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.CsvSource({
            "lat-send,, busy", "lat-send, --poll busy, busy", "lat-send, --poll event, event",
            "lat-write, --poll event, event", "lat-write, --poll BUSY, busy"})
    void latencyTestsPollBusyOrWaitForEvents(String test, String option, String mode) {
        assertThat(iwarp("bench " + test + " -s 8" + (option == null ? "" : " " + option) + SHORT))
                .as(err.toString()).isZero();
        assertThat(lines().get(0)).contains("ping-pong, " + mode + " polling");
        String[] row = figures(lines()).get(0);
        assertThat(row[1]).isEqualTo("40");
        assertThat(Double.parseDouble(row[9])).as("TCP t_typical").isPositive();
        assertThat(out.toString()).contains("# data verified");
    }

    @Test
    void allSizesRunOneLinePerPowerOfTwo() {
        assertThat(iwarp("bench write -a --max-size 16 -n 20 --warmup 0.02")).as(err.toString()).isZero();
        assertThat(figures(lines()).stream().map(r -> r[0])).containsExactly("2", "4", "8", "16");
        assertThat(out.toString()).contains("# data verified");
    }

    @Test
    void sendWithAllSizesKeepsCreditsAcrossSizes() {
        assertThat(iwarp("bench send -a --max-size 8 -n 600 --warmup 0.02")).as(err.toString()).isZero();
        assertThat(figures(lines()).stream().map(r -> r[1])).containsExactly("600", "600", "600");
    }

    @Test
    void twoQueuePairsCountBoth() {
        assertThat(iwarp("bench write -q 2 -s 2048" + SHORT)).as(err.toString()).isZero();
        assertThat(lines().get(0)).contains("2 QPs");
        assertThat(figures(lines()).get(0)[1]).isEqualTo("80");
    }

    @Test
    void durationModeCountsWhatFitted() {
        assertThat(iwarp("bench read -s 1024 -D 0.2 --warmup 0.05")).as(err.toString()).isZero();
        assertThat(Long.parseLong(figures(lines()).get(0)[1])).isPositive();
    }

    /**
     * {@code --transport io_uring}: both the RDMA run and the plain-TCP ones on io_uring where it runs,
     * else the default with a warning.
     */
    @Test
    void ioUringIsUsedWhereAvailableElseTheDefaultWithAWarning() {
        assertThat(iwarp("bench write -s 4096 --transport io_uring" + SHORT)).as(err.toString()).isZero();
        org.iwarp4j.rdmap.Transport expected = org.iwarp4j.rdmap.Transport.IO_URING.isAvailable()
                ? org.iwarp4j.rdmap.Transport.IO_URING : org.iwarp4j.rdmap.Transport.best();
        assertThat(lines().get(0)).endsWith(", " + expected);
        if (expected == org.iwarp4j.rdmap.Transport.IO_URING) {
            assertThat(err.toString()).doesNotContain("not available");
        } else {
            assertThat(err.toString()).contains("IO_URING is not available here (").contains("; using " + expected);
        }
        assertThat(figures(lines()).get(0)).hasSize(9);
        assertThat(out.toString()).contains("# data verified: every size, against the pattern, at both ends");
    }

    @Test
    void gbitsAndNoTcpAndCrcOff() {
        assertThat(iwarp("bench write -s 1024 --report-gbits --no-tcp --crc accept --mpa-rev 1" + SHORT))
                .as(err.toString()).isZero();
        String text = out.toString();
        assertThat(text).contains("BW peak[Gb/sec]").contains("TCP comparison skipped (--no-tcp)")
                .contains("CRC accept").contains("MPA revision 1");
        assertThat(figures(lines()).get(0)[5]).isEqualTo("-");
        assertThat(figures(lines()).get(0)[7]).as("TCP with copy").isEqualTo("-");
    }

    @Test
    void metricsPrintTheRnicsMeters() {
        assertThat(iwarp("bench write -s 512 --metrics" + SHORT)).as(err.toString()).isZero();
        String text = out.toString();
        assertThat(text).contains("# meters, client RNIC:").contains("# meters, server RNIC:");
        assertThat(text).containsPattern("(?m)^iwarp\\.mpa\\.fpdus\\{direction=tx} COUNT=[1-9][0-9]*$");
        assertThat(text).containsPattern("(?m)^iwarp\\.mpa\\.bytes\\{direction=rx} COUNT=[1-9][0-9]*$");
    }

    /**
     * The client signals one request in half its tx depth (and the last of each post), as perftest
     * does with cq_mod: a thousand Writes and Reads make 16 completions, not a thousand.
     *
     * <p>Without a warm-up the count does not depend on the machine's speed (a warm-up posts as many
     * requests as fit in its seconds, more on a fast machine): with tx depth 128 one request in 64
     * is signalled, each completion frees a multiple of 64 slots, so every post call refills a
     * multiple of 64 and ends on a signalled request, however the completions and posts interleave;
     * only the last post of the run, 1000 being 15 x 64 + 40, ends on one more. (The Write run's
     * fence is a zero-length Read, counted apart; the Read run has none.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"write", "read"})
    void theBandwidthClientLeavesMostRequestsUnsignalled(String test) {
        assertThat(iwarp("bench " + test + " -s 1024 -n 1000 --warmup 0 -q 1 -t 128 --no-tcp --metrics"))
                .as(err.toString()).isZero();
        String text = out.toString();
        assertThat(figures(lines()).get(0)[1]).isEqualTo("1000");
        assertThat(text).contains("# data verified");
        String client = text.substring(text.indexOf("# meters, client RNIC:"), text.indexOf("# meters, server RNIC:"));
        String opcode = test.equals("write") ? "rdma_write" : "rdma_read";
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^iwarp\\.rdmap\\.completions\\{opcode="
                + opcode + ",status=success} COUNT=(\\d+)$").matcher(client);
        assertThat(m.find()).as(client).isTrue();
        // 64, 128, ..., 960 and the 1000th; with every one signalled it would be 1000
        assertThat(Long.parseLong(m.group(1))).as(client).isEqualTo(16);
    }

    @Test
    void serverAndHostSplitTheEndsAcrossCommands() throws Exception {
        int port = InProcessBenchServer.freePort();
        String serverOut = splitRun("write", " -s 2048 -n 50 --warmup 0.05 -q 2 -p " + port);
        assertThat(lines().get(0)).contains("client of 127.0.0.1:" + port);
        String[] row = figures(lines()).get(0);
        assertThat(row[1]).isEqualTo("100");
        assertThat(Double.parseDouble(row[5])).isPositive(); // plain TCP ran against the server too
        assertThat(out.toString()).contains("# data verified");
        assertThat(serverOut).contains("waiting for a client on port " + port)
                .contains("# client: iwarp4j 6.06 iwarp4j").contains("# data verified");
    }

    @Test
    void aSendServerSaysWhereTheFiguresAreInsteadOfAnEmptyTable() throws Exception {
        String serverOut = splitRun("send",
                " -s 2048 -n 30 --warmup 0.05 --no-tcp -p " + InProcessBenchServer.freePort());
        assertThat(serverOut).contains("# figures: in the client's output (its send run sends the server"
                + " no report)").contains("# data verified").doesNotContain("#bytes");
    }

    /**
     * {@code bench TEST --server} and, once it listens, {@code bench TEST 127.0.0.1} as two
     * commands; both must exit 0.
     */
    private String splitRun(String test, String options) throws Exception {
        InProcessBenchServer server = InProcessBenchServer.start("bench " + test + " --server" + options);
        assertThat(iwarp("bench " + test + " 127.0.0.1" + options)).as(err.toString()).isZero();
        assertThat(server.exitStatus()).as(server.err()).isZero();
        return server.out();
    }

    @Test
    void noServerMeansExitThree() throws Exception {
        int port = InProcessBenchServer.freePort();
        assertThat(iwarp("bench write 127.0.0.1 -p " + port + SHORT)).isEqualTo(3);
        assertThat(err.toString().strip()).isEqualTo("iwarp bench write: cannot connect to 127.0.0.1:" + port
                + ": Connection refused");
        assertThat(out.toString()).as("no table header for a run that never reached a server").isEmpty();
    }
}
