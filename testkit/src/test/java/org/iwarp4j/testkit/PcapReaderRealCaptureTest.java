package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The reader against the real siw captures in {@code shared/pcaps}. Every expected value here was
 * taken from tshark 4.0.17 ({@code -z conv,tcp}, {@code -z follow,tcp,raw,N}, and the fields
 * {@code frame.number tcp.seq tcp.len}), not from this reader, so the tests do not need tshark.
 */
class PcapReaderRealCaptureTest {

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    /**
     * Per connection and direction: segment count, payload bytes, and the SHA-256 of tshark's
     * {@code follow,tcp,raw} bytes for that direction with its "[N bytes missing in capture file]"
     * notices removed.
     */
    @ParameterizedTest(name = "{0} stream {1}")
    @CsvSource({
        "host-mpa-probe.pcap, 0, 44974, 7174, 1, 24, 6e8eefc3828db13355db00323206017bca93d173c8f4a7214526bf4a8b1900ff, 1, 24, 190c1396da3556f56fe3a589d7a55a9b8609e87a70b8a386825af166c69f5197",
        "host-mpa-probe.pcap, 1, 44990, 7174, 1, 20, 9dcd11ee8e0cdabf63c68ef226ea161e5adbd40ebd5214ad714eeaf5c0d34379, 1, 20, b17e3a96f15025acfdf9f23d08e6b6d65aeb84f5fea9044fcab4e25d78c733d5",
        "host-mpa-probe.pcap, 2, 44994, 7174, 1, 24, 4c478bd82331f8d26b8ad42b853365d643dafb3e92e16e69bac7f6092642a872, 1, 24, 74e2b5518999fb976f0db0354431748eece8e05372e73126015180165035d55f",
        "host-mpa-probe.pcap, 3, 45008, 7174, 1, 24, 7cdf3e5fa2f0ad27dff8ad1cc6824e0471582c1405face8890c4b4d5b0d5fba9, 1, 24, 74bfb0696bf467c9acf740c86afb660bcfc496d6499fcaeb4d56491ee4761169",
        "ib_read_bw-siw.pcap, 0, 35582, 18515, 17, 868, b4f147a3ab3afec6be6f867a9c55b3f728f73e4de647c428bdad82bad375d2fc, 17, 868, ccce0d538ea993b166e5adcc88ccca5ce39286773e0a36f29ddfb7b496000a5d",
        "ib_read_bw-siw.pcap, 1, 38751, 18515, 6, 284, d42d0d02d401019827f50917a5c79fdfd0004ef5795b75be0422b2479349bdb8, 6, 444, b04dd8f919699f7f3d011649218a9b7be5922c841e7af553034017226a600f00",
        "ib_send_bw-siw.pcap, 0, 44834, 18515, 12, 708, c0202b4c3d787cba668a6b33376d50da02f4afd7ccfe63e3d59c5c1b3eb8261b, 11, 628, 102d11713f318128bf258a801752af9b729648fb8dc7e013d0c8fab314671240",
        "ib_send_bw-siw.pcap, 1, 40336, 18515, 6, 464, 38711aeb26ae599e54fe73867a07a43d47a2752838997ab85edc67f0cbae1744, 3, 72, a22ba638c59a24567410a51953078ee60f8e743fcc92f3f22488bbd360806d7a",
        "ib_write_bw-siw.pcap, 0, 43285, 18515, 17, 868, 6d94e49080c3215a8e8fd824ac710e83a63c65e51533b94b06114fc43e428f0c, 17, 868, 0e828893092fdcb8736b47809e83d88a482e9563886a5dd17e2e72ff5c5d8474",
        "ib_write_bw-siw.pcap, 1, 54426, 18515, 6, 444, 424ffbf5969dbd8f7e9aa7c705298508c2115bfe50218f5bfff4c020c402fe8e, 1, 24, 17822b650e6437ca0eda6e0f0e428674e68dcb95ce4e0125296e50ea3543017e",
        "nfs3-rdma-siw.pcap, 0, 50916, 20049, 23, 166300, 0a640962bd442b5cb9f0c1458fb6e9b3d084ff4bb51c606c74af84e6ff49e481, 19, 2668, e9e9035d88e94a08825fcb929c5fcef9c6ae4d9dbd0227a6eeb90f214998c1fd",
        "nfs3-rdma-siw.pcap, 1, 49923, 20049, 17, 2720, f255f8d9b45199000ff0333325d7090ba65c9022c80bdb16a77754ddc493ea66, 56, 142576, cda2ca383de55291dd1864335ace0ea48d603b4229988e65879f6957ce247adc",
        "rping-siw-crc.pcap, 0, 47780, 7174, 31, 1664, 4f16bf3adaa8b115631f21598a719278eb7b5d91658ffc8d075c92f7435cb2a4, 41, 2184, 1192ccd62440b56f3e2ec3c22cd6d3e239bde0ab7ebee2f823769e2ee78e1c53",
        "rping-siw.pcap, 0, 58701, 7174, 31, 1664, 98a886840c45c8fdbabfc32450e1c965ec0f7fede85288f36ba9ac59797e1fbb, 41, 2184, 514b49e0416f915322b79a29fa299dcad4323ab197a0a8918606a7e5d855dbac",
    })
    void directionsMatchTsharkFollow(String pcap, int stream, int clientPort, int serverPort,
            int requestSegments, long requestBytes, String requestSha256,
            int replySegments, long replyBytes, String replySha256) throws IOException {
        TcpConnection connection = read(pcap).connections().get(stream);

        assertEquals(clientPort, connection.clientPort());
        assertEquals(serverPort, connection.serverPort());
        assertTrue(connection.handshakeCaptured());
        assertDirection(connection.clientToServer(), requestSegments, requestBytes, requestSha256, REQUEST_KEY);
        assertDirection(connection.serverToClient(), replySegments, replyBytes, replySha256, REPLY_KEY);
    }

    @ParameterizedTest
    @CsvSource({
        "host-mpa-probe.pcap, 41, 4",
        "ib_read_bw-siw.pcap, 65, 2",
        "ib_send_bw-siw.pcap, 53, 2",
        "ib_write_bw-siw.pcap, 63, 2",
        "nfs3-rdma-siw.pcap, 161, 2",
        "rping-siw-crc.pcap, 90, 1",
        "rping-siw.pcap, 90, 1",
    })
    void countsFramesAndConnectionsLikeTshark(String pcap, int frames, int connections) throws IOException {
        PcapReader capture = read(pcap);

        assertEquals(frames, capture.frameCount());
        assertEquals(connections, capture.connections().size());
        for (TcpConnection connection : capture.connections()) {
            assertEquals(0, connection.clientToServer().retransmittedSegments(), connection::toString);
            assertEquals(0, connection.serverToClient().retransmittedSegments(), connection::toString);
        }
    }

    @Test
    void rpingIsOneLoopbackConnectionWithWholeFpdusPerSegment() throws IOException {
        TcpConnection rping = read("rping-siw.pcap").onlyConnection();

        assertEquals("10.0.2.15:58701", rping.client().toString());
        assertEquals("10.0.2.15:7174", rping.server().toString());
        assertEquals(OptionalInt.of(65495), rping.clientToServer().announcedMss());
        // MPA rev 2, flags 0x10 (enhanced), private data length 4: the RFC 6581 word 00010001.
        assertArrayEquals(Hex.decode("4d504120 49442052 65712046 72616d65 10020004 00010001"),
                rping.clientToServer().segments().get(0).payload());
        // Over loopback siw puts every FPDU, CRC included, in one segment: no 4-byte CRC segments.
        assertTrue(rping.clientToServer().segments().stream().allMatch(s -> s.length() >= 24));
        assertTrue(rping.serverToClient().segments().stream().allMatch(s -> s.length() >= 24));
        assertEquals(List.of(40, 84, 40), lengths(rping.clientToServer().segments().subList(1, 4)));
        assertEquals(List.of(52, 40, 84, 40), lengths(rping.serverToClient().segments().subList(1, 5)));
    }

    @Test
    void rpingWithCrcAsksForCrcInTheRequest() throws IOException {
        TcpConnection rping = read("rping-siw-crc.pcap").onlyConnection();

        // Flags 0x50: C (CRC) and the RFC 6581 enhanced bit, revision 2.
        assertArrayEquals(Hex.decode("50020004"), Arrays.copyOfRange(rping.clientToServer().stream(), 16, 20));
        assertArrayEquals(Hex.decode("50020004"), Arrays.copyOfRange(rping.serverToClient().stream(), 16, 20));
    }

    @Test
    void segmentsKeepTheirFrameNumbersAndRelativeSequenceNumbers() throws IOException {
        TcpDirection reply = read("rping-siw.pcap").onlyConnection().serverToClient();

        // tshark: frames 6, 9, 11, 13, 14 carry the reply's first five segments.
        assertEquals(List.of(6, 9, 11, 13, 14),
                reply.segments().subList(0, 5).stream().map(TcpSegment::frameNumber).toList());
        assertEquals(List.of(1L, 25L, 77L, 117L, 201L),
                reply.segments().subList(0, 5).stream().map(TcpSegment::relativeSequence).toList());
        assertEquals(200L, reply.segments().get(4).streamOffset());
        assertEquals(2184, reply.stream().length);
    }

    @Test
    void nfsCaptureIsMissingSegmentsAndSaysWhere() throws IOException {
        List<TcpConnection> nfs = read("nfs3-rdma-siw.pcap").connections();
        TcpDirection firstWrite = nfs.get(0).clientToServer();
        TcpDirection secondReadReplies = nfs.get(1).serverToClient();

        // tshark: "[143560 bytes missing in capture file]" after 166124 bytes.
        assertEquals(List.of(new SequenceGap(166124, 143560)), firstWrite.gaps());
        assertEquals(166124, firstWrite.streamBeforeFirstGap().length);
        assertThrows(IllegalStateException.class, firstWrite::stream);

        assertEquals(List.of(77900L, 16404L, 4L, 4096L, 4112L, 4096L, 4100L, 8192L, 4100L, 20500L, 8192L, 4L, 16612L),
                secondReadReplies.gaps().stream().map(SequenceGap::length).toList());
        assertEquals(42524, secondReadReplies.gaps().get(0).streamOffset());
        assertEquals(0, nfs.get(0).serverToClient().gaps().size());
        assertEquals(0, nfs.get(1).clientToServer().gaps().size());
    }

    @Test
    void nfsCarriesRpcRdmaPrivateDataInTheMpaFrames() throws IOException {
        TcpConnection nfs = read("nfs3-rdma-siw.pcap").connections().get(0);

        assertArrayEquals(Hex.decode("4d504120 49442052 65712046 72616d65 1002000c 00800000 f6ab0e18 01010303"),
                nfs.clientToServer().segments().get(0).payload());
        assertArrayEquals(Hex.decode("4d504120 49442052 65702046 72616d65 1002000c 00000080 f6ab0e18 01000303"),
                nfs.serverToClient().segments().get(0).payload());
    }

    @Test
    void nfsSendsFpduCrcsAsSegmentsOfTheirOwn() throws IOException {
        TcpDirection writes = read("nfs3-rdma-siw.pcap").connections().get(0).clientToServer();

        // tshark: frames 42/43, 45/46, 48/50 are a 32764-byte segment followed by a 4-byte one.
        List<TcpSegment> crcSegments = writes.segments().stream().filter(s -> s.length() == 4).toList();
        assertEquals(List.of(43, 46, 50), crcSegments.stream().map(TcpSegment::frameNumber).toList());
        assertEquals(List.of(35109L, 67877L, 100645L), crcSegments.stream().map(TcpSegment::relativeSequence).toList());
    }

    @Test
    void hostProbeCameThroughQemuUserNetworkingWithMss1460() throws IOException {
        List<TcpConnection> probes = read("host-mpa-probe.pcap").connections();

        for (TcpConnection probe : probes) {
            assertEquals("10.0.2.2", probe.client().address().getHostAddress());
            assertEquals("10.0.2.15:7174", probe.server().toString());
            assertEquals(OptionalInt.of(1460), probe.clientToServer().announcedMss());
            assertEquals(OptionalInt.of(1460), probe.serverToClient().announcedMss());
        }
        // Request and reply header words (flags, revision, private data length), per probe.
        assertEquals(List.of("10020004/10020004", "00010000/00010000", "50020004/50020004", "90020004/30020004"),
                probes.stream().map(p -> headerWord(p.clientToServer()) + "/" + headerWord(p.serverToClient())).toList());
        TcpSegment firstRequest = probes.get(0).clientToServer().segments().get(0);
        assertEquals(4, firstRequest.frameNumber());
        assertEquals(Instant.parse("2026-11-22T02:32:09.884809Z"), firstRequest.timestamp());
    }

    private static void assertDirection(TcpDirection direction, int segments, long bytes, String sha256, byte[] key) {
        assertEquals(segments, direction.segments().size(), direction::toString);
        assertEquals(bytes, direction.byteCount(), direction::toString);
        assertEquals(sha256, Hex.encode(sha256(concatenatedSegments(direction))), direction::toString);
        assertArrayEquals(key, Arrays.copyOf(direction.segments().get(0).payload(), 16));
    }

    private static byte[] concatenatedSegments(TcpDirection direction) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        direction.segments().forEach(s -> out.writeBytes(s.payload()));
        return out.toByteArray();
    }

    private static String headerWord(TcpDirection direction) {
        return Hex.encode(Arrays.copyOfRange(direction.stream(), 16, 20));
    }

    private static List<Integer> lengths(List<TcpSegment> segments) {
        return segments.stream().map(TcpSegment::length).toList();
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static PcapReader read(String pcap) throws IOException {
        return PcapReader.read(SharedFiles.pcap(pcap));
    }
}
