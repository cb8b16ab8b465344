package org.iwarp4j.interop.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The QMP client against stand-in monitors on a unix socket: what it sends, what it makes of the
 * replies, and that a monitor which never greets cannot hold the caller for ever.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QmpTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Path dir = createTempDirectory();
    private final Path socket = dir.resolve("qmp.sock");
    private final ServerSocketChannel server = bind(socket);
    private final List<String> received = new CopyOnWriteArrayList<>();
    private SocketChannel accepted;

    @AfterEach
    void closeMonitor() throws IOException {
        if (accepted != null) {
            accepted.close();
        }
        server.close();
        Files.deleteIfExists(socket);
        Files.deleteIfExists(dir);
    }

    @Test
    void greetsNegotiatesAndAsksForTheRunState() throws Exception {
        CompletableFuture<Void> monitor = CompletableFuture.runAsync(() -> serve(List.of(
                "{\"QMP\": {\"version\": {}, \"capabilities\": []}}",
                "{\"return\": {}}",
                "{\"timestamp\": {\"seconds\": 1}, \"event\": \"RESUME\"}",
                "{\"return\": {\"status\": \"paused\", \"running\": false}}")));

        try (Qmp qmp = Qmp.connect(socket, TIMEOUT)) {
            assertThat(qmp.status()).isEqualTo("paused");
        }

        monitor.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(received).containsExactly("{\"execute\": \"qmp_capabilities\"}", "{\"execute\": \"query-status\"}");
    }

    @Test
    void aMonitorThatNeverGreetsFailsTheConnectOnceTheTimeIsUp() {
        assertThatThrownBy(() -> Qmp.connect(socket, Duration.ofMillis(200)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("did not greet and answer qmp_capabilities within PT0.2S");
    }

    @Test
    void somethingThatIsNotQmpIsRefused() {
        CompletableFuture.runAsync(() -> serve(List.of("SSH-2.0-OpenSSH_9.6")));

        assertThatThrownBy(() -> Qmp.connect(socket, TIMEOUT))
                .isInstanceOf(IOException.class)
                .hasMessage("not a QMP greeting: SSH-2.0-OpenSSH_9.6");
    }

    /**
     * Accepts one client and writes {@code lines} in turn: the first at once (the greeting), each
     * further one after reading one command line, recorded in {@link #received}.
     */
    private void serve(List<String> lines) {
        try {
            accepted = server.accept();
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(accepted),
                    StandardCharsets.UTF_8));
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (i > 0 && !line.contains("\"event\"")) {
                    received.add(in.readLine());
                }
                ByteBuffer out = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
                while (out.hasRemaining()) {
                    accepted.write(out);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Path createTempDirectory() {
        try {
            return Files.createTempDirectory("qmp-test");  // short: unix socket paths
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static ServerSocketChannel bind(Path socket) {
        try {
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            return server;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
