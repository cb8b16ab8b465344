package org.iwarp4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a new user meets before any transfer: {@code -V} on every command, a missing command as a
 * usage error, {@code --transport} in either case, and help whose summaries and footers read as
 * whole sentences.
 */
class IwarpCommandLineTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        String[] args = line.isEmpty() ? new String[0] : line.split(" ");
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-V", "demo -V", "bench -V", "bench write -V", "bench lat-send -V", "bench rpc -V",
            "nfs -V", "nfs ls -V", "pcap -V"})
    void everyCommandPrintsTheVersion(String line) {
        assertThat(iwarp(line)).isZero();
        assertThat(out.toString().strip()).isEqualTo(IwarpCommand.VERSION);
    }

    @Test
    void noCommandIsAUsageErrorLikeBenchWithoutATest() {
        assertThat(iwarp("")).isEqualTo(2);
        assertThat(err.toString()).startsWith("iwarp: Missing required subcommand").contains("see iwarp --help")
                .doesNotContain("Usage:");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void transportNamesTakeEitherCase() {
        // Rejected before anything runs, so only the parse is exercised: -q 0 fails after --transport.
        assertThat(iwarp("bench write --transport nio -q 0")).isEqualTo(2);
        assertThat(err.toString()).doesNotContain("Invalid value for option '--transport'")
                .contains("--qp 0: must be at least 1");
    }

    @Test
    void commandSummariesAreWholeSentences() {
        assertThat(iwarp("--help")).isZero();
        assertThat(summary("demo")).endsWith("every octet verified.");
        assertThat(iwarp("bench --help")).isZero();
        assertThat(summary("bench")).endsWith("each against plain TCP.");
    }

    @Test
    void benchFootersDoNotLeaveAWordAlone() {
        assertThat(iwarp("bench write --help")).isZero();
        assertThat(out.toString().lines()).doesNotContain("verify,")
                .contains("verify, 2 usage error, 3 no connection, 130 stopped by Ctrl-C.");
    }

    /** The command list's entry for {@code name}, its wrapped lines joined. */
    private String summary(String name) {
        List<String> lines = out.toString().lines().toList();
        int at = -1;
        for (int i = 0; i < lines.size() && at < 0; i++) {
            if (lines.get(i).startsWith("  " + name + " ")) {
                at = i;
            }
        }
        assertThat(at).as("%s listed in%n%s", name, out).isNotNegative();
        StringBuilder text = new StringBuilder(lines.get(at).strip().substring(name.length()).strip());
        for (int i = at + 1; i < lines.size() && lines.get(i).startsWith("         "); i++) {
            text.append(' ').append(lines.get(i).strip());
        }
        return Arrays.stream(text.toString().split("\\s+")).reduce((a, b) -> a + " " + b).orElse("");
    }
}
