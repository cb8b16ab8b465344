package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.testkit.Tshark;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Wireshark as an independent judge of our wire format: our own loopback traffic, captured with
 * Netty's PcapWriteHandler, must decode in tshark with "Good CRC32" on every FPDU and no
 * malformed frame, markers on and off. .ci/run installs tshark; without it the test is skipped.
 */
class WiresharkJudgeTest {

    private static final int SENDS_EACH_WAY = 6;
    private static EventLoopGroup group;

    @BeforeAll
    static void startEventLoops() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopEventLoops() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /**
     * Each end is captured next to its socket. An end's writes are whole FPDUs, one per captured
     * packet; its reads are whatever TCP coalesced. tshark 4.0's MPA dissector does not reassemble
     * FPDUs that carry markers across packets (it leaves them as plain TCP, reporting nothing), so
     * each capture is judged on the FPDUs its own end sent: all of them must be found with a good
     * CRC, and nothing anywhere may be a bad CRC or malformed.
     */
    @ParameterizedTest(name = "markers {0}, revision {1}")
    @CsvSource({"false, 1", "true, 1", "false, 2", "true, 2"})
    void tsharkFindsEveryFpduWellFormedWithGoodCrc(boolean markers, int revision) throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        // Kept under target/ so that a failure can be looked at in Wireshark.
        Path dir = Files.createDirectories(Path.of("target", "wireshark-judge"));
        Path initiatorPcap = dir.resolve("mpa-markers-" + markers + "-rev" + revision + "-initiator.pcap");
        Path responderPcap = dir.resolve("mpa-markers-" + markers + "-rev" + revision + "-responder.pcap");
        NegotiationMode markerMode = markers ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT;
        MpaSettings settings = MpaSettings.builder().revision(revision).markers(markerMode)
                .crc(NegotiationMode.REQUIRE).build();
        int initiatorPort;
        int responderPort;
        // In memory first: PcapWriteHandler still writes (a fake FIN) while the channel is torn down.
        ByteArrayOutputStream iOut = new ByteArrayOutputStream();
        ByteArrayOutputStream rOut = new ByteArrayOutputStream();
        try (LoopbackMpa pair = LoopbackMpa.connect(group, settings, settings, ConnectRequestHandler.ACCEPT_ALL,
                iOut, rOut)) {
            pair.initiator.awaitStartup();
            pair.responder.awaitStartup();
            initiatorPort = ((InetSocketAddress) pair.initiator.channel.localAddress()).getPort();
            responderPort = ((InetSocketAddress) pair.responder.channel.localAddress()).getPort();
            for (int i = 1; i <= SENDS_EACH_WAY; i++) {
                pair.initiator.send(untaggedSend(i, 100 * i * i));
            }
            for (int i = 1; i <= SENDS_EACH_WAY; i++) {
                pair.responder.take();
                pair.responder.send(untaggedSend(i, 700 * i));
            }
            for (int i = 1; i <= SENDS_EACH_WAY; i++) {
                pair.initiator.take();
            }
        }
        // One task through the (single) event loop: the teardown's last pcap writes are done.
        group.next().submit(() -> { }).sync();
        synchronized (iOut) {
            Files.write(initiatorPcap, iOut.toByteArray());
        }
        synchronized (rOut) {
            Files.write(responderPcap, rOut.toByteArray());
        }
        judge(initiatorPcap, initiatorPort, markers);
        judge(responderPcap, responderPort, markers);
    }

    private static void judge(Path pcap, int senderPort, boolean markers) throws Exception {
        String all = Tshark.read(pcap, "-V");
        assertThat(all).as(pcap + ": startup frames").contains("ID Req frame").contains("ID Rep frame");
        assertThat(all).as(pcap.toString()).doesNotContain("Bad CRC32").doesNotContain("Malformed");
        String sent = Tshark.read(pcap, "-V", "-Y", "tcp.srcport == " + senderPort);
        assertThat(Tshark.count(sent, "(Good CRC32)")).as(pcap + ": FPDUs sent with a good CRC").isEqualTo(SENDS_EACH_WAY);
        assertThat(Tshark.count(sent, "OpCode: Send (0x3)")).as(pcap + ": RDMAP Sends decoded").isEqualTo(SENDS_EACH_WAY);
        if (markers) {
            assertThat(Tshark.count(sent, "FPDU back pointer")).as(pcap + ": markers decoded").isGreaterThan(SENDS_EACH_WAY);
        } else {
            assertThat(Tshark.count(all, "(Good CRC32)")).as(pcap + ": both directions").isEqualTo(2 * SENDS_EACH_WAY);
        }
    }

    /** A DDP untagged segment (L=1, QN 0) carrying an RDMAP Send, so every layer parses. */
    private static byte[] untaggedSend(int msn, int payload) {
        byte[] u = new byte[18 + payload];
        u[0] = 0x41;
        u[1] = 0x43;
        u[13] = (byte) msn;
        for (int i = 18; i < u.length; i++) {
            u[i] = (byte) i;
        }
        return u;
    }
}
