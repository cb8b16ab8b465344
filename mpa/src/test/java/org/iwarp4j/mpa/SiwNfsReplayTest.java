package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.iwarp4j.testkit.Hex;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpSegment;
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.api.Test;

/**
 * Real Linux bytes from testdata/captures/nfs3-rdma-siw.pcap (xprtrdma client and svcrdma server on
 * port 20049, CRC off; the capture is complete): connection 0 writes a 307200-octet file, whose data
 * the server pulls with RDMA Read, connection 1 reads it back, the server pushing it with RDMA Writes.
 * Every segment of a direction is fed to our MPA layer as TCP delivered it. siw cuts FPDUs to the
 * MSS of 65495 and hands the CRC field of one 65474-octet ULPDU to TCP on its own (frame 54).
 * Expected ULPDU lengths are tshark 4.0's iwarp_mpa.ulpdulength for the same FPDUs; the file is
 * {@code seq -f 'iwarp4j capture line %08g' 1 10240}, and the data Linux moved must be exactly it.
 */
class SiwNfsReplayTest {

    private static TcpConnection connection(int index) throws Exception {
        return PcapReader.read(TestData.capture("nfs3-rdma-siw.pcap")).connections().get(index);
    }

    /** The file the capture's NFS client wrote and read back. */
    private static byte[] copiedFile() {
        StringBuilder s = new StringBuilder();
        for (int line = 1; line <= 10240; line++) {
            s.append(String.format("iwarp4j capture line %08d", line)).append('\n');
        }
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The payloads of the tagged DDP segments (RFC 5041 §4.2: STag at octet 2, TO at 6, payload at
     * 14), joined per STag in arrival order after checking that each continues at the TO where the
     * previous one ended.
     */
    private static Map<Integer, byte[]> taggedDataBySTag(List<byte[]> ulpdus) {
        Map<Integer, ByteArrayOutputStream> data = new LinkedHashMap<>();
        Map<Integer, Long> nextTo = new LinkedHashMap<>();
        for (byte[] u : ulpdus) {
            if ((u[0] & 0x80) == 0) {
                continue;
            }
            ByteBuffer b = ByteBuffer.wrap(u);
            int stag = b.getInt(2);
            long to = b.getLong(6);
            Long expected = nextTo.get(stag);
            assertThat(expected == null || expected == to).as("STag %08x TO %x follows on", stag, to).isTrue();
            nextTo.put(stag, to + u.length - 14);
            data.computeIfAbsent(stag, k -> new ByteArrayOutputStream()).write(u, 14, u.length - 14);
        }
        Map<Integer, byte[]> out = new LinkedHashMap<>();
        data.forEach((stag, bytes) -> out.put(stag, bytes.toByteArray()));
        return out;
    }

    @Test
    void ourResponderDecodesTheClientsFpdusIncludingALoneCrcSegment() throws Exception {
        AtomicReference<MpaConnectRequest> seen = new AtomicReference<>();
        MpaStartupHandler responder = MpaStartupHandler.responder(
                MpaSettings.builder().crc(NegotiationMode.ACCEPT).build(),
                request -> {
                    seen.set(request);
                    return CompletableFuture.completedFuture(MpaDecision.accept());
                });
        EmbeddedChannel channel = new EmbeddedChannel(responder);
        List<TcpSegment> segments = connection(0).clientToServer().segments();
        assertThat(connection(0).clientToServer().gaps()).isEmpty();
        assertThat(segments.stream().filter(s -> s.length() == 4).map(TcpSegment::frameNumber))
                .as("segments holding only a CRC field").containsExactly(54);
        for (TcpSegment segment : segments) {
            channel.writeInbound(Wire.buf(segment.payload()));
        }
        channel.releaseOutbound();

        // MPA2-R-016: Linux's RFC 8797 block reaches the ULP without the RFC 6581 word (IRD 128, ORD 0).
        assertThat(seen.get().enhancedData()).isEqualTo(new EnhancedConnectionData(false, Collections.emptySet(), 128, 0));
        assertThat(seen.get().ulpPrivateData()).isEqualTo(Hex.decode("f6ab0e18 01010303"));
        assertThat(responder.startup().getNow(null).crc()).isFalse();

        List<byte[]> ulpdus = Wire.inbound(channel);
        List<Integer> lengths = new ArrayList<>();
        for (byte[] u : ulpdus) {
            lengths.add(u.length);
        }
        // 13 Sends (RPC calls), six RDMA Read Responses with the first WRITE's 262144 octets, the
        // second WRITE's Send, one Read Response with its 45056 octets, and COMMIT's Send.
        assertThat(lengths).containsExactly(86, 134, 134, 134, 86, 134, 134, 138, 154, 190, 166, 178, 190,
                32762, 32762, 32762, 65474, 65474, 32994, 190, 45070, 158);
        // The Read Responses carry the whole file, in order, into the server's two sink buffers.
        Map<Integer, byte[]> data = taggedDataBySTag(ulpdus);
        byte[] file = copiedFile();
        assertThat(data).containsOnlyKeys(0xa71d3901, 0xa71d3902);
        assertThat(data.get(0xa71d3901)).isEqualTo(Arrays.copyOfRange(file, 0, 262144));
        assertThat(data.get(0xa71d3902)).isEqualTo(Arrays.copyOfRange(file, 262144, 307200));
        channel.checkException();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void ourInitiatorDecodesTheServersFpdus() throws Exception {
        // svcrdma replies with IRD 0, ORD 128: an Initiator must offer IRD >= 128 (MPA2-R-006).
        MpaStartupHandler initiator = MpaStartupHandler.initiator(
                MpaSettings.builder().crc(NegotiationMode.ACCEPT).ird(128).build());
        EmbeddedChannel channel = new EmbeddedChannel(initiator);
        channel.releaseOutbound();
        for (TcpSegment segment : connection(0).serverToClient().segments()) {
            channel.writeInbound(Wire.buf(segment.payload()));
        }
        NegotiatedParameters p = initiator.startup().getNow(null);
        assertThat(p.peerEnhancedData()).isEqualTo(new EnhancedConnectionData(false, Collections.emptySet(), 0, 128));
        assertThat(p.peerPrivateData()).isEqualTo(Hex.decode("f6ab0e18 01000303"));
        assertThat(p.ord()).isZero();
        List<Integer> lengths = new ArrayList<>();
        for (byte[] u : Wire.inbound(channel)) {
            lengths.add(u.length);
        }
        // Replies, GETACL's Reply chunk as an RDMA Write (150), two RDMA Read Requests (46) and
        // the WRITE and COMMIT replies.
        assertThat(lengths).containsExactly(70, 126, 102, 158, 70, 126, 158, 166, 162, 150, 98, 306, 190, 46, 46,
                182, 182, 174);
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void ourInitiatorDecodesTheReadDataTheServerWroteIntoTheClientsBuffers() throws Exception {
        MpaStartupHandler initiator = MpaStartupHandler.initiator(
                MpaSettings.builder().crc(NegotiationMode.ACCEPT).ird(128).build());
        EmbeddedChannel channel = new EmbeddedChannel(initiator);
        channel.releaseOutbound();
        for (TcpSegment segment : connection(1).serverToClient().segments()) {
            channel.writeInbound(Wire.buf(segment.payload()));
        }
        assertThat(initiator.startup().getNow(null).peerPrivateData()).isEqualTo(Hex.decode("f6ab0e18 01000303"));
        List<byte[]> ulpdus = Wire.inbound(channel);
        List<Integer> lengths = new ArrayList<>();
        for (byte[] u : ulpdus) {
            lengths.add(u.length);
        }
        assertThat(lengths).containsExactly(70, 126, 102, 158, 70, 126, 158, 166, 274, 166,
                20494, 20494, 20494, 20494, 20494, 20494, 20494, 20494, 20494, 20494, 20494, 20494, 16398, 198,
                20494, 20494, 4110, 198, 198, 98, 158, 138, 338, 22, 98, 198, 98);
        // The two READs' Write chunks hold the file; the other Writes fill Reply chunks.
        Map<Integer, byte[]> data = taggedDataBySTag(ulpdus);
        byte[] file = copiedFile();
        assertThat(data.get(0xa22eab01)).isEqualTo(Arrays.copyOfRange(file, 0, 262144));
        assertThat(data.get(0xa22eab02)).isEqualTo(Arrays.copyOfRange(file, 262144, 307200));
        assertThat(data).hasSize(6);
        assertThat(channel.finish()).isFalse();
    }
}
