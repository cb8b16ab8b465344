package org.iwarp4j.tools.bench;

import org.iwarp4j.tools.bench.internal.Connections;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the perftest client connects: a server that is not listening yet is tried again, also when
 * a NAT in between (QEMU's user-mode network) accepted the TCP connection itself and closed it
 * when the server refused — the client then sees the connection end before the MPA Reply
 * (MpaError.CONNECTION_LOST); an MPA reject, an unknown host and a timeout are final.
 */
class ConnectionsTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();
    private static final long WAIT_SECONDS = 30;

    private final Rnic server = Rnic.builder().eventLoopThreads(1).build();
    private final Rnic client = Rnic.builder().eventLoopThreads(1).build();

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    @Test
    void aConnectionClosedBeforeTheMpaReplyIsTriedAgain() throws Exception {
        QueuePair accepted = queuePair(server);
        try (Listener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), MPA,
                request -> request.accept(accepted));
             RefusingProxy proxy = new RefusingProxy(2, (InetSocketAddress) listener.localAddress())) {

            QueuePair connected = Connections.connect(() -> queuePair(client), proxy.address(), WAIT_SECONDS);

            assertThat(connected.negotiated()).isNotNull();
            assertThat(accepted.established().get(WAIT_SECONDS, TimeUnit.SECONDS)).isSameAs(accepted);
            assertThat(proxy.connections.get()).as("two closed at once, the third relayed").isEqualTo(3);
        }
    }

    @Test
    void aConnectionThatAlwaysEndsBeforeTheReplyFailsAfterEveryAttempt() throws Exception {
        try (RefusingProxy proxy = new RefusingProxy(Integer.MAX_VALUE, null)) {
            ConnectFailedException failure = catchThrowableOfType(
                    () -> Connections.connect(() -> queuePair(client), proxy.address(), WAIT_SECONDS),
                    ConnectFailedException.class);

            assertThat(failure.getCause()).isInstanceOf(MpaException.class);
            assertThat(((MpaException) failure.getCause()).error()).isEqualTo(MpaError.CONNECTION_LOST);
            assertThat(proxy.connections.get()).isEqualTo(Connections.ATTEMPTS);
        }
    }

    @Test
    void aRefusedConnectionIsTriedAgainEveryAttempt() throws Exception {
        InetSocketAddress closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = (InetSocketAddress) s.getLocalSocketAddress();
        }
        AtomicInteger attempts = new AtomicInteger();

        ConnectFailedException failure = catchThrowableOfType(() -> Connections.connect(() -> {
            attempts.incrementAndGet();
            return queuePair(client);
        }, closed, WAIT_SECONDS), ConnectFailedException.class);

        assertThat(failure.getMessage()).endsWith(": Connection refused");
        assertThat(attempts.get()).isEqualTo(Connections.ATTEMPTS);
    }

    /**
     * A peer that takes the TCP connection and never answers the MPA Request stands for any
     * connect that times out (a host dropping SYNs): trying again would wait as long again, 30
     * times over.
     */
    @Test
    void aTimeoutIsFinalAtOnce() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        Supplier<QueuePair> queuePairs = () -> {
            attempts.incrementAndGet();
            return queuePair(client);
        };
        // Never accepted: the kernel completes the handshakes of its backlog, and nothing answers.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ConnectFailedException failure = catchThrowableOfType(
                    () -> Connections.connect(queuePairs, silent.getLocalSocketAddress(), 1),
                    ConnectFailedException.class);

            assertThat(failure.getCause()).isInstanceOf(java.util.concurrent.TimeoutException.class);
            assertThat(failure.getMessage()).isEqualTo("cannot connect to "
                    + org.iwarp4j.tools.net.ConnectErrors.where(silent.getLocalSocketAddress()) + ": no answer in time");
            assertThat(attempts.get()).isEqualTo(1);
        }
    }

    @Test
    void anMpaRejectIsFinal() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        try (Listener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), MPA,
                request -> {
                    requests.incrementAndGet();
                    return request.reject(new byte[0]);
                })) {
            Supplier<QueuePair> queuePairs = () -> queuePair(client);
            ConnectFailedException failure = catchThrowableOfType(
                    () -> Connections.connect(queuePairs, listener.localAddress(), WAIT_SECONDS),
                    ConnectFailedException.class);

            assertThat(failure.getCause()).isInstanceOf(MpaRejectedException.class);
            assertThat(requests.get()).isEqualTo(1);
        }
    }

    @Test
    void anUnknownHostIsFinal() {
        AtomicInteger attempts = new AtomicInteger();
        Supplier<QueuePair> queuePairs = () -> {
            attempts.incrementAndGet();
            return queuePair(client);
        };
        ConnectFailedException failure = catchThrowableOfType(() -> Connections.connect(queuePairs,
                InetSocketAddress.createUnresolved("nosuchhost.invalid", 18515), WAIT_SECONDS),
                ConnectFailedException.class);

        assertThat(failure.getCause()).isInstanceOf(java.net.UnknownHostException.class);
        // In words, without the resolver's (": Name or service not known") or InetSocketAddress's "/<unresolved>".
        assertThat(failure.getMessage()).isEqualTo("no such host: nosuchhost.invalid");
        assertThat(attempts.get()).isEqualTo(1);
    }

    private static QueuePair queuePair(Rnic rnic) {
        ProtectionDomain pd = rnic.allocateProtectionDomain();
        CompletionQueue cq = rnic.createCompletionQueue(8);
        return rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA).build());
    }

    /**
     * Accepts TCP connections; closes the first {@code refusals} at once (a NAT whose server
     * refused), relays later ones to {@code target} octet for octet.
     */
    private static final class RefusingProxy implements AutoCloseable {
        final AtomicInteger connections = new AtomicInteger();
        private final ServerSocket socket;
        private final ExecutorService threads = Executors.newCachedThreadPool();
        private final CompletableFuture<Void> accepting;

        RefusingProxy(int refusals, InetSocketAddress target) throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            accepting = CompletableFuture.runAsync(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket accepted = socket.accept();
                        if (connections.incrementAndGet() <= refusals) {
                            accepted.close();
                        } else {
                            relay(accepted, new Socket(target.getAddress(), target.getPort()));
                        }
                    } catch (IOException e) {
                        return; // closed
                    }
                }
            }, threads);
        }

        InetSocketAddress address() {
            return (InetSocketAddress) socket.getLocalSocketAddress();
        }

        private void relay(Socket a, Socket b) {
            threads.execute(() -> copy(a, b));
            threads.execute(() -> copy(b, a));
        }

        private static void copy(Socket from, Socket to) {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // one side closed: the other follows below
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }

        @Override
        public void close() throws Exception {
            socket.close();
            accepting.get(WAIT_SECONDS, TimeUnit.SECONDS);
            threads.shutdownNow();
        }
    }
}
