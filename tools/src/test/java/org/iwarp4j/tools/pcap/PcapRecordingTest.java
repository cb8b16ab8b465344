package org.iwarp4j.tools.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link PcapRecording}: many connections on several event loops write into one pcap file; each
 * connection is in it once, from its handshake, with its real ports and exactly the octets that
 * crossed it — whichever of its ends were given to the recording.
 */
class PcapRecordingTest {

    private static final int CLIENTS = 6;
    /** The 70000-octet message is more than one IPv4 packet holds: PcapWriteHandler splits it. */
    private static final int[] SIZES = {1, 1000, 70_000, 5000, 17};

    @TempDir
    Path dir;

    enum Recorded { BOTH_ENDS, SERVER_END, CLIENT_END }

    @ParameterizedTest
    @EnumSource(Recorded.class)
    void everyConnectionIsInTheFileOnceWithEveryOctet(Recorded which) throws Exception {
        Path file = dir.resolve("echo.pcap");
        List<LoopbackEcho.Client> clients = new ArrayList<>();
        int serverPort;
        try (PcapRecording recording = PcapRecording.open(file)) {
            Consumer<Channel> server = which == Recorded.CLIENT_END ? ch -> { } : recording::record;
            Consumer<Channel> client = which == Recorded.SERVER_END ? ch -> { } : recording::record;
            try (LoopbackEcho echo = new LoopbackEcho(server)) {
                serverPort = echo.port();
                for (int c = 0; c < CLIENTS; c++) {
                    clients.add(echo.connect(client));
                }
                // All connections at once: records from five event loops interleave in the file.
                for (int size : SIZES) {
                    for (int c = 0; c < CLIENTS; c++) {
                        clients.get(c).send(message(c, size));
                    }
                }
                for (LoopbackEcho.Client c : clients) {
                    c.echoed().get(LoopbackEcho.TIMEOUT_SECONDS, TimeUnit.SECONDS);
                }
                assertThat(recording.connections()).isEqualTo(CLIENTS);
            }
            assertThat(recording.failure()).isNull();
        }
        List<TcpConnection> connections = PcapReader.read(file).connections();
        assertThat(connections).hasSize(CLIENTS);
        for (LoopbackEcho.Client c : clients) {
            TcpConnection connection = connections.stream().filter(k -> k.clientPort() == c.localPort())
                    .findFirst().orElseThrow();
            assertThat(connection.serverPort()).isEqualTo(serverPort);
            assertThat(connection.client().address().getHostAddress()).isEqualTo("127.0.0.1");
            assertThat(connection.handshakeCaptured()).isTrue();
            assertThat(connection.clientToServer().stream()).isEqualTo(c.sent());
            assertThat(connection.serverToClient().stream()).isEqualTo(c.sent());
            // One end's view only: the other end's copy of each segment would be a retransmission.
            assertThat(connection.clientToServer().retransmittedSegments()).isZero();
            assertThat(connection.serverToClient().retransmittedSegments()).isZero();
            assertThat(connection.clientToServer().gaps()).isEmpty();
        }
    }

    @Test
    void connectionsClosedAndPortsReusedAreRecordedAgain() throws Exception {
        Path file = dir.resolve("sequential.pcap");
        try (PcapRecording recording = PcapRecording.open(file);
             LoopbackEcho echo = new LoopbackEcho(recording::record)) {
            for (int i = 0; i < 3; i++) {
                LoopbackEcho.Client c = echo.connect(recording::record);
                c.exchange(message(i, 100));
                c.channel.close().sync();
            }
            assertThat(recording.connections()).isEqualTo(3);
        }
        assertThat(PcapReader.read(file).connections()).hasSize(3);
    }

    @Test
    void recordingStopsAtCloseAndTheConnectionGoesOn() throws Exception {
        Path file = dir.resolve("closed.pcap");
        PcapRecording recording = PcapRecording.open(file);
        try (LoopbackEcho echo = new LoopbackEcho(ch -> { })) {
            LoopbackEcho.Client c = echo.connect(recording::record);
            byte[] before = message(1, 300);
            c.exchange(before);
            recording.close();
            c.exchange(message(2, 400));
            assertThat(recording.failure()).isNull();
            TcpConnection connection = PcapReader.read(file).onlyConnection();
            assertThat(connection.clientToServer().stream()).isEqualTo(before);
            assertThat(recording.size()).isEqualTo(Files.size(file));
            // A connection made after the close is not recorded at all.
            LoopbackEcho.Client later = echo.connect(recording::record);
            later.exchange(message(3, 10));
            assertThat(later.channel.pipeline().names()).noneMatch(n -> n.contains("Pcap") || n.contains("Gate"));
        }
        assertThat(PcapReader.read(file).connections()).hasSize(1);
    }

    @Test
    void aFileThatFailsDoesNotDisturbTheConnections() throws Exception {
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        OutputStream fullAfter300 = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (kept.size() + len > 300) {
                    throw new IOException("No space left on device");
                }
                kept.write(b, off, len);
            }
        };
        try (PcapRecording recording = new PcapRecording(dir.resolve("full.pcap"), SharedPcapOutput.over(fullAfter300));
             LoopbackEcho echo = new LoopbackEcho(ch -> { })) {
            LoopbackEcho.Client c = echo.connect(recording::record);
            for (int i = 0; i < 5; i++) {
                c.exchange(message(i, 200));
            }
            assertThat(c.channel.isActive()).isTrue();
            assertThat(recording.failure()).hasMessage("No space left on device");
            assertThat(recording.size()).isEqualTo(kept.size()).isLessThanOrEqualTo(300);
        }
    }

    @Test
    void onlyTcpConnectionsAreRecorded() throws Exception {
        try (PcapRecording recording = PcapRecording.open(dir.resolve("none.pcap"))) {
            EmbeddedChannel notTcp = new EmbeddedChannel();
            recording.record(notTcp);
            assertThat(notTcp.pipeline().names()).noneMatch(n -> n.contains("ConnectionGate"));
            assertThat(notTcp.finish()).isFalse();
        }
        // Nothing recorded: the global header alone, a valid empty capture.
        assertThat(Files.size(dir.resolve("none.pcap"))).isEqualTo(24);
        assertThat(PcapReader.read(dir.resolve("none.pcap")).frameCount()).isZero();
    }

    /** {@code size} octets that differ per client and position. */
    static byte[] message(int client, int size) {
        byte[] m = new byte[size];
        for (int i = 0; i < size; i++) {
            m[i] = (byte) (client * 31 + i * 7 + size);
        }
        return m;
    }
}
