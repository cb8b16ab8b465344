package org.iwarp4j.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code iwarp bench} option parsing: help on every command, and usage errors exit with status 2. */
class BenchCommandLineTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    @ParameterizedTest
    @ValueSource(strings = {"write", "read", "send", "lat-write", "lat-send"})
    void everyTestHasHelpWithPerftestOptionsAndExitCodes(String test) {
        assertThat(iwarp("bench " + test + " --help")).isZero();
        String help = out.toString();
        assertThat(help).contains("Usage: iwarp bench " + test).contains("HOST").contains("--server")
                .contains("-s, --size").contains("-n, --iters").contains("-D, --duration").contains("-a, --all")
                .contains("-q, --qp").contains("-t, --tx-depth").contains("-p, --port").contains("18515")
                .contains("--report-gbits").contains("--crc").contains("--markers").contains("--mpa-rev")
                .contains("--max-ulpdu").contains("--metrics").contains("--json").contains("--out_json")
                .contains("--chart").contains("--report_gbits").contains("--run_infinitely").contains("-F, --CPU-freq")
                .contains("-R, --rdma_cm").contains("-d, --ib-dev").contains("-i, --ib-port")
                .contains("Exit status: 0 done and verified, 1").contains("3 no connection");
        assertThat(help).contains("--max-size=SIZE"); // -a up to a size: the README's chart runs it
    }

    @org.junit.jupiter.api.Test
    void benchHelpListsTheFiveTests() {
        assertThat(iwarp("bench --help")).isZero();
        assertThat(out.toString()).contains("write").contains("read").contains("send").contains("lat-write")
                .contains("lat-send");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "bench write --bogus | --bogus",
            "bench write somehost --server | HOST or --server",
            "bench write -s 64 -a | -s or -a",
            "bench write -n 5 -D 1 | -n or -D",
            "bench write --crc maybe | --crc maybe: must be on, accept or off",
            "bench lat-send --poll spin | must be busy or event",
            "bench write --order last | --order last: must be rdma-first or tcp-first",
            "bench write --mpa-rev 3 | --mpa-rev",
            "bench write --max-ulpdu 64 | --max-ulpdu",
            "bench write -q 0 | iwarp bench write: --qp 0: must be at least 1",
            "bench write -s 0 | iwarp bench write: --size 0: must be at least 1",
            "bench write -t 0 | --tx-depth 0: must be at least 1",
            "bench write -D 0 | --duration 0.0: must be more than 0 seconds",
            "bench write --chart x.png | --chart x.png: must end in .svg or .html",
            "bench write -s 64X | --size 64X: not a size: give octets, or a number with K, M or G",
            "bench write -p abc | --port abc: not a number",
            "bench write -s abc | -s",
            "bench lat-write -q 2 | one queue pair",
            "bench send -p 70000 | --port 70000: must be 0..65535",
            "bench write -D 2 --interleave 0 | --interleave 0: must be at least 1",
            "bench write -n 100 --interleave 2 | --interleave 2: needs a bandwidth test run by duration (-D)",
            "bench write --interleave 2 | --interleave 2: needs a bandwidth test run by duration (-D)",
            "bench lat-send -D 2 --interleave 2 | --interleave 2: needs a bandwidth test run by duration (-D)",
            "bench read -D 2 --interleave 2 --no-tcp | --interleave 2: interleaves RDMA with the TCP comparison"})
    void usageErrorsExitWithTwo(String line, String message) {
        assertThat(iwarp(line)).isEqualTo(2);
        assertThat(err.toString()).contains(message);
        // One line naming the option, value and rule, then where the help is: no usage dump.
        String test = line.split(" ")[1];
        assertThat(err.toString().lines().toList()).hasSize(2).last().isEqualTo("see iwarp bench " + test + " --help");
        assertThat(err.toString()).doesNotContain("Usage:");
    }
}
