package org.iwarp4j.cli.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.iwarp4j.cli.IwarpCommand;
import org.iwarp4j.tools.bench.BenchReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code iwarp nfs bench} against its own server in this process: WRITE and READ over RPC-over-RDMA
 * and over TCP, positive figures (never their speed), every pass verified, the RFC 8267 data path
 * (WRITE data by RDMA Read from Read chunks, READ data by RDMA Write into Write chunks: ULB-R-006,
 * ULB-R-019) seen in the server RNIC's meters, and the file removed afterwards.
 */
class NfsBenchLoopbackTest {

    static final List<String> COLUMNS = List.of("operation", "#bytes", "#calls", "RDMA[MB/sec]", "RDMA[calls/sec]",
            "TCP[MB/sec]", "TCP[calls/sec]", "ratio");

    @TempDir
    Path dir;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    private List<String[]> rows() {
        List<String> lines = Arrays.asList(out.toString().strip().split("\\R"));
        int first = lines.indexOf(BenchReport.LINE) + 2;
        assertThat(lines.get(first - 1).trim().split("\\s+")).containsExactlyElementsOf(COLUMNS);
        return lines.subList(first, lines.lastIndexOf(BenchReport.LINE)).stream()
                .map(l -> l.trim().split("\\s+")).toList();
    }

    @Test
    void writeAndReadOverRdmaAndTcpVerifiedWithTheRdmaDataPath() throws Exception {
        long size = 3 << 20;
        int wsize = 64 << 10;
        int rsize = 256 << 10;
        assertThat(iwarp("nfs bench -s 3m --wsize 64k --rsize 256k -n 1 --warmup 0 --steady-cap 0.5 -t 4 --dir " + dir))
                .as(err.toString()).isZero();
        String text = out.toString();
        assertThat(text).startsWith("# iwarp nfs bench: NFSv4.2 WRITE and READ of one 3 MiB file over RPC-over-RDMA")
                .contains("loopback: an iwarp4j server on " + dir.toRealPath())
                .contains("rsize " + rsize + ", wsize " + wsize + ", 4 calls in flight, 1 pass per operation")
                .contains("# data verified: every READ pass's CRC32C equals the written data's, every WRITE complete "
                        + "with a steady write verifier through COMMIT, the server's file on disk too")
                .contains("# then warm-up rounds until one spends under 2.0 % of its time in JIT compilation (at most "
                        + "0.5 s); measured passes alternate between the transports");
        // the rounds' outcome, whichever ended them: under the share, or the cap (said as such)
        Matcher warmUp = Pattern.compile("# warm-up: 0 passes per transport, then (\\d+) rounds? in [0-9.]+ s; the "
                + "last spent [0-9.]+ % of its time in JIT compilation \\((under 2\\.0 %|not under 2\\.0 %\\): "
                + "stopped at the cap of 0.5 s, NOT steady)$", Pattern.MULTILINE).matcher(text);
        assertThat(warmUp.find()).as(text).isTrue();
        assertThat(Integer.parseInt(warmUp.group(1))).isPositive();
        // The server's pipeline depth: every meter recorded (WRITEs pulled with RDMA Reads, both transports served).
        Matcher depth = Pattern.compile("# server depth \\(max/median/mean\\): RDMA credits granted (\\d+), in use "
                + "(\\d+)/\\d+/[0-9.]+, RDMA Reads outstanding per QP (\\d+)/\\d+/[0-9.]+, calls in progress rdma "
                + "\\d+/\\d+/[0-9.]+, calls in progress tcp \\d+/\\d+/[0-9.]+$", Pattern.MULTILINE).matcher(text);
        assertThat(depth.find()).as(text).isTrue();
        assertThat(Integer.parseInt(depth.group(1))).isPositive();
        assertThat(Integer.parseInt(depth.group(2))).isPositive();
        // never more Reads outstanding than the default ORD of 16 (RFC 6581 §9.1)
        assertThat(Integer.parseInt(depth.group(3))).isBetween(1, 16);
        List<String[]> rows = rows();
        assertThat(rows.stream().map(r -> r[0])).containsExactly("WRITE", "READ");
        String[] write = rows.get(0);
        String[] read = rows.get(1);
        assertThat(Long.parseLong(write[1])).isEqualTo(size);
        assertThat(Long.parseLong(write[2])).isEqualTo(size / wsize);
        assertThat(Long.parseLong(read[1])).isEqualTo(size);
        assertThat(Long.parseLong(read[2])).isEqualTo(size / rsize);
        for (String[] row : rows) {
            for (int column = 3; column < 8; column++) {
                assertThat(Double.parseDouble(row[column])).as("%s column %d", row[0], column).isPositive();
            }
        }
        Matcher path = Pattern.compile("(\\d+) RDMA Read Requests \\(WRITE data pulled from Read chunks\\), (\\d+) RDMA "
                + "Writes \\(READ data pushed into Write chunks\\)").matcher(text);
        assertThat(path.find()).isTrue();
        assertThat(Long.parseLong(path.group(1))).as("a Read chunk per WRITE").isGreaterThanOrEqualTo(size / wsize);
        assertThat(Long.parseLong(path.group(2))).as("a Write chunk per READ").isGreaterThanOrEqualTo(size / rsize);
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("the benchmark removes its files").isEmpty();
        }
    }

    @Test
    void durationModeWithoutTcpAndAnUnevenFileSize() {
        assertThat(iwarp("nfs bench -s 200000 --rsize 64k --wsize 32k -D 0.2 --warmup 1 --steady-cap 0 --no-tcp --dir " + dir))
                .as(err.toString()).isZero();
        String text = out.toString();
        assertThat(text).contains("one 200000 octet file").contains("passes for 0.2 s per operation")
                .contains("# TCP skipped (--no-tcp)").contains("# data verified")
                .contains("# warm-up: 1 pass per transport, then no rounds (--steady-cap 0)");
        for (String[] row : rows()) {
            long octets = Long.parseLong(row[1]);
            assertThat(octets).isPositive().isEqualTo(octets / 200000 * 200000); // whole passes
            assertThat(row[5]).isEqualTo("-");
            assertThat(row[7]).isEqualTo("-");
        }
    }

    @Test
    void versThreeAndFourOneAreMeasuredWhenAsked() {
        assertThat(iwarp("nfs bench -s 300k --rsize 64k --wsize 64k -n 1 --warmup 0 --steady-cap 0 --no-tcp --vers 3 --dir " + dir))
                .as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("# iwarp nfs bench: NFSv3 WRITE and READ").contains("# data verified");
        out.getBuffer().setLength(0);
        assertThat(iwarp("nfs bench -s 300k --rsize 64k --wsize 64k -n 1 --warmup 0 --steady-cap 0 --no-tcp --vers 4.1 --dir " + dir))
                .as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("# iwarp nfs bench: NFSv4.1 WRITE and READ").contains("# data verified");
        List<String[]> rows = rows();
        assertThat(Long.parseLong(rows.get(0)[2])).as("WRITE calls").isEqualTo(5);
        assertThat(Long.parseLong(rows.get(1)[2])).as("READ calls").isEqualTo(5);
    }

    @Test
    void theDefaultRunsOnATemporaryDirectoryItRemoves() throws Exception {
        assertThat(iwarp("nfs bench -s 256k -n 1 --warmup 0 --steady-cap 0")).as(err.toString()).isZero();
        Matcher m = Pattern.compile("an iwarp4j server on (\\S+) in this process").matcher(out.toString());
        assertThat(m.find()).isTrue();
        assertThat(Path.of(m.group(1))).doesNotExist();
        assertThat(out.toString()).contains("# data verified");
    }
}
