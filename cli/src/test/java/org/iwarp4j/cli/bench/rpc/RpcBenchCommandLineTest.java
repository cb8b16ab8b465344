package org.iwarp4j.cli.bench.rpc;

import org.iwarp4j.tools.rpc.EchoProcedure;
import org.iwarp4j.tools.rpc.RpcBenchReport;
import org.iwarp4j.tools.rpc.RpcBenchSettings;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code iwarp bench rpc} option parsing: help, defaults, usage errors exit with status 2. */
class RpcBenchCommandLineTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    @Test
    void helpListsTheOptionsAndExitStatuses() {
        assertThat(iwarp("bench rpc --help")).isZero();
        assertThat(out.toString()).contains("Usage: iwarp bench rpc").contains("HOST").contains("--server")
                .contains("-p, --port").contains("20050").contains("--tcp-port").contains("-P, --procedure")
                .contains("ECHO, SINK, SOURCE").contains("-s, --size").contains("-a, --all").contains("-n, --calls")
                .contains("-D, --duration").contains("--warmup").contains("-t, --in-flight").contains("--credits")
                .contains("--inline").contains("4096").contains("--transport").contains("--no-tcp")
                .contains("--metrics").contains("1 KiB ... 1 MiB")
                .contains("Exit status: 0 done and verified, 1").contains("3 no connection")
                .contains("warmed up on both transports before any is measured")
                .contains("transport measured first alternates row by row")
                .contains("until Ctrl-C (SIGINT) or SIGTERM").contains("exits 0");
        assertThat(out.toString()).doesNotContain("--max-size"); // hidden: for tests
    }

    @Test
    void benchHelpListsRpc() {
        assertThat(iwarp("bench --help")).isZero();
        assertThat(out.toString()).contains("rpc").contains("RPC-over-RDMA");
    }

    @Test
    void defaultsAreOneKibToOneMibInPowersOfFourAndEveryProcedure() {
        RpcBenchCommand command = parsed("");
        RpcBenchSettings s = command.settings();
        assertThat(s.sizes()).containsExactly(1024, 4096, 16384, 65536, 262144, 1048576);
        assertThat(s.procedures()).containsExactly(EchoProcedure.ECHO, EchoProcedure.SINK, EchoProcedure.SOURCE);
        assertThat(s.byDuration()).isTrue();
        assertThat(s.durationSeconds()).isEqualTo(0.5);
        assertThat(s.inFlight()).isEqualTo(32);
        assertThat(s.credits()).isEqualTo(32);
        assertThat(s.compareTcp()).isTrue();
        assertThat(s.warmupSeconds()).as("long enough to compile every layer").isEqualTo(3.0);
        assertThat(s.warmupSlice()).as("3 s over 3 procedures x 6 sizes x 2 transports").isEqualTo(3.0 / 36);
        // RFC 8797 inline size this end announces; the echo program's binding (RPC-R-015)
        assertThat(s.rdmaSettings().inlineSendSize()).isEqualTo(4096);
        assertThat(s.rdmaSettings().binding()).isInstanceOf(org.iwarp4j.rpcrdma.sample.EchoBinding.class);
    }

    @Test
    void allSizesAreEveryPowerOfTwoAndProceduresAnyCase() {
        RpcBenchSettings s = parsed("-a -P sink,Source -n 7 --inline 8192 --credits 8 -t 4 --no-tcp").settings();
        assertThat(s.sizes()).hasSize(11).startsWith(1024, 2048).endsWith(1048576);
        assertThat(s.procedures()).containsExactly(EchoProcedure.SINK, EchoProcedure.SOURCE);
        assertThat(s.calls()).isEqualTo(7);
        assertThat(s.rdmaSettings().inlineReceiveSize()).isEqualTo(8192);
        assertThat(s.rdmaSettings().credits()).isEqualTo(8);
        assertThat(s.inFlight()).isEqualTo(4);
        assertThat(s.compareTcp()).isFalse();
        assertThat(s.warmupSlice()).as("3 s over 2 procedures x 11 sizes, RDMA only").isEqualTo(3.0 / 22);
        assertThat(RpcBenchSettings.sizes(4, 5000)).as("--max-size cuts the list").containsExactly(1024, 4096);
    }

    private static RpcBenchCommand parsed(String args) {
        RpcBenchCommand command = new RpcBenchCommand();
        picocli.CommandLine line = new picocli.CommandLine(command);
        line.parseArgs(args.isEmpty() ? new String[0] : args.split(" "));
        return command;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "bench rpc --bogus | --bogus",
            "bench rpc somehost --server | HOST or --server",
            "bench rpc -s 4096 -a | -s or -a",
            "bench rpc -n 5 -D 1 | -n or -D",
            "bench rpc --inline 1000 | --inline",
            "bench rpc --credits 0 | --credits 0: must be 1..65535",
            "bench rpc -t 0 | --in-flight 0: must be at least 1",
            "bench rpc --warmup -1 | --warmup -1.0: must be 0 or more seconds",
            "bench rpc -s 0 | --size 0: must be 1..16M",
            "bench rpc -s 32M | --size 33554432: must be 1..16M",
            "bench rpc -P ping | ECHO, SINK or SOURCE",
            "bench rpc -p 70000 | --port 70000: must be 0..65535"})
    void usageErrorsExitWithTwo(String line, String message) {
        assertThat(iwarp(line)).isEqualTo(2);
        assertThat(err.toString()).contains(message);
    }

    /** The header says how the run is ordered: the warm-up over everything, then which transport goes first. */
    @Test
    void headerSaysHowTheRunIsOrdered() {
        assertThat(RpcBenchReport.order(parsed("-s 1024 -P echo,sink --warmup 2").settings())).isEqualTo(
                "warm-up first: 2.00 s of calls over all 2 rows on both transports (0.500 s each, at least one call; "
                        + "verified, not counted); then each row measures RDMA first on odd rows, TCP first on even rows");
        assertThat(RpcBenchReport.order(parsed("-s 1024 -P echo --no-tcp").settings())).isEqualTo(
                "warm-up first: 3.00 s of calls over all 1 row on RPC-over-RDMA (3.000 s each, at least one call; "
                        + "verified, not counted)");
        assertThat(RpcBenchReport.order(parsed("--warmup 0").settings()))
                .startsWith("no warm-up (--warmup 0): the first row measured pays for compiling the code; then");
    }

    /** The footer names what was checked in the replies of the procedures that ran, and only those. */
    @Test
    void footerNamesOnlyTheProceduresThatRan() {
        StringWriter text = new StringWriter();
        RpcBenchReport.footer(new PrintWriter(text), List.of(EchoProcedure.ECHO), List.of(), null);
        assertThat(text.toString()).contains("# data verified: every reply (ECHO octets)" + System.lineSeparator())
                .doesNotContain("SINK").doesNotContain("SOURCE");
        text.getBuffer().setLength(0);
        RpcBenchReport.footer(new PrintWriter(text), List.of(EchoProcedure.SOURCE, EchoProcedure.SINK), List.of(),
                "TCP comparison skipped (--no-tcp)");
        assertThat(text.toString()).contains("# data verified: every reply (SOURCE pattern, SINK length and CRC32c)")
                .contains("# TCP comparison skipped (--no-tcp)").doesNotContain("ECHO");
    }

    @Test
    void sizesAreListedOnceEach() {
        assertThat(List.copyOf(RpcBenchSettings.sizes(2, 1 << 20))).doesNotHaveDuplicates().isSorted();
    }
}
