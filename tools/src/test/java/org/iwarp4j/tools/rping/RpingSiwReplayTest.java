package org.iwarp4j.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.tools.rping.SiwRpingCapture.READ_SINK_STAG;
import static org.iwarp4j.tools.rping.SiwRpingCapture.READ_SINK_TO;
import static org.iwarp4j.tools.rping.SiwRpingCapture.READ_SIZE;
import static org.iwarp4j.tools.rping.SiwRpingCapture.READ_SOURCE_STAG;
import static org.iwarp4j.tools.rping.SiwRpingCapture.READ_SOURCE_TO;
import static org.iwarp4j.tools.rping.SiwRpingCapture.TAGGED_STAG;
import static org.iwarp4j.tools.rping.SiwRpingCapture.TAGGED_TO;
import static org.iwarp4j.tools.rping.SiwRpingCapture.UNTAGGED_PAYLOAD;
import static org.iwarp4j.tools.rping.SiwRpingCapture.int32;
import static org.iwarp4j.tools.rping.SiwRpingCapture.int64;
import static org.iwarp4j.tools.rping.SiwRpingCapture.payload;
import static org.iwarp4j.tools.rping.SiwRpingCapture.withStagAndTo;

import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.tools.rping.internal.RpingRdmaInfo;
import org.iwarp4j.mpa.MpaConnectRequest;
import org.iwarp4j.mpa.MpaDecision;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Our rping against Linux rping's side of a real siw exchange, byte for byte: a raw MPA peer
 * replays what siw's rping sent in testdata/captures/rping-siw*.pcap (only the STags and tagged offsets
 * of our buffers substituted where siw's rping would have used ours), and every ULPDU our rping
 * sends back is compared with what siw's rping sent in the same place. Same MPA frames, same
 * message order (Send / Read / Send / Write / Send per ping), same headers and MSNs, same 16-octet
 * messages, same ping data.
 */
class RpingSiwReplayTest {

    /** MPA as siw's rping: revision 2, IRD/ORD 1/1, C as in the capture, no markers (siw refuses them). */
    private static MpaSettings siwMpa(SiwRpingCapture capture) {
        return MpaSettings.builder().revision(2).ird(1).ord(1)
                .crc(capture.crc() ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .markers(NegotiationMode.OFF).build();
    }

    @ParameterizedTest(name = "{0}, server --crc {1}")
    @CsvSource({"rping-siw.pcap, false", "rping-siw-crc.pcap, true", "rping-siw-crc.pcap, false"})
    void ourServerAnswersSiwsClientAsSiwsServerDid(String file, boolean serverCrc) throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load(file);
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder().count(10)
                .validate(true).verbose(true).crc(serverCrc));
             RawMpaPeer client = RawMpaPeer.connect(server.server.localAddress(), siwMpa(capture),
                     capture.replyFrame.length)) {
            client.negotiated.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS);
            // Our Reply is siw's: Rev 2, IRD/ORD 00010001 (MPA2-R-003, MPA2-R-005); C as configured. The
            // crc capture's siw was built to require CRC, which is --crc. Without it our Reply says C=0
            // where siw echoes the Initiator's C=1; either way CRC is on (MPA-R-047).
            byte[] expectedReply = capture.replyFrame.clone();
            if (capture.crc() && !serverCrc) {
                expectedReply[16] &= ~0x40;
            }
            assertThat(client.peerStartupFrame()).isEqualTo(expectedReply);
            assertThat(client.negotiated.get().crc()).isEqualTo(capture.crc());

            for (int ping = 0; ping < 10; ping++) {
                client.send(capture.fromClient.get(3 * ping)); // start buffer {addr, rkey, len}

                byte[] read = client.next("Read Request of ping " + ping);
                byte[] siwRead = capture.fromServer.get(4 * ping);
                // RDMAP-R-011: same DDP/RDMAP header (QN 1, MSN), same source and size: only the sink is ours.
                assertThat(Arrays.copyOf(read, UNTAGGED_PAYLOAD)).isEqualTo(Arrays.copyOf(siwRead, UNTAGGED_PAYLOAD));
                assertThat(read).hasSameSizeAs(siwRead);
                assertThat(Arrays.copyOfRange(read, READ_SIZE, read.length))
                        .isEqualTo(Arrays.copyOfRange(siwRead, READ_SIZE, siwRead.length));
                int sinkStag = int32(read, READ_SINK_STAG);
                long sinkTo = int64(read, READ_SINK_TO);
                client.send(withStagAndTo(capture.fromClient.get(3 * ping + 1), TAGGED_STAG, sinkStag, TAGGED_TO, sinkTo));

                // RDMAP-R-020: the "go ahead" Send is siw's octet for octet (MSN included).
                assertThat(client.next("first go ahead of ping " + ping)).isEqualTo(capture.fromServer.get(4 * ping + 1));
                client.send(capture.fromClient.get(3 * ping + 2)); // sink buffer {addr, rkey, len}

                // RDMAP-R-008: the Write targets siw's sink with siw's 64 octets, as siw's server wrote.
                assertThat(client.next("Write of ping " + ping)).isEqualTo(capture.fromServer.get(4 * ping + 2));
                assertThat(client.next("second go ahead of ping " + ping)).isEqualTo(capture.fromServer.get(4 * ping + 3));
            }
            assertThat(client.pending()).isZero();
            client.disconnect(); // rping -c -C 10 disconnects: siw's FIN

            RpingResult served = server.awaitResult();
            assertThat(served.failure()).as(server.output.err.toString()).isNull();
            assertThat(served.completed()).isEqualTo(10);
            assertThat(served.verified()).isEqualTo(10);
            assertThat(served.negotiated().crc()).isEqualTo(capture.crc());
            assertThat(server.output.linesStartingWith("server ping data: ")).hasSize(10)
                    .first().isEqualTo("server ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rping-siw.pcap", "rping-siw-crc.pcap"})
    void ourClientTalksToSiwsServerAsSiwsClientDid(String file) throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load(file);
        CompletableFuture<MpaConnectRequest> request = new CompletableFuture<>();
        try (RawMpaPeer server = RawMpaPeer.listen(siwMpa(capture), r -> {
            request.complete(r);
            return CompletableFuture.completedFuture(MpaDecision.accept());
        }, capture.requestFrame.length)) {
            Rpings.Output output = new Rpings.Output();
            // The crc capture's client asked for CRC (C=1): that is --crc.
            RpingClient client = new RpingClient(Rpings.client(server.localAddress().getPort()).count(10)
                    .validate(true).verbose(true).crc(capture.crc()).build(), output.outWriter, output.errWriter);
            CompletableFuture<RpingResult> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.run();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            server.negotiated.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS);
            // Our Request is siw's rping's: Rev 2, C as asked, no M, IRD/ORD 00010001 (MPA2-R-001, MPA2-R-019).
            assertThat(server.peerStartupFrame()).isEqualTo(capture.requestFrame);
            assertThat(request.get().enhancedData().ird()).isEqualTo(RpingConstants.IRD);

            for (int ping = 0; ping < 10; ping++) {
                byte[] start = server.next("start buffer Send of ping " + ping);
                byte[] siwStart = capture.fromClient.get(3 * ping);
                RpingRdmaInfo startInfo = assertSameAdvertisement(start, siwStart);

                byte[] siwRead = capture.fromServer.get(4 * ping);
                server.send(withStagAndTo(siwRead, READ_SOURCE_STAG, startInfo.rkey(), READ_SOURCE_TO, startInfo.buf()));
                // RDMAP-R-016: our Read Response carries siw's sink STag/TO back and the very same ping data.
                assertThat(server.next("Read Response of ping " + ping)).isEqualTo(capture.fromClient.get(3 * ping + 1));

                server.send(capture.fromServer.get(4 * ping + 1)); // go ahead
                byte[] sink = server.next("sink buffer Send of ping " + ping);
                RpingRdmaInfo sinkInfo = assertSameAdvertisement(sink, capture.fromClient.get(3 * ping + 2));

                server.send(withStagAndTo(capture.fromServer.get(4 * ping + 2), TAGGED_STAG, sinkInfo.rkey(), TAGGED_TO,
                        sinkInfo.buf()));
                server.send(capture.fromServer.get(4 * ping + 3)); // go ahead
            }
            RpingResult result = run.get(Rpings.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(result.failure()).as(output.err.toString()).isNull();
            assertThat(result.completed()).isEqualTo(10);
            assertThat(result.verified()).isEqualTo(10);
            // After -C 10 the client disconnects and sends nothing more.
            server.closed.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(server.pending()).isZero();
            assertThat(output.linesStartingWith("ping data: ")).hasSize(10);
        }
    }

    /**
     * Our {addr, rkey, len} Send against siw's: same DDP/RDMAP header (QN 0, MSN), same 16-octet
     * layout and len; addr and rkey are naturally ours (RDMAP-R-020).
     */
    private static RpingRdmaInfo assertSameAdvertisement(byte[] ours, byte[] siws) {
        assertThat(ours).hasSize(UNTAGGED_PAYLOAD + RpingRdmaInfo.LENGTH).hasSameSizeAs(siws);
        assertThat(Arrays.copyOf(ours, UNTAGGED_PAYLOAD)).isEqualTo(Arrays.copyOf(siws, UNTAGGED_PAYLOAD));
        RpingRdmaInfo info = RpingRdmaInfo.get(Unpooled.wrappedBuffer(payload(ours)), 0);
        assertThat(info.size()).isEqualTo(RpingRdmaInfo.get(Unpooled.wrappedBuffer(payload(siws)), 0).size());
        return info;
    }

    @Test
    void ourServerWithMinusVRefusesDataThatIsNotRpings() throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load("rping-siw.pcap");
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder().validate(true));
             RawMpaPeer client = RawMpaPeer.connect(server.server.localAddress(), siwMpa(capture),
                     capture.replyFrame.length)) {
            client.negotiated.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS);
            client.send(capture.fromClient.get(0));
            byte[] read = client.next("Read Request");
            byte[] response = withStagAndTo(capture.fromClient.get(1), TAGGED_STAG, int32(read, READ_SINK_STAG), TAGGED_TO,
                    int64(read, READ_SINK_TO));
            response[SiwRpingCapture.TAGGED_PAYLOAD + 20] ^= 0x20; // one letter's case flipped
            client.send(response);

            RpingResult served = server.awaitResult();
            assertThat(served.isSuccess()).isFalse();
            assertThat(served.failure()).startsWith("ping 0: the data read is not rping's ping data at octet 20 of 64");
            assertThat(server.output.err.toString()).contains("data mismatch!");
            // The server went away without its "go ahead".
            client.closed.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(client.pending()).isZero();
        }
    }

    @Test
    void clientAskingForMarkersIsRejectedBySiw() throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load("rping-siw.pcap");
        try (RawMpaPeer server = RawMpaPeer.listen(siwMpa(capture),
                r -> CompletableFuture.completedFuture(MpaDecision.accept()), capture.requestFrame.length)) {
            Rpings.Output output = new Rpings.Output();
            RpingResult result = new RpingClient(Rpings.client(server.localAddress().getPort()).markers(true)
                    .count(1).build(), output.outWriter, output.errWriter).run();
            assertThat(result.isSuccess()).isFalse();
            assertThat(result.failure()).startsWith("connect error: ").contains("rejected the connection");
            assertThat(output.err.toString()).startsWith("connect error: ");
            // The M bit is what siw refused.
            assertThat(server.peerStartupFrame()[16] & 0x80).isEqualTo(0x80);
        }
    }

    @Test
    void aClientGoneInTheMiddleOfAPingFailsTheServer() throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load("rping-siw.pcap");
        try (Rpings.RunningServer server = new Rpings.RunningServer(RpingOptions.serverBuilder());
             RawMpaPeer client = RawMpaPeer.connect(server.server.localAddress(), siwMpa(capture),
                     capture.replyFrame.length)) {
            client.negotiated.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS);
            client.send(capture.fromClient.get(0));
            client.next("Read Request");
            client.disconnect(); // instead of the Read Response

            RpingResult served = server.awaitResult();
            assertThat(served.failure()).isEqualTo("the peer disconnected while this end waited for the RDMA Read of"
                    + " the client's start buffer (0 iterations completed)");
        }
    }

    @Test
    void anEndlessClientEndsWellWhenTheServerLeavesBetweenPings() throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load("rping-siw.pcap");
        try (RawMpaPeer server = RawMpaPeer.listen(siwMpa(capture),
                r -> CompletableFuture.completedFuture(MpaDecision.accept()), capture.requestFrame.length)) {
            Rpings.Output output = new Rpings.Output();
            RpingClient client = new RpingClient(Rpings.client(server.localAddress().getPort()).validate(true).build(),
                    output.outWriter, output.errWriter);
            CompletableFuture<RpingResult> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.run();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            for (int ping = 0; ping < 2; ping++) {
                RpingRdmaInfo start = RpingRdmaInfo.get(Unpooled.wrappedBuffer(payload(server.next("start"))), 0);
                server.send(withStagAndTo(capture.fromServer.get(4 * ping), READ_SOURCE_STAG, start.rkey(),
                        READ_SOURCE_TO, start.buf()));
                server.next("Read Response");
                server.send(capture.fromServer.get(4 * ping + 1));
                RpingRdmaInfo sink = RpingRdmaInfo.get(Unpooled.wrappedBuffer(payload(server.next("sink"))), 0);
                server.send(withStagAndTo(capture.fromServer.get(4 * ping + 2), TAGGED_STAG, sink.rkey(), TAGGED_TO,
                        sink.buf()));
                server.send(capture.fromServer.get(4 * ping + 3));
            }
            server.next("the third ping's start buffer");
            server.disconnect();

            RpingResult result = run.get(Rpings.WAIT_SECONDS, TimeUnit.SECONDS);
            // rping -c without -C runs until the server goes away: that is its normal end.
            assertThat(result.failure()).isNull();
            assertThat(result.completed()).isEqualTo(2);
            assertThat(result.verified()).isEqualTo(2);
            assertThat(output.err.toString()).isEqualTo("client DISCONNECT EVENT..." + System.lineSeparator());
        }
    }

    @Test
    void aSilentPeerEndsTheRunAfterTheTimeout() throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load("rping-siw.pcap");
        try (RawMpaPeer server = RawMpaPeer.listen(siwMpa(capture),
                r -> CompletableFuture.completedFuture(MpaDecision.accept()), capture.requestFrame.length)) {
            Rpings.Output output = new Rpings.Output();
            // The timeout bounds the connect (TCP and the MPA exchange with the peer's loop) too:
            // 300 ms, which a loaded machine could take there, ended the run at the connect instead.
            RpingResult result = new RpingClient(Rpings.client(server.localAddress().getPort()).count(1)
                    .timeout(java.time.Duration.ofSeconds(2)).build(), output.outWriter, output.errWriter).run();
            assertThat(result.failure()).isEqualTo("no completion within 2000 ms while waiting for the server's go"
                    + " ahead after its RDMA Read (0 iterations completed)");
            assertThat(server.next("start")).hasSize(UNTAGGED_PAYLOAD + RpingRdmaInfo.LENGTH);
        }
    }
}
