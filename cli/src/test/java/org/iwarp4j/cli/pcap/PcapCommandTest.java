package org.iwarp4j.cli.pcap;

import org.iwarp4j.tools.pcap.CommandCapture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.iwarp4j.cli.IwarpCommand;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.Tshark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code iwarp pcap FILE -- COMMAND} and {@code iwarp --pcap FILE COMMAND}, judged by Wireshark:
 * tshark finds each RDMA connection by its MPA Request and Reply (MPA-R-053, MPA-R-044, MPA-R-045: so the
 * recording starts before the connection's first octet), decodes every FPDU with a good CRC32c
 * (MPA-R-002, MPA-R-010), shows the RDMAP messages each command sends, and finds no malformed frame
 * and no TCP anomaly (each connection once, nothing missing). Without tshark these tests are skipped.
 */
class PcapCommandTest {

    private static final int WAIT_SECONDS = 60;
    private static final byte[] MPA_REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    @Test
    void rpingServerAndClientEachRecordTheirConnection() throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        Path serverPcap = dir.resolve("rping-server.pcap");
        Path clientPcap = dir.resolve("rping-client.pcap");
        Output server = new Output("rdma_listen on .*:(\\d+)");
        CompletableFuture<Integer> serverStatus = CompletableFuture.supplyAsync(() -> IwarpCommand.run(
                server.out, server.err, "--pcap", serverPcap.toString(),
                "rping", "-s", "-a", "127.0.0.1", "-p", "0", "-C", "3", "-V", "-d", "--timeout", "30"));
        int port = Integer.parseInt(server.match.get(WAIT_SECONDS, TimeUnit.SECONDS));
        Output client = new Output(null);
        int clientStatus = IwarpCommand.run(client.out, client.err, "pcap", clientPcap.toString(), "--",
                "rping", "-c", "-a", "127.0.0.1", "-p", String.valueOf(port), "-C", "3", "-V", "--crc",
                "--timeout", "30");
        assertThat(clientStatus).as(client.text()).isZero();
        assertThat(serverStatus.get(WAIT_SECONDS, TimeUnit.SECONDS)).as(server.text()).isZero();
        assertThat(client.errText.toString()).contains("iwarp pcap: 1 connection recorded in " + clientPcap);
        assertThat(server.errText.toString()).contains("iwarp pcap: 1 connection recorded in " + serverPcap);

        for (Path pcap : List.of(serverPcap, clientPcap)) {
            TcpConnection connection = PcapReader.read(pcap).onlyConnection();
            assertThat(connection.serverPort()).as("the server's real port").isEqualTo(port);
            assertThat(connection.client().address().getHostAddress()).isEqualTo("127.0.0.1");
            List<String> opcodes = judge(pcap, 1);
            // rping's three pings (rping.c): the client Sends its start buffer, the server RDMA Reads
            // it and Sends go-ahead, the client Sends its sink buffer, the server RDMA Writes it and
            // Sends go-ahead: 4 Sends, a Read Request and its Response and a Write per ping.
            Map<String, Long> toClient = byOpcode(Tshark.values(pcap, "iwarp_rdma && tcp.srcport == " + port,
                    "iwarp_rdma.opcode"));
            Map<String, Long> toServer = byOpcode(Tshark.values(pcap, "iwarp_rdma && tcp.dstport == " + port,
                    "iwarp_rdma.opcode"));
            assertThat(toClient).isEqualTo(Map.of("0x01", 3L, "0x03", 6L, "0x00", 3L));
            // The client, our Initiator, sends a zero-length RDMA Write (the wake-up) if the server has
            // said nothing a second after its first Send: a loaded machine may hold the server that long.
            long wakeUps = toServer.getOrDefault("0x00", 0L);
            assertThat(wakeUps).as("wake-up Writes").isLessThanOrEqualTo(1);
            toServer.remove("0x00");
            assertThat(toServer).isEqualTo(Map.of("0x03", 6L, "0x02", 3L));
            assertThat(opcodes).hasSize(21 + (int) wakeUps);
        }
    }

    @Test
    void benchWriteOnLoopbackRecordsEveryConnectionOnce() throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        Path pcap = dir.resolve("bench-write.pcap");
        Output bench = new Output(null);
        int status = IwarpCommand.run(bench.out, bench.err, "--pcap", pcap.toString(),
                "bench", "write", "-n", "10", "-s", "4096", "--warmup", "0");
        assertThat(status).as(bench.text()).isZero();

        List<TcpConnection> connections = PcapReader.read(pcap).connections();
        assertThat(connections.stream().map(TcpConnection::serverPort).collect(Collectors.toSet()))
                .as("every connection goes to the bench server's port").hasSize(1).doesNotContain(0);
        List<TcpConnection> rdma = connections.stream().filter(PcapCommandTest::startsWithMpaRequest).toList();
        List<TcpConnection> plainTcp = connections.stream().filter(c -> !startsWithMpaRequest(c)).toList();
        // perftest with rdma_cm: a control connection, then one per queue pair (-q 1).
        assertThat(rdma).hasSize(2);
        assertThat(plainTcp).as("the plain-TCP comparison").isNotEmpty()
                .anyMatch(c -> c.clientToServer().byteCount() >= 10 * 4096);
        assertThat(bench.errText.toString()).contains("iwarp pcap: " + connections.size() + " connections recorded");

        judge(pcap, rdma.size());
        // The ten 4096-octet RDMA Writes, each message's last DDP segment once; not a zero-length
        // Write (ULPDU of 14 octets, the tagged header alone): the wake-up our Initiator sends if the
        // server, silent until the fence's Read Response, is held up a second by a loaded machine.
        String fields = Tshark.read(pcap, "-Y", "iwarp_rdma", "-T", "fields", "-E", "occurrence=a",
                "-E", "aggregator=;", "-e", "iwarp_rdma.opcode", "-e", "iwarp_ddp.last_flag",
                "-e", "iwarp_mpa.ulpdulength");
        int lastWriteSegments = 0;
        for (String line : fields.split("\\R")) {
            String[] columns = line.split("\t");
            if (columns.length < 3) {
                continue;
            }
            String[] opcodes = columns[0].split(";");
            String[] last = columns[1].split(";");
            String[] ulpduLength = columns[2].split(";");
            for (int i = 0; i < opcodes.length; i++) {
                if (opcodes[i].equals("0x00") && last[i].equals("1") && !ulpduLength[i].equals("14")) {
                    lastWriteSegments++;
                }
            }
        }
        assertThat(lastWriteSegments).isEqualTo(10);
    }

    @Test
    void theMpaDemoIsRecordedToo() throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        Path pcap = dir.resolve("demo.pcap");
        Output demo = new Output(null);
        assertThat(IwarpCommand.run(demo.out, demo.err, "pcap", pcap.toString(), "demo", "-n", "5", "-s", "100"))
                .as(demo.text()).isZero();
        assertThat(PcapReader.read(pcap).connections()).hasSize(1);
        String verbose = Tshark.read(pcap, "-V");
        assertThat(verbose).contains("ID Req frame", "ID Rep frame").doesNotContain("Bad CRC32");
        // The demo's ULPDUs are not DDP segments, so only the MPA layer is judged: 5 FPDUs each way.
        assertThat(Tshark.count(verbose, "(Good CRC32)")).isEqualTo(10);
    }

    @Test
    void aCommandStoppedByASignalLeavesAWholeFile() throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        Output server = new Output("rdma_listen on .*:(\\d+)");
        CompletableFuture<Integer> serverStatus = CompletableFuture.supplyAsync(() -> IwarpCommand.run(
                server.out, server.err, "rping", "-s", "-a", "127.0.0.1", "-p", "0", "-d", "--timeout", "30"));
        int port = Integer.parseInt(server.match.get(WAIT_SECONDS, TimeUnit.SECONDS));
        Path pcap = dir.resolve("stopped.pcap");
        // An endless client in a JVM of its own, stopped as Ctrl-C would stop it (SIGTERM here).
        Process client = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), IwarpCommand.class.getName(),
                "--pcap", pcap.toString(), "rping", "-c", "-a", "127.0.0.1", "-p", String.valueOf(port), "-C", "0",
                "-v").redirectErrorStream(true).start();
        int pings = 5;
        CompletableFuture<Void> pinged = CompletableFuture.runAsync(() -> {
            try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(client.getInputStream(),
                    StandardCharsets.UTF_8))) {
                int seen = 0;
                for (String line = lines.readLine(); line != null && seen < pings; line = lines.readLine()) {
                    seen += line.startsWith("ping data: ") ? 1 : 0;
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            pinged.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } finally {
            client.destroy();
            assertThat(client.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).as("the client JVM ended").isTrue();
        }
        serverStatus.get(WAIT_SECONDS, TimeUnit.SECONDS); // it lost its client: whatever its status, it ended

        // Without the close at exit the records would still be in the stream's buffer: a bare header.
        TcpConnection connection = PcapReader.read(pcap).onlyConnection();
        assertThat(connection.serverPort()).isEqualTo(port);
        assertThat(Tshark.read(pcap, "-V")).contains("ID Req frame", "ID Rep frame").doesNotContain("Malformed");
        // Each ping is 7 RDMAP messages; the client was stopped after its fifth.
        assertThat(Tshark.values(pcap, "iwarp_rdma", "iwarp_rdma.opcode")).hasSizeGreaterThanOrEqualTo(pings * 7 - 3);
    }

    @Test
    void theCommandsExitStatusIsKeptAndAFileIsWrittenAnyway() throws Exception {
        Path pcap = dir.resolve("refused.pcap");
        Output client = new Output(null);
        int port;
        try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        int status = IwarpCommand.run(client.out, client.err, "pcap", pcap.toString(), "rping", "-c", "-a",
                "127.0.0.1", "-p", String.valueOf(port), "-C", "1", "--timeout", "10");
        assertThat(status).as("rping's status: no connection").isEqualTo(1);
        assertThat(PcapReader.read(pcap).frameCount()).isZero();
        assertThat(client.errText.toString()).contains("iwarp pcap: 0 connections recorded in " + pcap);
    }

    @Test
    void commandLine() throws Exception {
        Output noCommand = new Output(null);
        assertThat(IwarpCommand.run(noCommand.out, noCommand.err, "pcap", dir.resolve("x.pcap").toString()))
                .isEqualTo(2);
        assertThat(noCommand.errText.toString()).contains("COMMAND");
        assertThat(Files.exists(dir.resolve("x.pcap"))).as("nothing to record, no file").isFalse();

        Output onlyDashes = new Output(null);
        assertThat(IwarpCommand.run(onlyDashes.out, onlyDashes.err, "pcap", dir.resolve("y.pcap").toString(), "--"))
                .isEqualTo(2);

        Output unwritable = new Output(null);
        Path nowhere = dir.resolve("missing").resolve("z.pcap");
        assertThat(IwarpCommand.run(unwritable.out, unwritable.err, "--pcap", nowhere.toString(), "demo", "-n", "1"))
                .isEqualTo(CommandCapture.EXIT_CANNOT_WRITE);
        assertThat(unwritable.errText.toString()).startsWith("iwarp pcap: cannot write " + nowhere);

        Output help = new Output(null);
        assertThat(IwarpCommand.run(help.out, help.err, "--help")).isZero();
        assertThat(help.outText.toString()).contains("--pcap=FILE", "pcap");
        Output pcapHelp = new Output(null);
        assertThat(IwarpCommand.run(pcapHelp.out, pcapHelp.err, "pcap", "--help")).isZero();
        assertThat(pcapHelp.outText.toString()).contains("Usage: iwarp pcap", "FILE", "COMMAND", "tshark -r FILE");
    }

    /**
     * tshark's verdict on {@code pcap}: {@code connections} MPA connections with Request and Reply,
     * a good CRC on every FPDU, nothing malformed, no TCP anomaly. Returns the RDMAP opcodes, one
     * per FPDU.
     */
    private static List<String> judge(Path pcap, int connections) throws Exception {
        String verbose = Tshark.read(pcap, "-V");
        assertThat(verbose).as(pcap + ": no malformed frame, no bad CRC")
                .doesNotContain("Malformed").doesNotContain("Bad CRC32");
        assertThat(Tshark.values(pcap, "iwarp_mpa.req", "iwarp_mpa.key.req")).as("MPA Requests").hasSize(connections);
        assertThat(Tshark.values(pcap, "iwarp_mpa.rep", "iwarp_mpa.key.rep")).as("MPA Replies").hasSize(connections);
        List<String> opcodes = Tshark.values(pcap, "iwarp_rdma", "iwarp_rdma.opcode");
        assertThat(opcodes).isNotEmpty();
        assertThat(Tshark.count(verbose, "(Good CRC32)")).as(pcap + ": every FPDU with a good CRC")
                .isEqualTo(opcodes.size());
        assertThat(Tshark.read(pcap, "-Y", "tcp.analysis.flags")).as(pcap + ": retransmissions, losses")
                .isBlank();
        return opcodes;
    }

    private static Map<String, Long> byOpcode(List<String> opcodes) {
        return opcodes.stream().collect(Collectors.groupingBy(o -> o, java.util.HashMap::new, Collectors.counting()));
    }

    private static boolean startsWithMpaRequest(TcpConnection c) {
        byte[] stream = c.clientToServer().stream();
        return stream.length >= MPA_REQUEST_KEY.length
                && java.util.Arrays.equals(stream, 0, MPA_REQUEST_KEY.length, MPA_REQUEST_KEY, 0, MPA_REQUEST_KEY.length);
    }

    /** A command's output; optionally the first group of the first line matching a pattern. */
    private static final class Output {
        final StringWriter outText = new StringWriter();
        final StringWriter errText = new StringWriter();
        final CompletableFuture<String> match = new CompletableFuture<>();
        final PrintWriter out;
        final PrintWriter err = new PrintWriter(errText, true);

        Output(String linePattern) {
            Pattern pattern = linePattern == null ? null : Pattern.compile(linePattern);
            out = new PrintWriter(new Writer() {
                private final StringBuilder line = new StringBuilder();

                @Override
                public synchronized void write(char[] buf, int off, int len) {
                    outText.write(buf, off, len);
                    for (int i = off; i < off + len; i++) {
                        if (buf[i] != '\n') {
                            line.append(buf[i]);
                            continue;
                        }
                        Matcher m = pattern == null ? null : pattern.matcher(line);
                        if (m != null && m.find()) {
                            match.complete(m.group(1));
                        }
                        line.setLength(0);
                    }
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            }, true);
        }

        String text() {
            return outText + "\n" + errText;
        }
    }
}
