package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.ConnectionRequest;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.Rnic;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 4, case 4: connections refused in the MPA startup, both ways, with CRC off and on.
 * siw cannot insert markers (RFC 5044 §4.3 wants every sender able to, MPA-R-015), so:
 * <ul>
 * <li>we ask for markers (Request M=1): siw answers with a Reply R=1 itself, without telling
 *     its application, and our caller's connect fails with that reject (MPA-R-059);</li>
 * <li>Linux connects while we require markers: per RFC 5044 §7.1.1 our Reply accepts with M=1
 *     (markers toward us, MPA-R-046); siw refuses that Reply, its application sees
 *     RDMA_CM_EVENT_REJECTED (-ECONNREFUSED), and our accepted queue pair sees the connection
 *     close;</li>
 * <li>our ULP rejects a Linux client: a Reply with R=1 and our private data (MPA-R-056); the
 *     Linux application sees RDMA_CM_EVENT_REJECTED (-ECONNRESET).</li>
 * </ul>
 * Our frames are checked as recorded on our side of the wire.
 */
class SiwRejectInteropTest extends SiwInteropTest {

    static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final byte[] NO_THANKS = "iwarp4j says no".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path pcaps;

    SiwRejectInteropTest(LinuxPeer peer) {
        super(peer);
    }

    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void siwRejectsOurRequestForMarkers(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        int port = GuestPorts.next();
        try (BackgroundCommand linux = peer.start("exec rping -s -d -a " + peer.peerAddress().getHostAddress()
                + " -p " + port);
             Recording recording = Recording.open(pcaps, "markers-requested");
             Rnic rnic = recording.rnic().eventLoopThreads(1).build()) {
            peer.awaitListening(port, TIMEOUT);
            QueuePair qp = queuePair(rnic, mpa(crc).markers(NegotiationMode.REQUIRE).build());

            Throwable failure = catchThrowable(() -> qp.connect(peer.forwardedPort(port))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));

            assertThat(failure).isInstanceOf(ExecutionException.class).cause().isInstanceOf(MpaRejectedException.class);
            MpaRejectedException rejected = (MpaRejectedException) failure.getCause();
            assertThat(rejected.byPeer()).isTrue();
            assertThat(rejected.reply().reject()).isTrue();
            assertThat(rejected.reply().markers()).as("siw's reject clears M").isFalse();
            assertThat(qp.closeFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).state())
                    .isEqualTo(QueuePairState.ERROR);
            assertThat(recording.request()[16] & (Recording.M | Recording.C))
                    .as("our Request asked for markers (and CRC as the mode says)")
                    .isEqualTo(Recording.M | (crc.weAsk ? Recording.C : 0));
            assertThat(recording.reply()[16] & (Recording.M | Recording.R)).as("siw's Reply: R=1, M=0")
                    .isEqualTo(Recording.R);
            ExecResult linuxEnd = linux.kill();
            assertThat(linuxEnd.stdout()).as("siw never told its application").doesNotContain("CONNECT_REQUEST");
        }
    }

    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void linuxRefusesOurReplyRequiringMarkers(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        try (Recording recording = Recording.open(pcaps, "markers-required");
             Rnic rnic = recording.rnic().eventLoopThreads(1).build()) {
            MpaSettings mpa = mpa(crc).markers(NegotiationMode.REQUIRE).build();
            QueuePair qp = queuePair(rnic, mpa);
            CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
            try (Listener listener = rnic.listen(new InetSocketAddress(peer.hostBindAddress(), 0), mpa, request -> {
                requested.complete(request);
                return request.accept(qp);
            })) {
                ExecResult linux = rpingClient(listener);

                assertThat(linux.exitCode()).as(linux.toString()).isNotZero();
                assertThat(linux.stderr()).as(linux.toString()).contains("RDMA_CM_EVENT_REJECTED, error -111");
                assertThat(requested.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).enhancedData())
                        .as("siw's RFC 6581 word reached our handler").isNotNull();
                assertThat(qp.closeFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).state())
                        .isEqualTo(QueuePairState.ERROR);
            }
            assertThat(recording.request()[16] & Recording.M).as("siw's Request: M=0").isZero();
            assertThat(recording.reply()[16] & (Recording.M | Recording.R | Recording.C))
                    .as("our Reply accepts with M=1 (MPA-R-046)")
                    .isEqualTo(Recording.M | (crc.weAsk ? Recording.C : 0));
        }
    }

    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void ourUlpRejectsALinuxClient(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        try (Recording recording = Recording.open(pcaps, "ulp-reject");
             Rnic rnic = recording.rnic().eventLoopThreads(1).build()) {
            MpaSettings mpa = mpa(crc).build();
            CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
            try (Listener listener = rnic.listen(new InetSocketAddress(peer.hostBindAddress(), 0), mpa, request -> {
                requested.complete(request);
                return request.reject(NO_THANKS);
            })) {
                ExecResult linux = rpingClient(listener);

                assertThat(linux.exitCode()).as(linux.toString()).isNotZero();
                assertThat(linux.stderr()).as(linux.toString()).contains("RDMA_CM_EVENT_REJECTED, error -104");
                assertThat(requested).isCompleted();
            }
            byte[] reply = recording.replyFrame();
            assertThat(reply[16] & Recording.R).as("R=1 (MPA-R-056)").isEqualTo(Recording.R);
            assertThat(Arrays.copyOfRange(reply, reply.length - NO_THANKS.length, reply.length))
                    .as("our private data after the RFC 6581 word").isEqualTo(NO_THANKS);
        }
    }

    /** {@code rping -c} from the peer to {@code listener}, one iteration. */
    private ExecResult rpingClient(Listener listener) {
        return peer.exec("rping -c -v -C 1 -a " + peer.hostAddressSeenByPeer().getHostAddress() + " -p "
                + ((InetSocketAddress) listener.localAddress()).getPort(), TIMEOUT);
    }

    private static MpaSettings.Builder mpa(CrcMode crc) {
        return MpaSettings.builder().crc(crc.ours());
    }

    /** A queue pair of its own protection domain and completion queue. */
    private static QueuePair queuePair(Rnic rnic, MpaSettings mpa) {
        CompletionQueue cq = rnic.createCompletionQueue(8);
        return rnic.createQueuePair(QueuePairSettings.builder(rnic.allocateProtectionDomain(), cq).mpa(mpa).build());
    }
}
