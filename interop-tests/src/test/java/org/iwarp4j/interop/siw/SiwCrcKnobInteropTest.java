package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.tools.pcap.CommandCapture;
import org.iwarp4j.tools.rping.RpingClient;
import org.iwarp4j.tools.rping.RpingOptions;
import org.iwarp4j.tools.rping.RpingResult;
import org.iwarp4j.tools.rping.RpingServer;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What siw does with its {@code mpa_crc_required} knob on when our end only accepts CRC
 * ({@code NegotiationMode.ACCEPT}: C=0 in our frame, CRC used if the peer asks), pinned because
 * it surprised us (RFC 5044 §7.1.1: C "declares an endpoint's preferred CRC usage"; CRC is on
 * when either frame has C=1, MPA-R-047):
 * <ul>
 * <li>siw as Responder does not insist: our Request with C=0 gets a Reply with C=0, and the
 *     connection runs without CRC.</li>
 * <li>siw as Initiator (Request C=1) refuses our Reply because it has C=0, although CRC is on by
 *     its own C=1 and our end does check it: rping sees RDMA_CM_EVENT_REJECTED (-ECONNREFUSED).
 *     Our Responder says C=0 because that is its preference; siw (siw_proc_mpareply) requires
 *     the Reply's C bit itself. A Responder set to REQUIRE (the MpaSettings default) works.</li>
 * </ul>
 */
class SiwCrcKnobInteropTest extends SiwInteropTest {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path pcaps;

    SiwCrcKnobInteropTest(LinuxPeer peer) {
        super(peer);
    }

    @Test
    void siwRequiringCrcAsResponderAcceptsOurRequestWithoutCrc() throws Exception {
        CrcMode.BOTH.applyTo(peer);  // siw's knob on
        int port = GuestPorts.next();
        Path pcap = pcaps.resolve("responder.pcap");
        try (BackgroundCommand linux = peer.start("exec rping -s -C 1 -a " + peer.peerAddress().getHostAddress()
                + " -p " + port)) {
            peer.awaitListening(port, TIMEOUT);
            InetSocketAddress server = peer.forwardedPort(port);
            Console console = new Console();
            RpingResult[] result = new RpingResult[1];
            CommandCapture.run(pcap, console.err, () -> {
                try {
                    result[0] = new RpingClient(RpingOptions.clientBuilder(server.getAddress()).port(server.getPort())
                            .pcap(CommandCapture.current()).count(1).validate(true).crc(false).timeout(TIMEOUT).build(), console.out, console.err).run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 0;
            });
            ExecResult linuxEnd = linux.waitFor(TIMEOUT);

            assertThat(result[0].failure()).as(console.toString()).isNull();
            assertThat(result[0].negotiated().crc()).as("CRC off although siw requires it").isFalse();
            TcpConnection connection = PcapReader.read(pcap).onlyConnection();
            assertThat(connection.clientToServer().stream()[16] & Recording.C).as("our Request: C=0").isZero();
            assertThat(connection.serverToClient().stream()[16] & Recording.C).as("siw's Reply: C=0").isZero();
            assertThat(linuxEnd.exitCode()).as(linuxEnd.toString()).isZero();
        }
    }

    @Test
    void siwRequiringCrcAsInitiatorRefusesOurReplyWithoutTheCBit() throws Exception {
        CrcMode.BOTH.applyTo(peer);
        Path pcap = pcaps.resolve("initiator.pcap");
        Console console = new Console();
        ExecResult[] linux = new ExecResult[1];
        RpingResult[] result = new RpingResult[1];
        CommandCapture.run(pcap, console.err, () -> {
            ExecutorService thread = Executors.newSingleThreadExecutor();
            try (RpingServer server = RpingServer.bind(RpingOptions.serverBuilder().address(peer.hostBindAddress())
                    .pcap(CommandCapture.current()).port(0).count(1).crc(false).timeout(TIMEOUT).build(), console.out, console.err)) {
                CompletableFuture<RpingResult> served = CompletableFuture.supplyAsync(() -> {
                    try {
                        return server.serve();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }, thread);
                linux[0] = peer.exec("rping -c -C 1 -a " + peer.hostAddressSeenByPeer().getHostAddress() + " -p "
                        + server.localAddress().getPort(), TIMEOUT);
                result[0] = served.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                thread.shutdownNow();
            }
            return 0;
        });

        assertThat(linux[0].exitCode()).as(linux[0].toString()).isNotZero();
        assertThat(linux[0].stderr()).as(linux[0].toString()).contains("RDMA_CM_EVENT_REJECTED, error -111");
        assertThat(result[0].completed()).as(console.toString()).isZero();
        assertThat(result[0].negotiated().crc()).as("our end had CRC on").isTrue();
        TcpConnection connection = PcapReader.read(pcap).onlyConnection();
        assertThat(connection.clientToServer().stream()[16] & Recording.C).as("siw's Request: C=1").isEqualTo(Recording.C);
        assertThat(connection.serverToClient().stream()[16] & (Recording.C | Recording.R))
                .as("our Reply: C=0 (ACCEPT's preference), R=0").isZero();
    }
}
