package org.iwarp4j.interop.peer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The harness itself: the peer has a working siw device, both directions of the network
 * work, commands can be waited for and killed, and siw can be reloaded with CRC required.
 */
@ExtendWith(LinuxPeerExtension.class)
class LinuxPeerSmokeTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    /** "MPA ID Req Frame" (RFC 5044 section 7.1.1): "MPA " at 0, "eq F" at 8; byte 16 holds M, C, R. */
    private static final String MPA_REQUEST = "tcp[((tcp[12] & 0xf0) >> 2):4] = 0x4d504120"
            + " and tcp[((tcp[12] & 0xf0) >> 2) + 8:4] = 0x65712046";
    private static final String C_FLAG = "(tcp[((tcp[12] & 0xf0) >> 2) + 16] & 0x40)";

    private final LinuxPeer peer;

    LinuxPeerSmokeTest(LinuxPeer peer) {
        this.peer = peer;
    }

    @Test
    void siwDeviceIsActiveOnTheNetdevOfThePeerAddress() {
        ExecResult devices = peer.exec("ibv_devices").requireSuccess();
        ExecResult link = peer.exec("rdma link show " + peer.rdmaDevice() + "/1").requireSuccess();
        String netdev = link.stdout().replaceAll("(?s).*\\bnetdev (\\S+).*", "$1").strip();
        ExecResult address = peer.exec("ip -4 -o addr show dev " + netdev).requireSuccess();

        assertThat(devices.stdout()).contains(peer.rdmaDevice());
        assertThat(link.stdout()).contains("state ACTIVE");
        assertThat(address.stdout()).contains("inet " + peer.peerAddress().getHostAddress() + "/");
    }

    @Test
    void execReportsExitCodeAndBothStreams() {
        ExecResult result = peer.exec("echo out; echo err >&2; exit 3");

        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.stdout()).isEqualTo("out\n");
        assertThat(result.stderr()).isEqualTo("err\n");
    }

    @Test
    void killStopsABackgroundCommandAndWhatItStarted() {
        BackgroundCommand sleeper = peer.start("echo started; sleep 1000 & sleep 1001; echo not-reached");
        sleeper.awaitLine("^started$", TIMEOUT);

        ExecResult killed = sleeper.kill();

        assertThat(sleeper.isAlive()).isFalse();
        assertThat(killed.stdout()).doesNotContain("not-reached");
        assertThat(peer.exec("pgrep -f '^sleep 100[01]$' || true").stdout()).isEmpty();
    }

    @Test
    void peerReachesAHostListener() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, peer.hostBindAddress())) {
            CompletableFuture<String> received = CompletableFuture.supplyAsync(() -> answerOneLine(server, "from-host"));
            String target = peer.hostAddressSeenByPeer().getHostAddress() + "/" + server.getLocalPort();

            ExecResult result = peer.exec("exec 3<>/dev/tcp/" + target + " && echo from-peer >&3 && head -1 <&3", TIMEOUT);

            assertThat(received.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("from-peer");
            assertThat(result.requireSuccess().stdout()).isEqualTo("from-host\n");
        }
    }

    @Test
    void hostReachesAPeerListenerThroughItsForwardedPort() throws Exception {
        int port = 17001;
        try (BackgroundCommand listener = peer.start(
                "echo from-peer | timeout 120 nc -l " + peer.peerAddress().getHostAddress() + " " + port)) {
            peer.awaitListening(port, TIMEOUT);
            InetSocketAddress forwarded = peer.forwardedPort(port);

            String line;
            try (Socket socket = new Socket(forwarded.getAddress(), forwarded.getPort())) {
                socket.setSoTimeout((int) TIMEOUT.toMillis());
                line = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
                socket.getOutputStream().write("from-host\n".getBytes(StandardCharsets.US_ASCII));
            }

            assertThat(line).isEqualTo("from-peer");
            assertThat(listener.waitFor(TIMEOUT).stdout()).isEqualTo("from-host\n");
            assertThat(peer.forwardedPort(port)).isEqualTo(forwarded);
        }
    }

    @Test
    void linuxRpingLoopbackOverSiw() {
        ExecResult client = rpingLoopback(7174);

        assertThat(client.stdout()).contains("ping data: rdma-ping-9: ");
    }

    /**
     * siw's mpa_crc_required knob (a module parameter in the harness's siw.ko) decides the
     * C flag of its MPA Request (RFC 5044 section 7.1.1); checked on the wire with tcpdump.
     */
    @Test
    void reloadSiwWithCrcRequiredSetsTheCFlagOfItsMpaRequest() {
        try {
            peer.reloadSiw(true);
            assertThat(peer.exec("cat /sys/module/siw/parameters/mpa_crc_required").stdout()).isEqualTo("Y\n");
            assertThat(mpaRequestsCaptured(C_FLAG + " != 0", 7175)).isEqualTo(1);

            peer.reloadSiw(false);
            assertThat(peer.exec("cat /sys/module/siw/parameters/mpa_crc_required").stdout()).isEqualTo("N\n");
            assertThat(mpaRequestsCaptured(C_FLAG + " = 0", 7176)).isEqualTo(1);
        } finally {
            peer.reloadSiw(false);
        }
    }

    /** Runs rping loopback on {@code port} while capturing MPA Requests that match {@code filter}. */
    private int mpaRequestsCaptured(String filter, int port) {
        try (BackgroundCommand capture = peer.start("timeout 120 tcpdump -i any -n -c 1 'tcp port " + port
                + " and " + MPA_REQUEST + " and " + filter + "'")) {
            capture.awaitLine("listening on", TIMEOUT);
            rpingLoopback(port);
            ExecResult captured = capture.waitFor(TIMEOUT);
            String count = captured.stderr().replaceAll("(?s).*?(\\d+) packets? captured.*", "$1");
            return Integer.parseInt(count);
        }
    }

    private ExecResult rpingLoopback(int port) {
        String address = peer.peerAddress().getHostAddress();
        try (BackgroundCommand server = peer.start("rping -s -v -C 10 -a " + address + " -p " + port)) {
            peer.awaitListening(port, TIMEOUT);
            ExecResult client = peer.exec("rping -c -v -V -C 10 -a " + address + " -p " + port, TIMEOUT).requireSuccess();
            assertThat(server.waitFor(TIMEOUT).requireSuccess().stdout()).contains("server ping data: rdma-ping-9: ");
            return client;
        }
    }

    private static String answerOneLine(ServerSocket server, String answer) {
        try (Socket socket = server.accept()) {
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            String line = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            OutputStream out = socket.getOutputStream();
            out.write((answer + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return line;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
