package org.iwarp4j.cli.rping;

import org.iwarp4j.tools.rping.MisbehavingPeer;
import org.iwarp4j.tools.rping.Rpings;
import org.iwarp4j.tools.rping.RpingOptions;
import org.iwarp4j.tools.rping.RpingResult;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.Test;

/**
 * What goes wrong shows as a non-zero exit status and a clear line on stderr: wrong data under -V,
 * a failed completion (a Terminate from the peer's RNIC), a refused connection.
 */
class RpingFaultTest {

    private static int run(Rpings.Output output, String... args) {
        return IwarpCommand.run(output.outWriter, output.errWriter, args);
    }

    /** {@code rping -c} against {@code server} on loopback with {@code options}, every wait bounded. */
    private static int client(Rpings.Output output, MisbehavingPeer server, String... options) {
        List<String> args = new ArrayList<>(List.of("rping", "-c", "-a", "127.0.0.1", "-p",
                String.valueOf(server.port()), "--timeout", "30"));
        args.addAll(List.of(options));
        return run(output, args.toArray(String[]::new));
    }

    @Test
    void minusVCatchesAServerThatWritesBackWrongData() throws Exception {
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CORRUPT_WRITE)) {
            Rpings.Output output = new Rpings.Output();
            int status = client(output, server, "-C", "3", "-V", "-v");
            assertThat(status).isEqualTo(1);
            assertThat(output.err.toString().lines()).startsWith("data mismatch!");
            assertThat(output.err.toString()).contains("rping client failed: ping 0: the data written back differs "
                    + "from the data sent at octet 20 of 64 (sent 0x48, received 0x68)");
            // rping prints the data only after -V passed.
            assertThat(output.out.toString()).isEmpty();
            server.done.get(Rpings.WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void withoutMinusVWrongDataGoesUnnoticedAsInRping() throws Exception {
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CORRUPT_WRITE)) {
            Rpings.Output output = new Rpings.Output();
            int status = client(output, server, "-C", "3", "-v");
            assertThat(status).as(output.err.toString()).isZero();
            // Octet 20 of "rdma-ping-0: ABCDEFGH..." is 'H' (0x48); the flip made it 'h'.
            assertThat(output.linesStartingWith("ping data: ")).hasSize(3).first().asString()
                    .startsWith("ping data: rdma-ping-0: ABCDEFGh");
        }
    }

    @Test
    void aFailedCompletionEndsTheClientWithStatusOne() throws Exception {
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.BAD_READ_STAG)) {
            Rpings.Output output = new Rpings.Output();
            int status = client(output, server, "-C", "3");
            assertThat(status).isEqualTo(1);
            // Our RNIC answered the bad Read Request with a Terminate (RDMAP-R-014), which flushed our receive.
            assertThat(output.err.toString()).contains("rping client failed: cq completion failed status FLUSHED")
                    .contains("(0 iterations completed)");
        }
    }

    @Test
    void aFailedCompletionEndsTheServerWithAFailure() throws Exception {
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder());
             MisbehavingPeer client = MisbehavingPeer.client(MisbehavingPeer.Fault.BAD_ADVERTISED_STAG,
                     server.server.localAddress())) {
            RpingResult served = server.awaitResult();
            assertThat(served.isSuccess()).isFalse();
            // The client's RNIC refused the Read: invalid STag, a Terminate back to us (RDMAP-R-014).
            assertThat(served.failure()).startsWith("cq completion failed status REMOTE_ACCESS_ERROR")
                    .contains("while waiting for the RDMA Read of the client's start buffer");
            assertThat(server.output.err.toString()).contains("rping server failed: cq completion failed");
            client.done.get(Rpings.WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /**
     * Where the server's close meets the client's work is a race in this test and the next: a post
     * the closed queue pair refuses, a flushed completion, or a FATAL one when the Send meets the
     * peer's reset (RpingPeerClosesTest takes each side every time). All of them are the server gone.
     */
    @Test
    void aServerThatClosesRightAfterTheHandshakeIsADisconnectAndStatusZero() throws Exception {
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CLOSE_AFTER_HANDSHAKE)) {
            Rpings.Output output = new Rpings.Output();
            int status = client(output, server);
            assertThat(status).as(output.err.toString()).isZero();
            assertThat(output.err.toString().lines()).containsExactly("client DISCONNECT EVENT...");
            server.done.get(Rpings.WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void aServerThatClosesAfterOnePingEndsAnEndlessRunWithStatusZeroAndACountedRunWithOne() throws Exception {
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CLOSE_AFTER_FIRST_PING)) {
            Rpings.Output output = new Rpings.Output();
            int status = client(output, server, "-v");
            assertThat(status).as(output.err.toString()).isZero();
            assertThat(output.linesStartingWith("ping data: ")).hasSize(1);
            assertThat(output.err.toString().lines()).containsExactly("client DISCONNECT EVENT...");
        }
        try (MisbehavingPeer server = MisbehavingPeer.server(MisbehavingPeer.Fault.CLOSE_AFTER_FIRST_PING)) {
            Rpings.Output output = new Rpings.Output();
            int status = client(output, server, "-C", "3");
            assertThat(status).isEqualTo(1);
            assertThat(output.err.toString()).startsWith("client DISCONNECT EVENT...")
                    .contains("rping client failed: the peer disconnected ").contains("(1 iterations completed)");
        }
    }

    @Test
    void aRefusedConnectionIsStatusOneWithTheReason() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Rpings.Output output = new Rpings.Output();
        int status = run(output, "rping", "-c", "-a", "127.0.0.1", "-p", String.valueOf(port), "--timeout", "30");
        assertThat(status).isEqualTo(1);
        // The operating system's words only: no Netty exception text, no address repeated.
        assertThat(output.err.toString().strip()).isEqualTo("connect error: cannot connect to 127.0.0.1:" + port
                + ": Connection refused");
        assertThat(output.out.toString()).isEmpty();
    }

    @Test
    void aPortInUseIsStatusOneForTheServer() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Rpings.Output output = new Rpings.Output();
            int status = run(output, "rping", "-s", "-a", "127.0.0.1", "-p", String.valueOf(taken.getLocalPort()));
            assertThat(status).isEqualTo(1);
            assertThat(output.err.toString().strip()).isEqualTo("rdma_bind_addr: 127.0.0.1:" + taken.getLocalPort()
                    + " is already in use");
        }
    }
}
