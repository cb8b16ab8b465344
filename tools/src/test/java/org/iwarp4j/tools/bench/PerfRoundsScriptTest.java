package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/perf-rounds.sh} alternates {@code --order} between rounds: odd rounds measure
 * RDMA first, even ones TCP first, in every kind of round. Run against a stand-in for the {@code
 * iwarp} command that only notes its arguments (no benchmark runs); skipped where bash or python3
 * (which the script's summary needs) cannot be run.
 */
class PerfRoundsScriptTest {

    private static final Path SCRIPTS = Paths.get("..", "scripts");

    @TempDir
    Path tree;

    private static boolean runs(String... command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void roundsAlternateTheOrder() throws Exception {
        assumeTrue(runs("bash", "--version") && runs("python3", "--version"), "bash and python3 are needed");
        Path scripts = Files.createDirectories(tree.resolve("scripts"));
        for (String script : List.of("perf-rounds.sh", "perf-summary.py")) {
            Files.copy(SCRIPTS.resolve(script), scripts.resolve(script));
        }
        Path calls = tree.resolve("calls");
        Path iwarp = tree.resolve("iwarp");
        Files.writeString(iwarp, "#!/usr/bin/env bash\necho \"$*\" >> '" + calls + "'\necho '{}'\n");
        assertThat(iwarp.toFile().setExecutable(true)).isTrue();

        Process p = new ProcessBuilder("bash", scripts.resolve("perf-rounds.sh").toString(), "--rounds", "2",
                "--loaded", "2", "--markers", "2", "--nfs", "0", "--interleaved", "2", "--loaded-interleaved", "2",
                tree.resolve("out").toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the script ends").isTrue();
        assertThat(p.exitValue()).as(output).isZero();

        List<String> benchRuns = Files.readAllLines(calls).stream().filter(l -> l.startsWith("bench ")).toList();
        // Per round of each kind: quiet 6 + 2 latency, loaded 6, markers 2, interleaved 6, loaded interleaved 6.
        assertThat(benchRuns).hasSize(2 * (8 + 6 + 2 + 6 + 6));
        assertThat(benchRuns).filteredOn(l -> l.contains("--order rdma-first")).hasSize(8 + 6 + 2 + 6 + 6);
        assertThat(benchRuns).filteredOn(l -> l.contains("--order tcp-first")).hasSize(8 + 6 + 2 + 6 + 6);
        // The first run of every kind is round 1's, RDMA first; the kinds' second rounds come TCP first.
        assertThat(benchRuns.get(0)).contains("--order rdma-first");
        assertThat(benchRuns.get(8)).as("quiet round 2").contains("--order tcp-first");
        assertThat(benchRuns).filteredOn(l -> l.contains("--interleave 12"))
                .extracting(l -> l.contains("rdma-first") ? "rdma" : "tcp")
                .containsExactly("rdma", "rdma", "rdma", "rdma", "rdma", "rdma", "tcp", "tcp", "tcp", "tcp", "tcp", "tcp",
                        "rdma", "rdma", "rdma", "rdma", "rdma", "rdma", "tcp", "tcp", "tcp", "tcp", "tcp", "tcp");
    }
}
