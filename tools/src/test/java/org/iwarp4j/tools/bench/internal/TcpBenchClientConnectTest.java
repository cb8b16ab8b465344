package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.channel.Channel;
import io.netty.channel.RecvByteBufAllocator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import org.iwarp4j.tools.bench.ConnectFailedException;
import org.iwarp4j.tools.net.ConnectErrors;
import org.junit.jupiter.api.Test;

/** The plain-TCP comparison's client against its server: how it connects and how it lets go. */
class TcpBenchClientConnectTest {

    private static final int QUEUE_PAIRS = 2;
    private static final long WAIT_SECONDS = 30;
    private static final int DEPTH = 8;

    private static BenchSettings settings() {
        return new BenchSettings(BenchTest.READ, List.of(64), 0, 0.05, 0, QUEUE_PAIRS, DEPTH, NegotiationMode.ACCEPT,
                false, 2, 0, Transport.NIO, true);
    }

    /**
     * An interleaved run keeps both baselines' connections open at once and opens them again for
     * the next size right after closing them: the server, serving at most twice the queue pairs
     * and the DONE, must have let the last ones go by then, so each close waits for the server's.
     */
    @Test
    void anInterleavedRunStaysWithinTheServersBound() throws Exception {
        List<String> notices = Collections.synchronizedList(new ArrayList<>());
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (TcpBenchServer server = new TcpBenchServer(new InetSocketAddress(loopback, 0), Transport.NIO, 1, 64,
                DEPTH, null, loopback, TcpBenchServer.maxConnections(QUEUE_PAIRS), notices::add);
             TcpBenchClient client = new TcpBenchClient(settings(), server.localAddress())) {
            for (int size = 0; size < 5; size++) {
                TcpBenchClient.Phase raw = client.open(64, false);
                TcpBenchClient.Phase copy = client.open(64, true);
                try {
                    assertThat(client.window(raw, 0.01).bandwidth()).isNotNull();
                    assertThat(client.window(copy, 0.01).bandwidth()).isNotNull();
                } finally {
                    raw.close();
                    copy.close();
                }
            }
            client.done();

            assertThat(server.done().get(WAIT_SECONDS, TimeUnit.SECONDS)).isNull();
            assertThat(notices).as("no connection refused").isEmpty();
        }
    }

    /**
     * Both ends of the comparison read up to {@link Rnic#MAX_READ} per system call, as the RNIC does;
     * with Netty's default they stopped at 64 KiB, four times RDMA's read calls for large messages.
     */
    @Test
    void bothEndsReadAsMuchPerCallAsTheRnic() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (TcpBenchServer server = new TcpBenchServer(new InetSocketAddress(loopback, 0), Transport.NIO, 1, 64,
                DEPTH, null, loopback, TcpBenchServer.maxConnections(QUEUE_PAIRS), s -> { });
             TcpBenchClient client = new TcpBenchClient(settings(), server.localAddress())) {
            TcpBenchClient.Phase phase = client.open(64, false);
            try {
                // Answered Reads: the server has accepted and set up every connection by now.
                assertThat(client.window(phase, 0.01).bandwidth()).isNotNull();
                assertThat(phase.channels()).hasSize(QUEUE_PAIRS);
                for (Channel ch : phase.channels()) {
                    assertThat(largestRead(ch)).as("the client's reads").isEqualTo(Rnic.MAX_READ);
                }
                assertThat(server.channels()).hasSize(QUEUE_PAIRS);
                for (Channel ch : server.channels()) {
                    assertThat(largestRead(ch)).as("the server's reads").isEqualTo(Rnic.MAX_READ);
                }
            } finally {
                phase.close();
            }
            client.done();
        }
    }

    /**
     * A sink's window ends when the server has counted every octet; closing its connections (a
     * wait for the server's end of each, up to {@link TcpBenchClient.Phase#SERVER_END_MILLIS}) comes
     * after the clock. Against a server that counts but keeps its end open, the close takes that
     * whole wait, and a window of a twentieth of a second measured over five seconds until the
     * close moved out of the window's time.
     */
    @Test
    void aSinkWindowsTimeLeavesTheCloseOut() throws Exception {
        BenchSettings write = new BenchSettings(BenchTest.WRITE, List.of(64), 0, 0.05, 0, 1, DEPTH,
                NegotiationMode.ACCEPT, false, 2, 0, Transport.NIO, true);
        java.util.concurrent.CountDownLatch testDone = new java.util.concurrent.CountDownLatch(1);
        try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> countThenStayOpen(listening, testDone), "counting-server");
            server.setDaemon(true);
            server.start();
            try (TcpBenchClient client = new TcpBenchClient(write, (InetSocketAddress) listening.getLocalSocketAddress())) {
                TcpBenchClient.Phase phase = client.open(64, false);
                long start = System.nanoTime();
                org.iwarp4j.tools.bench.BandwidthResult window = client.window(phase, 0.05).bandwidth();
                long took = System.nanoTime() - start;

                assertThat(took).as("the close waited for the server's end")
                        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(TcpBenchClient.Phase.SERVER_END_MILLIS));
                double seconds = window.iterations() * 64.0 / window.averageBytesPerSecond();
                assertThat(seconds).as("the window's measured time")
                        .isLessThan(TcpBenchClient.Phase.SERVER_END_MILLIS / 2 / 1000.0);
            } finally {
                testDone.countDown();
                server.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            }
        }
    }

    /** A sink server: the header, every octet to the end of the stream counted, the count; then it stays open. */
    private static void countThenStayOpen(ServerSocket listening, java.util.concurrent.CountDownLatch testDone) {
        try (java.net.Socket s = listening.accept()) {
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
            in.readLong(); // mode and size
            long counted = 0;
            byte[] buffer = new byte[65536];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                counted += n;
            }
            new java.io.DataOutputStream(s.getOutputStream()).writeLong(counted);
            testDone.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            // the client's assertions say what went wrong
        }
    }

    /** The read size {@code ch}'s allocator settles on when every read fills its buffer (a fast sender). */
    private static int largestRead(Channel ch) {
        RecvByteBufAllocator.Handle handle = ch.config().getRecvByteBufAllocator().newHandle();
        int guess = 0;
        for (int i = 0; i < 1000; i++) {
            handle.reset(ch.config());
            guess = handle.guess();
            handle.attemptedBytesRead(guess);
            handle.lastBytesRead(guess);
            handle.incMessagesRead(1);
            handle.readComplete();
        }
        return guess;
    }

    @Test
    void aRefusalIsTriedEveryAttemptThenReported() throws Exception {
        InetSocketAddress closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = (InetSocketAddress) s.getLocalSocketAddress();
        }
        try (TcpBenchClient client = new TcpBenchClient(settings(), closed)) {
            long start = System.nanoTime();
            ConnectFailedException failure = catchThrowableOfType(client::done, ConnectFailedException.class);

            assertThat(failure.getMessage()).isEqualTo("cannot connect to " + ConnectErrors.where(closed)
                    + " for the TCP comparison: Connection refused");
            assertThat(System.nanoTime() - start).as("every pause between the attempts was taken")
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(
                            (ConnectAttempts.ATTEMPTS - 1) * ConnectAttempts.DELAY_MILLIS));
        }
    }
}
