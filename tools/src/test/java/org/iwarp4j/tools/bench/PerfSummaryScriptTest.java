package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/perf-summary.py}, which turns a directory of {@code scripts/perf-rounds.sh} runs
 * into the medians docs/performance.md reports: medians and ranges over rounds, each prefix (quiet,
 * loaded, markers) its own table, the NFS tables read from the text output, and runs that failed,
 * did not verify, stopped part-way or cannot be read named under "Skipped" rather than counted. Skipped where python3 cannot be run ({@code scripts/install-test-deps.sh}
 * installs it).
 */
class PerfSummaryScriptTest {

    private static final Path SCRIPT = Paths.get("..", "scripts", "perf-summary.py");

    @BeforeAll
    static void python3() throws InterruptedException {
        boolean runs;
        try {
            Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            runs = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            runs = false;
        }
        assumeTrue(runs, "python3 is not installed (scripts/install-test-deps.sh installs it)");
    }

    @TempDir
    Path dir;

    /** One run: MB/s of the three phases, the CPU ratio, and the two sides' loops' ns per octet. */
    private static String bandwidth(double rdma, double raw, double copy, double cpu, double rdmaNs, double tcpNs) {
        return bandwidth(rdma, raw, copy, cpu, rdmaNs, Double.toString(tcpNs), 0, true, false);
    }

    /**
     * One run as {@code iwarp bench --json} writes it: its exit status, whether it verified, whether
     * its row is partial; {@code tcpNs} is JSON ({@code null}: not measured).
     */
    private static String bandwidth(double rdma, double raw, double copy, double cpu, double rdmaNs, String tcpNs,
                                    int exitStatus, boolean verified, boolean partial) {
        return "{\"kind\":\"bandwidth\",\"exit_status\":" + exitStatus + ",\"verification\":{\"verified\":"
                + verified + "},\"results\":[{\"partial\":" + partial + ",\"rdma\":{\"bw_average_mb_per_sec\":"
                + rdma + "},\"tcp\":{\"bw_average_mb_per_sec\":" + raw + "},\"tcp_copy\":{\"bw_average_mb_per_sec\":"
                + copy + "},\"ratio\":" + rdma / raw + ",\"ratio_copy\":" + rdma / copy + ",\"cpu\":{\"ratio\":" + cpu
                + ",\"rdma\":{\"event_loop_ns_per_octet\":" + rdmaNs + "},\"tcp\":{\"event_loop_ns_per_octet\":"
                + tcpNs + "}}}]}";
    }

    /** A latency run that finished and verified; {@code tcp} is its TCP figure's JSON. */
    private static String latency(String tcp) {
        return "{\"kind\":\"latency\",\"exit_status\":0,\"verification\":{\"verified\":true},\"results\":[{"
                + "\"partial\":false,\"ratio\":0.5,\"rdma\":{\"t_typical_usec\":10.0},\"tcp\":" + tcp + "}]}";
    }

    private String summary() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", SCRIPT.toString(), dir.toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the script ends").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void mediansAndRangesPerCaseAndPrefix() throws Exception {
        // The rounds' ns per octet are chosen so that the ratio of the medians (0.6 / 0.4) differs
        // from the median of the CPU ratios (1.2).
        Files.writeString(dir.resolve("r1-write-65536.json"), bandwidth(3000, 3000, 2500, 1.0, 0.5, 0.5));
        Files.writeString(dir.resolve("r2-write-65536.json"), bandwidth(3600, 4000, 3000, 1.2, 0.6, 0.3));
        Files.writeString(dir.resolve("r3-write-65536.json"), bandwidth(1000, 2000, 2000, 2.0, 1.0, 0.4));
        Files.writeString(dir.resolve("l1-write-65536.json"), bandwidth(1500, 3000, 3000, 1.5, 0.75, 0.5));
        Files.writeString(dir.resolve("r1-lat-send.json"), latency("{\"t_typical_usec\":20.0}"));
        Files.writeString(dir.resolve("r4-read-65536.json"), "{\"results\": [");
        Files.writeString(dir.resolve("nfs-v3-1.txt"), String.join("\n",
                " operation  #bytes         #calls     RDMA[MB/sec]  RDMA[calls/sec]  TCP[MB/sec]  TCP[calls/sec]  ratio",
                " WRITE      805306368      768        1265.56       1265.6           1488.12      1488.1          0.850",
                " READ       805306368      768        1728.83       1728.8           2142.17      2142.2          0.807", ""));

        String out = summary();

        // ratios 1.00, 0.90, 0.50: median 0.90; with copy 1.20, 1.20, 0.50; CPU 1.0, 1.2, 2.0
        assertThat(out).contains("| write-65536 | 3 | 3000 (1000–3600) | 3000 (2000–4000) | 2500 (2000–3000)"
                + " | 0.90 (0.50–1.00) | 1.20 (0.50–1.20) | 1.20 (1.00–2.00) | 0.60 (0.50–1.00) | 0.40 (0.30–0.50)"
                + " | 1.50 |");
        assertThat(out).contains("## loaded (--background-load 1)");
        assertThat(out).contains("| write-65536 | 1 | 1500 | 3000 | 3000 | 0.50 | 0.50 | 1.50 | 0.75 | 0.50 | 1.50 |");
        assertThat(out).contains("| lat-send | 1 | 10.0 | 20.0 | 0.50 |");
        assertThat(out).contains("| 3 | WRITE | 1266 | 1488 | 0.85 |").contains("| 3 | READ | 1729 | 2142 | 0.81 |");
        assertThat(out).contains("## Skipped").contains("r4-read-65536.json (not readable)");
        assertThat(out).doesNotContain("## markers").doesNotContain("Windows of all rounds pooled");
    }

    /**
     * Runs that failed, did not verify, or stopped part-way are left out and named (the script's
     * docstring said so while it left out only documents it could not parse); the rounds count the
     * figures there are, and the ratio of the medians takes both sides over the same rounds.
     */
    @Test
    void failedUnverifiedAndPartialRunsAreSkippedAndNamed() throws Exception {
        Files.writeString(dir.resolve("r1-write-65536.json"), bandwidth(3000, 3000, 2500, 1.0, 0.5, "0.5", 0, true, false));
        Files.writeString(dir.resolve("r2-write-65536.json"), bandwidth(3600, 4000, 3000, 1.2, 0.6, "null", 0, true, false));
        Files.writeString(dir.resolve("r3-write-65536.json"), bandwidth(1000, 2000, 2000, 2.0, 1.0, "0.4", 0, true, false));
        Files.writeString(dir.resolve("r4-write-65536.json"), bandwidth(9000, 10, 10, 9, 9, "9", 1, false, false));
        Files.writeString(dir.resolve("r5-write-65536.json"), bandwidth(9000, 10, 10, 9, 9, "9", 0, false, false));
        Files.writeString(dir.resolve("r6-write-65536.json"), bandwidth(9000, 10, 10, 9, 9, "9", 0, true, true));
        Files.writeString(dir.resolve("r1-lat-send.json"), latency("{\"t_typical_usec\":20.0}"));
        Files.writeString(dir.resolve("r2-lat-send.json"), latency("null"));

        String out = summary();

        // Rounds 1-3 only; TCP's ns per octet in rounds 1 and 3: [2], and the ratio of the medians
        // pairs those rounds, median(0.5, 1.0) / median(0.5, 0.4) = 1.67 (not 0.6 / 0.45).
        assertThat(out).contains("| write-65536 | 3 | 3000 (1000–3600) | 3000 (2000–4000) | 2500 (2000–3000)"
                + " | 0.90 (0.50–1.00) | 1.20 (0.50–1.20) | 1.20 (1.00–2.00) | 0.60 (0.50–1.00)"
                + " | 0.45 (0.40–0.50) [2] | 1.67 |");
        assertThat(out).contains("| lat-send | 1 | 10.0 | 20.0 | 0.50 |");
        assertThat(out).contains("## Skipped").contains("r2-lat-send.json (a latency row without TCP)")
                .contains("r4-write-65536.json (exit status 1)").contains("r5-write-65536.json (not verified)")
                .contains("r6-write-65536.json (a partial row)");
    }

    @Test
    void interleavedRoundsPoolTheirWindows() throws Exception {
        // Two rounds of two windows: RDMA / raw 0.5, 0.7 | 0.9, 1.1 → pooled median 0.80 (0.50–1.10).
        Files.writeString(dir.resolve("i1-write-65536.json"), windowed(0.5, 0.7));
        Files.writeString(dir.resolve("i2-write-65536.json"), windowed(0.9, 1.1));

        String out = summary();

        assertThat(out).contains("## interleaved (--interleave)").contains("Windows of all rounds pooled");
        assertThat(out).contains("| write-65536 | 4 | 0.80 (0.50–1.10) | 0.40 (0.25–0.55) | 1.60 (1.00–2.20)"
                + " | - |");
    }

    /** One run of two windows with these RDMA / raw ratios; with copy half of it, CPU twice it, no CPU vs copy. */
    private static String windowed(double first, double second) {
        String windows = "";
        for (double r : new double[] {first, second}) {
            windows += (windows.isEmpty() ? "" : ",") + "{\"ratio\":" + r + ",\"ratio_copy\":" + r / 2
                    + ",\"cpu\":{\"ratio\":" + 2 * r + ",\"ratio_copy\":null}}";
        }
        return "{\"kind\":\"bandwidth\",\"exit_status\":0,\"verification\":{\"verified\":true},\"results\":[{"
                + "\"partial\":false,\"rdma\":{\"bw_average_mb_per_sec\":1000},"
                + "\"tcp\":{\"bw_average_mb_per_sec\":1250},\"ratio\":0.8,\"windows\":[" + windows + "]}]}";
    }
}
