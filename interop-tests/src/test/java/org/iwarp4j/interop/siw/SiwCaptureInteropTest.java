package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.iwarp4j.tools.pcap.CommandCapture;
import org.iwarp4j.tools.rping.RpingClient;
import org.iwarp4j.tools.rping.RpingOptions;
import org.iwarp4j.tools.rping.RpingResult;
import org.iwarp4j.tools.rping.RpingServer;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.testkit.Tshark;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 4, case 6: our side of real siw connections, recorded with Netty's PcapWriteHandler
 * (the cli's {@code --pcap} recording), judged by Wireshark: both MPA startup frames of every
 * connection found, no malformed frame, no TCP anomaly, and — with CRC on — a good CRC32c on
 * every FPDU, siw's as well as ours (MPA-R-002, MPA-R-010, MPA-R-030). With CRC off siw sends a
 * zero CRC field (MPA-R-013) and Wireshark checks none. The recordings stay in
 * {@code target/siw-pcaps} for a look with {@code tshark -r}.
 */
class SiwCaptureInteropTest extends SiwInteropTest {

    static final Duration TIMEOUT = Duration.ofSeconds(90);
    static final int PINGS = 10;
    static final Path PCAPS = Path.of("target", "siw-pcaps");

    SiwCaptureInteropTest(LinuxPeer peer) {
        super(peer);
    }

    @BeforeAll
    static void needsTshark() throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        Files.createDirectories(PCAPS);
    }

    /** Our rping client against Linux's server, then Linux's client against our server, in one file. */
    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void rpingBothWaysDecodesWithGoodCrcs(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        Path pcap = PCAPS.resolve("rping-" + crc + ".pcap");
        Console console = new Console();
        int status = CommandCapture.run(pcap, console.err, () -> rpingBothWays(crc, console));

        assertThat(status).as(console.toString()).isZero();
        TsharkVerdict verdict = TsharkVerdict.of(pcap);
        assertThat(verdict.requests()).as(verdict.toString()).isEqualTo(2);
        assertThat(verdict.replies()).as(verdict.toString()).isEqualTo(2);
        assertThat(verdict.malformed()).as(verdict.toString()).isZero();
        assertThat(verdict.badCrcs()).as(verdict.toString()).isZero();
        assertThat(verdict.tcpAnomalies()).as(verdict.toString()).isEmpty();
        assertThat(verdict.goodCrcs()).as(verdict.toString()).isEqualTo(crc.negotiated() ? verdict.rdmapOpcodes().size() : 0);
        // Per ping (rping.c): 4 Sends (0x03), a Read Request (0x01), its Response (0x02), a Write (0x00).
        // Besides, our rping client (the one Initiator of ours here) may add one wake-up Write when
        // siw's server stays silent for its delay after our first FPDU, as a slow guest can.
        assertThat(verdict.wakeUpWrites()).as(verdict.toString()).isBetween(0, 1);
        Map<String, Long> byOpcode = verdict.rdmapOpcodes().stream()
                .collect(Collectors.groupingBy(o -> o, Collectors.counting()));
        assertThat(byOpcode).as(verdict.toString()).isEqualTo(Map.of("0x03", 8L * PINGS, "0x01", 2L * PINGS,
                "0x02", 2L * PINGS, "0x00", 2L * PINGS + verdict.wakeUpWrites()));
    }

    /** Write, Read and Send of 1 octet, 4 KiB and 1 MiB, we act then siw acts, in one file. */
    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void transfersBothWaysDecodeWithGoodCrcs(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        Path pcap;
        try (Recording recording = Recording.open(PCAPS, "transfers-" + crc)) {
            pcap = recording.file();
            try (TransferEnd end = new TransferEnd(recording.rnic(), SiwTransferInteropTest.mpa(crc),
                    SiwTransferInteropTest.maxSize(), true, TIMEOUT)) {
                SiwTransferInteropTest.Transfers run = SiwTransferInteropTest.weAct(peer, end,
                        SiwTransferInteropTest.OPS, SiwTransferInteropTest.SIZES);
                assertThat(run.siw().exitCode()).as(run.siw().toString()).isZero();
            }
            try (TransferEnd end = new TransferEnd(recording.rnic(), SiwTransferInteropTest.mpa(crc),
                    SiwTransferInteropTest.maxSize(), true, TIMEOUT)) {
                SiwTransferInteropTest.Transfers run = SiwTransferInteropTest.siwActs(peer, end,
                        SiwTransferInteropTest.OPS, SiwTransferInteropTest.SIZES);
                assertThat(run.siw().exitCode()).as(run.siw().toString()).isZero();
            }
        }
        TsharkVerdict verdict = TsharkVerdict.of(pcap);
        assertThat(verdict.requests()).as(verdict.toString()).isEqualTo(2);
        assertThat(verdict.replies()).as(verdict.toString()).isEqualTo(2);
        assertThat(verdict.malformed()).as(verdict.toString()).isZero();
        assertThat(verdict.badCrcs()).as(verdict.toString()).isZero();
        assertThat(verdict.tcpAnomalies()).as(verdict.toString()).isEmpty();
        assertThat(verdict.goodCrcs()).as(verdict.toString()).isEqualTo(crc.negotiated() ? verdict.rdmapOpcodes().size() : 0);
        assertThat(verdict.rdmapOpcodes()).as(verdict.toString()).contains("0x00", "0x01", "0x02", "0x03");
    }

    /** Runs on the recording's thread: every RNIC rping builds here is recorded. Returns 0 if both runs succeeded. */
    private int rpingBothWays(CrcMode crc, Console console) {
        GuestLog log = GuestLog.mark(peer);
        try {
            int port = GuestPorts.next();
            try (BackgroundCommand linux = peer.start("exec rping -s -C " + PINGS + " -a "
                    + peer.peerAddress().getHostAddress() + " -p " + port)) {
                peer.awaitListening(port, TIMEOUT);
                InetSocketAddress server = peer.forwardedPort(port);
                RpingResult client = new RpingClient(RpingOptions.clientBuilder(server.getAddress())
                        .port(server.getPort()).count(PINGS).validate(true).crc(crc.weAsk).timeout(TIMEOUT)
                        .pcap(CommandCapture.current()).build(),
                        console.out, console.err).run();
                ExecResult linuxEnd = linux.waitFor(TIMEOUT);
                if (!client.isSuccess() || !linuxEnd.succeeded()) {
                    console.err.println("rping client: " + client + "\n" + linuxEnd + "\n" + log.diagnosis());
                    return 1;
                }
            }
            ExecutorService thread = Executors.newSingleThreadExecutor();
            try (RpingServer server = RpingServer.bind(RpingOptions.serverBuilder().address(peer.hostBindAddress())
                    .port(0).count(PINGS).validate(true).crc(crc.weAsk).timeout(TIMEOUT)
                    .pcap(CommandCapture.current()).build(), console.out,
                    console.err)) {
                CompletableFuture<RpingResult> served = CompletableFuture.supplyAsync(() -> {
                    try {
                        return server.serve();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }, thread);
                ExecResult linux = peer.exec("rping -c -V -C " + PINGS + " -a " + peer.hostAddressSeenByPeer().getHostAddress()
                        + " -p " + server.localAddress().getPort(), TIMEOUT);
                RpingResult result = served.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                if (!result.isSuccess() || !linux.succeeded()) {
                    console.err.println("rping server: " + result + "\n" + linux + "\n" + log.diagnosis());
                    return 1;
                }
            } finally {
                thread.shutdownNow();
            }
            return 0;
        } catch (Exception e) {
            console.err.println("rping: " + e + "\n" + log.diagnosis());
            return 1;
        }
    }
}
