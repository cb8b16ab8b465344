package org.iwarp4j.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.iwarp4j.cli.ChildIwarp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C during {@code iwarp bench write -a}, as a person would press it: SIGINT to a second JVM
 * once its first row is out. The rows so far and a partial row for the size being measured are
 * printed and written to {@code --out_json}, and the command exits 130. Every wait has a timeout.
 */
class BenchInterruptTest {

    @TempDir
    Path dir;

    private ChildIwarp bench;

    @AfterEach
    void stop() throws InterruptedException {
        if (bench != null) {
            bench.close();
        }
    }

    @Test
    void ctrlCPrintsTheRowsSoFarAndAPartialRowThenExits130() throws Exception {
        Path json = dir.resolve("run.json");
        // One second per size and transport: the signal lands inside a measurement.
        bench = ChildIwarp.start("bench", "write", "-a", "--max-size", "64K", "-D", "1", "--warmup", "0.1",
                "--out_json", json.toString());
        bench.awaitLine(Pattern.compile("^ 2 +\\d+ "), 120); // the first row, before the others are measured
        bench.interrupt();
        String output = bench.awaitExit(60);
        assertThat(bench.process().exitValue()).as(output).isEqualTo(130);
        // The interrupted size's row: what it measured, or (the signal came during its warm-up) that it had
        // not begun measuring.
        assertThat(output).contains("# interrupted (Ctrl-C): 1 size(s) done, one partial")
                .containsPattern("# partial: the run was stopped while 4 octets were measured"
                        + "|# 4 octets: stopped before anything was measured");
        assertThat(output).doesNotContain("65536 "); // it did not run to the end

        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertThat(doc.get("interrupted").asBoolean()).isTrue();
        assertThat(doc.get("exit_status").asInt()).isEqualTo(130);
        JsonNode results = doc.get("results");
        assertThat(results).hasSize(2); // the first row came out, the signal followed at once
        assertThat(results.get(0).get("bytes").asInt()).isEqualTo(2);
        assertThat(results.get(0).get("partial").asBoolean()).isFalse();
        JsonNode last = results.get(results.size() - 1);
        assertThat(last.get("partial").asBoolean()).as(last.toString()).isTrue();
        for (int i = 0; i < results.size() - 1; i++) {
            assertThat(results.get(i).get("partial").asBoolean()).isFalse();
        }
        assertThat(doc.get("verification").get("state").asText()).isEqualTo("not finished: interrupted");
    }

    @Test
    void runInfinitelyRepeatsUntilCtrlC() throws Exception {
        bench = ChildIwarp.start("bench", "write", "-s", "4K", "-n", "20", "--warmup", "0", "--no-tcp",
                "--run_infinitely");
        bench.awaitLine(Pattern.compile("^ 4096 +20 "), 120);
        bench.awaitLine(Pattern.compile("^ 4096 +20 "), 120); // a second pass: it repeats
        bench.interrupt();
        String output = bench.awaitExit(60);
        assertThat(bench.process().exitValue()).as(output).isEqualTo(130);
        assertThat(output).contains("# interrupted (Ctrl-C): ");
    }
}
