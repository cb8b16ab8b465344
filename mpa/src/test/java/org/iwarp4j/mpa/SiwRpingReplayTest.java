package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpSegment;
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real Linux bytes: both directions of Linux siw's rping captures ({@code testdata/captures}, recorded
 * by {@code scripts/record-captures.sh}: {@code rping -c -a 10.0.2.15 -p 7174 -C 10 -v}) replayed, TCP
 * segment by TCP segment as captured, through our Responder (fed siw's client side) and our
 * Initiator (fed siw's server side). siw sends MPA rev 2 with the RFC 6581 word 00010001 (IRD 1,
 * ORD 1); CRC off in rping-siw.pcap, on in rping-siw-crc.pcap. The expected FPDU lengths are what
 * tshark 4.0 shows for these files (iwarp_mpa.ulpdulength): the client sends 34, 78, 34 ten
 * times, the server 46, 34, 78, 34 ten times; tshark reports "Good CRC32" for every FPDU of the
 * CRC capture.
 */
class SiwRpingReplayTest {

    private static final int ITERATIONS = 10;

    private static TcpConnection connection(String file) throws IOException {
        List<TcpConnection> connections = PcapReader.read(TestData.capture(file)).connections();
        assertThat(connections).hasSize(1);
        return connections.get(0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"rping-siw.pcap, false", "rping-siw-crc.pcap, true"})
    void ourResponderTakesSiwsRequestAndEveryFpdu(String file, boolean crc) throws Exception {
        AtomicReference<MpaConnectRequest> seen = new AtomicReference<>();
        MpaStartupHandler responder = MpaStartupHandler.responder(
                MpaSettings.builder().crc(NegotiationMode.ACCEPT).build(),
                request -> {
                    seen.set(request);
                    return CompletableFuture.completedFuture(MpaDecision.accept());
                });
        EmbeddedChannel channel = new EmbeddedChannel(responder);
        for (TcpSegment segment : connection(file).clientToServer().segments()) {
            channel.writeInbound(Wire.buf(segment.payload()));
        }
        channel.releaseOutbound();

        // MPA2-R-015, MPA2-R-016, MPA2-R-017: siw's word 00010001 reaches the ULP decoded; no ULP private data.
        MpaConnectRequest request = seen.get();
        assertThat(request.frame().revision()).isEqualTo(2);
        assertThat(request.frame().crc()).isEqualTo(crc);
        assertThat(request.enhancedData())
                .isEqualTo(new EnhancedConnectionData(false, Collections.emptySet(), 1, 1));
        assertThat(request.ulpPrivateData()).isEmpty();
        NegotiatedParameters p = responder.startup().getNow(null);
        assertThat(p.crc()).isEqualTo(crc);
        assertThat(p.ird()).isEqualTo(1);
        assertThat(p.ord()).isEqualTo(1);

        assertThat(lengths(Wire.inbound(channel))).isEqualTo(repeat(34, 78, 34));
        assertThat(channel.finish()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"rping-siw.pcap, false", "rping-siw-crc.pcap, true"})
    void ourInitiatorTakesSiwsReplyAndEveryFpdu(String file, boolean crc) throws Exception {
        MpaStartupHandler initiator = MpaStartupHandler.initiator(
                MpaSettings.builder().crc(NegotiationMode.ACCEPT).build());
        EmbeddedChannel channel = new EmbeddedChannel(initiator);
        channel.releaseOutbound();
        for (TcpSegment segment : connection(file).serverToClient().segments()) {
            channel.writeInbound(Wire.buf(segment.payload()));
        }
        NegotiatedParameters p = initiator.startup().getNow(null);
        assertThat(p.revision()).isEqualTo(2);
        assertThat(p.crc()).isEqualTo(crc);
        assertThat(p.peerEnhancedData()).isEqualTo(new EnhancedConnectionData(false, Collections.emptySet(), 1, 1));
        assertThat(p.ord()).as("ORD lowered to siw's IRD (MPA2-R-006)").isEqualTo(1);

        List<byte[]> ulpdus = Wire.inbound(channel);
        assertThat(lengths(ulpdus)).isEqualTo(repeat(46, 34, 78, 34));
        for (byte[] u : ulpdus) {
            assertThat(u[0] & 0x03).as("DDP version 1").isEqualTo(1);
            assertThat(u[1] & 0xC0).as("RDMAP version 1").isEqualTo(0x40);
        }
        assertThat(channel.finish()).isFalse();
    }

    @ParameterizedTest(name = "segment {0}")
    @CsvSource({"1", "7", "30"})
    void aCorruptedOctetInSiwsCrcCaptureIsCaught(int segmentIndex) throws Exception {
        // MPA-R-030 on real bytes: proof that the CRCs above were really checked. tshark: after the
        // Request, siw's client sends one whole FPDU per segment (40 or 84 bytes), so the FPDUs before
        // the corrupted segment are delivered and no more.
        EmbeddedChannel channel = new EmbeddedChannel(MpaStartupHandler.responder(
                MpaSettings.builder().crc(NegotiationMode.ACCEPT).build(), ConnectRequestHandler.ACCEPT_ALL));
        List<TcpSegment> segments = connection("rping-siw-crc.pcap").clientToServer().segments();
        MpaException error = null;
        int delivered = 0;
        for (int i = 0; i < segments.size() && error == null; i++) {
            byte[] payload = segments.get(i).payload();
            if (i == segmentIndex) {
                payload[payload.length / 2] ^= 0x01;
                error = Wire.inboundError(channel, payload);
            } else {
                channel.writeInbound(Wire.buf(payload));
            }
        }
        delivered = Wire.inbound(channel).size();
        channel.releaseOutbound();
        assertThat(error.error()).isEqualTo(MpaError.CRC_ERROR);
        assertThat(delivered).isEqualTo(segmentIndex - 1);
        assertThat(channel.finish()).isFalse();
    }

    private static List<Integer> lengths(List<byte[]> ulpdus) {
        List<Integer> lengths = new ArrayList<>();
        for (byte[] u : ulpdus) {
            lengths.add(u.length);
        }
        return lengths;
    }

    private static List<Integer> repeat(int... pattern) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < ITERATIONS; i++) {
            for (int p : pattern) {
                out.add(p);
            }
        }
        return out;
    }
}
