package org.iwarp4j.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.iwarp4j.tools.rping.internal.PingData;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our rping client against our rping server over loopback TCP, in one process: every MPA choice
 * rping offers, rping's sizes and counts, -V on both ends and -v's lines.
 */
class RpingLoopbackTest {

    static Stream<Arguments> combinations() {
        // clientCrc, serverCrc, clientMarkers, serverMarkers, revision, size, count
        return Stream.of(
                Arguments.of(false, false, false, false, 2, 64, 10),
                Arguments.of(true, false, false, false, 2, 64, 10),
                Arguments.of(false, true, false, false, 2, 64, 10),
                Arguments.of(true, true, true, true, 2, 64, 10),
                Arguments.of(false, false, true, false, 2, 64, 5),
                Arguments.of(false, false, false, false, 1, 64, 5),
                Arguments.of(true, true, true, true, 1, 1000, 5),
                Arguments.of(false, false, false, false, 2, RpingConstants.MIN_SIZE, 3),
                Arguments.of(true, true, false, false, 2, RpingConstants.MAX_SIZE, 3),
                Arguments.of(false, false, true, true, 2, RpingConstants.MAX_SIZE, 3),
                Arguments.of(false, false, false, false, 2, 64, 1),
                Arguments.of(true, false, false, false, 2, 200, 100));
    }

    @ParameterizedTest(name = "client CRC {0}, server CRC {1}, markers {2}/{3}, rev {4}, -S {5}, -C {6}")
    @MethodSource("combinations")
    void everyIterationCompletesAndVerifies(boolean clientCrc, boolean serverCrc, boolean clientMarkers,
                                            boolean serverMarkers, int revision, int size, int count) throws Exception {
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder().crc(serverCrc)
                .markers(serverMarkers).mpaRevision(revision).size(size).count(count).validate(true))) {
            Rpings.Output client = new Rpings.Output();
            RpingResult result = new RpingClient(Rpings.client(server.port()).crc(clientCrc).markers(clientMarkers)
                    .mpaRevision(revision).size(size).count(count).validate(true).build(),
                    client.outWriter, client.errWriter).run();

            assertThat(result.failure()).as(client.err.toString()).isNull();
            assertThat(result.completed()).isEqualTo(count);
            assertThat(result.verified()).isEqualTo(count);
            RpingResult served = server.awaitResult();
            assertThat(served.failure()).as(server.output.err.toString()).isNull();
            assertThat(served.completed()).isEqualTo(count);
            assertThat(served.verified()).isEqualTo(count);

            // What MPA agreed: CRC if either end sent C=1; markers towards whoever sent M=1 (RFC 5044 §7.1.1).
            NegotiatedParameters n = result.negotiated();
            assertThat(n.revision()).isEqualTo(revision);
            assertThat(n.crc()).isEqualTo(clientCrc || serverCrc);
            assertThat(n.markersFromPeer()).isEqualTo(clientMarkers);
            assertThat(n.markersToPeer()).isEqualTo(serverMarkers);
            assertThat(served.negotiated().crc()).isEqualTo(clientCrc || serverCrc);
            if (revision == 2) {
                // MPA2-R-001, MPA2-R-005: rping's IRD/ORD 1/1 in both frames.
                assertThat(n.peerEnhancedData().ird()).isEqualTo(1);
                assertThat(n.peerEnhancedData().ord()).isEqualTo(1);
                assertThat(served.negotiated().peerEnhancedData().ird()).isEqualTo(1);
                assertThat(served.negotiated().peerEnhancedData().ord()).isEqualTo(1);
            }
        }
    }

    @Test
    void verboseLinesAreRpingsOnBothEnds() throws Exception {
        int size = 100;
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder().size(size)
                .verbose(true))) {
            Rpings.Output client = new Rpings.Output();
            RpingResult result = new RpingClient(Rpings.client(server.port()).size(size).count(60).verbose(true)
                    .build(), client.outWriter, client.errWriter).run();
            assertThat(result.isSuccess()).as(client.err.toString()).isTrue();
            assertThat(server.awaitResult().isSuccess()).isTrue();

            List<String> expectedClient = new ArrayList<>();
            List<String> expectedServer = new ArrayList<>();
            for (int ping = 0; ping < 60; ping++) {
                String data = new String(PingData.of(ping, size), 0, size - 1, java.nio.charset.StandardCharsets.US_ASCII);
                expectedClient.add("ping data: " + data);
                expectedServer.add("server ping data: " + data);
            }
            // rping prints nothing else without -d.
            assertThat(client.lines()).containsExactlyElementsOf(expectedClient);
            assertThat(server.output.lines()).containsExactlyElementsOf(expectedServer);
            assertThat(expectedClient.get(0)).isEqualTo("ping data: rdma-ping-0: "
                    + "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ[\\"); // 86 letters
            // The client disconnects, the server reports it as rping does.
            assertThat(server.output.err.toString()).contains("server DISCONNECT EVENT...");
        }
    }

    @Test
    void serverWithCountFailsWhenTheClientStopsEarly() throws Exception {
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder().count(5))) {
            Rpings.Output client = new Rpings.Output();
            assertThat(new RpingClient(Rpings.client(server.port()).count(2).build(), client.outWriter,
                    client.errWriter).run().isSuccess()).isTrue();
            RpingResult served = server.awaitResult();
            assertThat(served.completed()).isEqualTo(2);
            assertThat(served.failure()).isEqualTo("the client disconnected after 2 of 5 iterations");
            assertThat(server.output.err.toString()).contains("rping server failed: the client disconnected after 2 of 5");
        }
    }

    @Test
    void serverRefusesPingDataLargerThanItsBuffer() throws Exception {
        // Linux rping's server would fail its RDMA Read into a too small rdma_buf; ours says why.
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder().size(64))) {
            Rpings.Output client = new Rpings.Output();
            RpingResult result = new RpingClient(Rpings.client(server.port()).size(65).count(1).build(),
                    client.outWriter, client.errWriter).run();
            RpingResult served = server.awaitResult();
            assertThat(served.failure()).startsWith(
                    "the client's ping data of 65 octets does not fit this server's buffer of 64 octets (-S)");
            assertThat(result.isSuccess()).isFalse();
            assertThat(result.completed()).isZero();
            assertThat(client.err.toString()).contains("client DISCONNECT EVENT...", "rping client failed");
        }
    }

    @Test
    void aSecondClientIsRejectedWhileTheFirstIsServed() throws Exception {
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder());
             RawMpaPeer first = RawMpaPeer.connect(server.server.localAddress(),
                     RpingOptions.clientBuilder(java.net.InetAddress.getLoopbackAddress()).build().mpaSettings(), 24)) {
            first.negotiated.get(RawMpaPeer.WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);

            Rpings.Output second = new Rpings.Output();
            RpingResult rejected = new RpingClient(Rpings.client(server.port()).count(1).build(), second.outWriter,
                    second.errWriter).run();
            assertThat(rejected.isSuccess()).isFalse();
            assertThat(rejected.negotiated()).isNull();
            assertThat(second.err.toString()).startsWith("connect error: localhost:" + server.port()
                    + ": the peer rejected the connection: it gave no reason (MPA Reply with R=1, no private data)");
            // Written off the event loop that rejected the request, so not necessarily yet.
            assertThat(server.server.awaitLinesWritten(Rpings.WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();
            assertThat(server.output.err.toString()).contains("this rping server serves one client");

            // The first client leaves before its first ping: nothing was asked (-C 0), nothing failed.
            first.disconnect();
            RpingResult served = server.awaitResult();
            assertThat(served.failure()).isNull();
            assertThat(served.completed()).isZero();
        }
    }

    /**
     * The line of a rejected request is written off the event loop that rejects it: a standard
     * error that blocks (a paused terminal, a pipe nobody reads) holds no connection.
     */
    @Test
    void aRequestIsRejectedWhileTheErrorStreamIsBlocked() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        Writer blocked = new Writer() {
            @Override
            public void write(char[] chars, int offset, int length) throws java.io.IOException {
                writing.countDown();
                try {
                    if (!goOn.await(Rpings.WAIT_SECONDS, TimeUnit.SECONDS)) {
                        throw new java.io.IOException("never released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Rpings.Output output = new Rpings.Output();
        try (RpingServer server = RpingServer.bind(RpingOptions.serverBuilder()
                .address(java.net.InetAddress.getLoopbackAddress()).port(0).timeout(Rpings.STEP_TIMEOUT).build(),
                output.outWriter, new PrintWriter(blocked, true));
             RawMpaPeer first = RawMpaPeer.connect(server.localAddress(),
                     RpingOptions.clientBuilder(java.net.InetAddress.getLoopbackAddress()).build().mpaSettings(), 24)) {
            first.negotiated.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS);
            for (int i = 0; i < 2; i++) {
                Rpings.Output second = new Rpings.Output();
                RpingResult rejected = new RpingClient(Rpings.client(server.localAddress().getPort()).count(1).build(),
                        second.outWriter, second.errWriter).run();
                assertThat(rejected.failure()).contains("the peer rejected the connection");
                assertThat(writing.await(Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).as("the line is being written")
                        .isTrue();
            }
            goOn.countDown(); // before the server's close, which waits for its lines a while
        } finally {
            goOn.countDown();
        }
    }

    @Test
    void closingAWaitingServerEndsItsServe() throws Exception {
        Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder());
        server.close();
        RpingResult served = server.awaitResult();
        assertThat(served.failure()).isEqualTo("connect error: the server was closed before a client connected");
        assertThat(served.negotiated()).isNull();
    }
}
