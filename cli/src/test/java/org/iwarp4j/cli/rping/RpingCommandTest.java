package org.iwarp4j.cli.rping;

import org.iwarp4j.tools.rping.Rpings;
import org.iwarp4j.tools.rping.RpingClient;
import org.iwarp4j.tools.rping.RpingOptions;
import org.iwarp4j.tools.rping.RpingResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.iwarp4j.cli.IwarpCommand;
import org.iwarp4j.tools.rping.internal.PingData;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code iwarp rping}: rping's command line, its checks and messages, and both roles run as commands. */
class RpingCommandTest {

    private static RpingOptions parse(String... args) throws Exception {
        RpingCommand command = new RpingCommand();
        new CommandLine(command).parseArgs(args);
        return command.options();
    }

    @Test
    void rpingsOptionsAsRpingSpellsThem() throws Exception {
        RpingOptions o = parse("-c", "-vVd", "-a", "127.0.0.1", "-p", "9999", "-C", "5", "-S", "100", "--crc",
                "--markers", "--mpa-rev", "1", "--timeout", "2.5");
        assertThat(o.server()).isFalse();
        assertThat(o.address()).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(o.port()).isEqualTo(9999);
        assertThat(o.count()).isEqualTo(5);
        assertThat(o.size()).isEqualTo(100);
        assertThat(o.verbose()).isTrue();
        assertThat(o.validate()).isTrue();
        assertThat(o.debug()).isTrue();
        assertThat(o.crc()).isTrue();
        assertThat(o.markers()).isTrue();
        assertThat(o.mpaRevision()).isEqualTo(1);
        assertThat(o.timeout()).isEqualTo(Duration.ofMillis(2500));
        // Attached values, as getopt allows.
        RpingOptions attached = parse("-c", "-a127.0.0.1", "-C7", "-S64");
        assertThat(attached.count()).isEqualTo(7);
        assertThat(attached.size()).isEqualTo(64);
    }

    @Test
    void defaultsAreRpings() throws Exception {
        RpingOptions server = parse("-s");
        assertThat(server.server()).isTrue();
        assertThat(server.address()).isNull(); // every address
        assertThat(server.port()).isEqualTo(7174);
        assertThat(server.size()).isEqualTo(64);
        assertThat(server.count()).isZero();
        assertThat(server.verbose() || server.validate() || server.debug()).isFalse();
        assertThat(server.mpaRevision()).isEqualTo(2);
        assertThat(server.timeout()).isNull();
        // MPA: C=0 but CRC when asked, markers when asked, rping's IRD/ORD 1/1 (MPA2-R-001).
        assertThat(server.mpaSettings().crc()).hasToString("ACCEPT");
        assertThat(server.mpaSettings().markers()).hasToString("ACCEPT");
        assertThat(server.mpaSettings().ird()).isEqualTo(1);
        assertThat(server.mpaSettings().ord()).isEqualTo(1);
        assertThat(server.mpaSettings().privateData()).isEmpty();
        assertThat(parse("-s", "--crc", "--markers").mpaSettings().crc()).hasToString("REQUIRE");
        assertThat(parse("-s", "--crc", "--markers").mpaSettings().markers()).hasToString("REQUIRE");
    }

    @Test
    void rpingsRangeChecks() {
        assertThatThrownBy(() -> parse("-s", "-S", "22")).hasMessage("Invalid size 22 (valid range is 23 to 65535)");
        assertThatThrownBy(() -> parse("-s", "-S", "65536")).hasMessage("Invalid size 65536 (valid range is 23 to 65535)");
        assertThatThrownBy(() -> parse("-s", "-C", "-1")).hasMessage("Invalid count -1");
        assertThatThrownBy(() -> parse("-s", "--mpa-rev", "3")).hasMessage("Invalid MPA revision 3 (1 or 2)");
        assertThatThrownBy(() -> parse("-c")).hasMessage("-c: the client needs the server's address: -a ADDR");
        assertThatThrownBy(() -> parse("-c", "-a", "no-such-host.invalid"))
                .hasMessage("-a no-such-host.invalid: no such host");
    }

    @Test
    void rpingsOtherOptionsAreAcceptedAndTheOneCrcFormIsTaken() throws Exception {
        // -P persistent server, -q self-created QP, -t TOS, -I source address: parsed, not refused.
        RpingCommand server = new RpingCommand();
        new CommandLine(server).parseArgs("-s", "-P", "-q", "-t", "16");
        assertThat(server.persistent).isTrue();
        assertThat(server.selfCreatedQp).isTrue();
        assertThat(server.tos).isEqualTo(16);
        RpingCommand client = new RpingCommand();
        new CommandLine(client).parseArgs("-c", "-a", "127.0.0.1", "-I", "127.0.0.1");
        assertThat(client.sourceAddress).isEqualTo("127.0.0.1");
        // --crc alone, --crc=on|accept|off, as bench takes it; sizes with suffixes.
        assertThat(parse("-s", "--crc=off").mpaSettings().crc()).hasToString("OFF");
        assertThat(parse("-s", "--crc=accept").mpaSettings().crc()).hasToString("ACCEPT");
        assertThat(parse("-s", "--crc", "on").mpaSettings().crc()).hasToString("REQUIRE");
        assertThat(parse("-s", "-S", "1K").size()).isEqualTo(1024);
    }

    @Test
    void notAppliedOptionsAreSaidSo() throws Exception {
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder().count(1))) {
            Rpings.Output output = new Rpings.Output();
            int status = IwarpCommand.run(output.outWriter, output.errWriter, "rping", "-c", "-a", "127.0.0.1",
                    "-p", String.valueOf(server.port()), "-C", "1", "-I", "127.0.0.1", "-t", "16", "-q",
                    "--timeout", "30");
            assertThat(status).as(output.err.toString()).isZero();
            assertThat(output.err.toString()).contains("iwarp rping: -I 127.0.0.1 not applied")
                    .contains("iwarp rping: -t 16 not applied");
        }
    }

    @Test
    void badCommandLinesExitWithTwo() {
        assertThat(status("rping")).isEqualTo(2); // neither -s nor -c
        assertThat(status("rping", "-s", "-c", "-a", "127.0.0.1")).isEqualTo(2);
        assertThat(status("rping", "-s", "-S", "10")).isEqualTo(2);
        assertThat(status("rping", "-c")).isEqualTo(2);
        assertThat(status("rping", "-s", "--crc=maybe")).isEqualTo(2);
        Rpings.Output output = new Rpings.Output();
        assertThat(IwarpCommand.run(output.outWriter, output.errWriter, "rping", "-s", "-S", "10")).isEqualTo(2);
        assertThat(output.err.toString().lines().toList()).containsExactly(
                "iwarp rping: Invalid size 10 (valid range is 23 to 65535)", "see iwarp rping --help");
    }

    private static int status(String... args) {
        return IwarpCommand.run(new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter()), args);
    }

    @Test
    void helpListsEveryOption() {
        Rpings.Output output = new Rpings.Output();
        assertThat(IwarpCommand.run(output.outWriter, output.errWriter, "rping", "--help")).isZero();
        assertThat(output.out.toString()).contains("-s ", "-c ", "-a=ADDR", "-p=PORT", "-C=COUNT", "-S=SIZE", "-v ",
                "-V ", "-d ", "--crc", "--markers", "--mpa-rev=1|2", "Exit status");
        Rpings.Output top = new Rpings.Output();
        assertThat(IwarpCommand.run(top.outWriter, top.errWriter, "--help")).isZero();
        assertThat(top.out.toString()).contains("rping");
    }

    @Test
    void clientCommandAgainstOurServerPrintsRpingsLines() throws Exception {
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder().count(4))) {
            Rpings.Output output = new Rpings.Output();
            int status = IwarpCommand.run(output.outWriter, output.errWriter, "rping", "-c", "-a", "127.0.0.1",
                    "-p", String.valueOf(server.port()), "-C", "4", "-v", "-V", "-d", "--timeout", "30");
            assertThat(status).as(output.err.toString()).isZero();
            assertThat(output.linesStartingWith("ping data: ")).containsExactly(
                    "ping data: " + text(0, 64), "ping data: " + text(1, 64), "ping data: " + text(2, 64),
                    "ping data: " + text(3, 64));
            // rping's debug lines: each buffer advertised, each completion.
            assertThat(output.linesStartingWith("RDMA addr ")).hasSize(8)
                    .allMatch(l -> l.matches("RDMA addr [0-9a-f]+ rkey [0-9a-f]+ len 64"));
            assertThat(output.lines()).contains("rdma_connect successful", "recv completion", "send completion");
            assertThat(server.awaitResult().completed()).isEqualTo(4);
        }
    }

    @Test
    void serverCommandServesOurClientAndEndsWhenItDisconnects() throws Exception {
        StringWriter serverOut = new StringWriter();
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Pattern listen = Pattern.compile("rdma_listen on .*:(\\d+)");
        Writer watching = new Writer() {
            private final StringBuilder line = new StringBuilder();

            @Override
            public void write(char[] buf, int off, int len) {
                serverOut.write(buf, off, len);
                for (int i = off; i < off + len; i++) {
                    if (buf[i] == '\n') {
                        Matcher m = listen.matcher(line);
                        if (m.find()) {
                            listening.complete(Integer.parseInt(m.group(1)));
                        }
                        line.setLength(0);
                    } else {
                        line.append(buf[i]);
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        StringWriter serverErr = new StringWriter();
        CompletableFuture<Integer> serverStatus = CompletableFuture.supplyAsync(() -> IwarpCommand.run(
                new PrintWriter(watching, true), new PrintWriter(serverErr, true),
                "rping", "-s", "-a", "127.0.0.1", "-p", "0", "-C", "3", "-v", "-V", "-d", "--timeout", "30"));
        int port = listening.get(Rpings.WAIT_SECONDS, TimeUnit.SECONDS);

        Rpings.Output client = new Rpings.Output();
        RpingResult result = new RpingClient(Rpings.client(port).count(3).validate(true).build(), client.outWriter,
                client.errWriter).run();
        assertThat(result.isSuccess()).as(client.err.toString()).isTrue();
        assertThat(serverStatus.get(Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).as(serverErr.toString()).isZero();

        List<String> lines = serverOut.toString().lines().toList();
        assertThat(lines.stream().filter(l -> l.startsWith("server ping data: ")))
                .containsExactly("server ping data: " + text(0, 64), "server ping data: " + text(1, 64),
                        "server ping data: " + text(2, 64));
        assertThat(lines).contains("rdma_bind_addr successful", "server posted rdma read req ",
                "server received read complete", "server posted go ahead", "server rdma write complete ");
        assertThat(lines.stream().filter(l -> l.startsWith("Received rkey "))).hasSize(6)
                .allMatch(l -> l.matches("Received rkey [0-9a-f]+ addr [0-9a-f]+ len 64 from peer"));
        assertThat(lines.stream().filter(l -> l.startsWith("rdma write from lkey "))).hasSize(3)
                .allMatch(l -> l.matches("rdma write from lkey [0-9a-f]+ laddr [0-9a-f]+ len 64"));
        assertThat(serverErr.toString()).isEqualTo("server DISCONNECT EVENT..." + System.lineSeparator());
    }

    private static String text(int ping, int size) {
        return new String(PingData.of(ping, size), 0, size - 1, java.nio.charset.StandardCharsets.US_ASCII);
    }
}
