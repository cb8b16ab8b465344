package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.tools.rping.RpingClient;
import org.iwarp4j.tools.rping.RpingOptions;
import org.iwarp4j.tools.rping.RpingResult;
import org.iwarp4j.tools.rping.RpingServer;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.mpa.MpaConstants;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 4, cases 1 and 2: our rping against Linux rping on siw, 100 verified iterations each
 * way (Send, RDMA Read, RDMA Write: RDMAP-R-001, the rping exchange), with CRC off, asked for
 * by us, and required by siw (MPA-R-023: C=1 from either end turns CRC on both ways). MPA
 * revision 2 with the RFC 6581 IRD/ORD word both ways (MPA2-R-017).
 */
class SiwRpingInteropTest extends SiwInteropTest {

    static final Duration TIMEOUT = Duration.ofSeconds(90);
    static final int ITERATIONS = 100;

    SiwRpingInteropTest(LinuxPeer peer) {
        super(peer);
    }

    /** Case 1: our rping client against {@code rping -s -V} on siw. */
    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void ourClientAgainstLinuxRpingServer(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        GuestLog log = GuestLog.mark(peer);
        int port = GuestPorts.next();
        try (BackgroundCommand linux = peer.start("exec rping -s -v -V -C " + ITERATIONS + " -a "
                + peer.peerAddress().getHostAddress() + " -p " + port)) {
            peer.awaitListening(port, TIMEOUT);
            InetSocketAddress server = peer.forwardedPort(port);
            Console console = new Console();

            RpingResult result = new RpingClient(RpingOptions.clientBuilder(server.getAddress()).port(server.getPort())
                    .count(ITERATIONS).validate(true).crc(crc.weAsk).timeout(TIMEOUT).build(), console.out, console.err)
                    .run();
            ExecResult linuxEnd = linux.waitFor(TIMEOUT);

            assertThat(result.failure()).as(() -> console + "\n" + linuxEnd + "\n" + log.diagnosis()).isNull();
            assertThat(result.completed()).isEqualTo(ITERATIONS);
            assertThat(result.verified()).isEqualTo(ITERATIONS);
            assertThat(result.negotiated().crc()).as("CRC negotiated").isEqualTo(crc.negotiated());
            assertThat(result.negotiated().revision()).isEqualTo(MpaConstants.REVISION_2);
            assertThat(result.negotiated().peerEnhancedData()).as("siw's RFC 6581 IRD/ORD word").isNotNull();
            assertThat(linuxEnd.exitCode()).as(linuxEnd.toString()).isZero();
            assertThat(linuxEnd.stdout().lines().filter(l -> l.startsWith("server ping data: rdma-ping-")))
                    .as(linuxEnd.toString()).hasSize(ITERATIONS);
        }
    }

    /** Case 2: {@code rping -c -V} on siw against our rping server. */
    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void linuxRpingClientAgainstOurServer(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        GuestLog log = GuestLog.mark(peer);
        Console console = new Console();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (RpingServer server = RpingServer.bind(RpingOptions.serverBuilder().address(peer.hostBindAddress()).port(0)
                .count(ITERATIONS).validate(true).crc(crc.weAsk).timeout(TIMEOUT).build(), console.out, console.err)) {
            CompletableFuture<RpingResult> served = CompletableFuture.supplyAsync(() -> serve(server), thread);

            ExecResult linux = peer.exec("rping -c -v -V -C " + ITERATIONS + " -a "
                    + peer.hostAddressSeenByPeer().getHostAddress() + " -p " + server.localAddress().getPort(), TIMEOUT);
            RpingResult result = served.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            assertThat(linux.exitCode()).as(() -> linux + "\n" + console + "\n" + log.diagnosis()).isZero();
            assertThat(linux.stdout().lines().filter(l -> l.startsWith("ping data: rdma-ping-"))).as(linux.toString())
                    .hasSize(ITERATIONS);
            assertThat(linux.stdout() + linux.stderr()).doesNotContain("data mismatch");
            assertThat(result.failure()).as(console.toString()).isNull();
            assertThat(result.completed()).isEqualTo(ITERATIONS);
            assertThat(result.verified()).isEqualTo(ITERATIONS);
            assertThat(result.negotiated().crc()).as("CRC negotiated").isEqualTo(crc.negotiated());
            assertThat(result.negotiated().revision()).isEqualTo(MpaConstants.REVISION_2);
        } finally {
            thread.shutdownNow();
        }
    }

    private static RpingResult serve(RpingServer server) {
        try {
            return server.serve();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
