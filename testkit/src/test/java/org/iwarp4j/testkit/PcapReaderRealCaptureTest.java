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
 * The reader against the project's siw captures in {@code testdata/captures} (recorded by
 * {@code scripts/record-captures.sh}, see that directory's README). Every expected value here was
 * taken from tshark 4.0 ({@code -z conv,tcp}, {@code -z follow,tcp,raw,N}, and the fields
 * {@code frame.number tcp.seq tcp.len tcp.payload}), not from this reader, so the tests do not need
 * tshark.
 */
class PcapReaderRealCaptureTest {

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    /**
     * Per connection and direction: segment count, payload bytes, and the SHA-256 of those payload
     * bytes in sequence order. For the complete captures that is tshark's {@code follow,tcp,raw}
     * output for the direction; for {@code nfs3-rdma-siw-lost.pcap}, whose follow output tshark
     * pads around the holes, it is the concatenated {@code tcp.payload} fields of the direction's
     * segments ({@code -Y "tcp.stream==N && tcp.len>0 && tcp.dstport==20049" -T fields -e tcp.payload}),
     * which give the same digest as follow on the complete captures.
     */
    @ParameterizedTest(name = "{0} stream {1}")
    @CsvSource({
        "ib_read_bw-siw.pcap, 0, 50482, 18515, 17, 868, 2d269fd2701188e57716de3329d5a606ae20f46caf1ec9d9be4e4eac90b98528, 17, 868, cba193fe9f69261e20576b6273aa2c37e7bc6ddf2d913e0977949d0f0c5b5e70",
        "ib_read_bw-siw.pcap, 1, 32934, 18515, 6, 284, 7eac2a1cc3a7dbc79bbf21cada37a0bb1228452254fd587657f8b76aadc8ef58, 6, 444, cc58d2cb566ff316d5e7de568f6da8620294266e6fa23a069e86a880117ea2d0",
        "ib_send_bw-siw.pcap, 0, 54748, 18515, 12, 708, 2d7b4e904fbbc12c557888a59540e2622b1830199e56190811c3b74ad4049769, 12, 708, 08c56d6cfda654447a8233c34efc979a191781a0221c4b6539612f810fa34448",
        "ib_send_bw-siw.pcap, 1, 50426, 18515, 6, 464, cf4a457b10e4fa8518451c346f77bb69b3eb3dfd0d96eddb586dd798a8d76c4e, 3, 72, 5fd0443b8672f048aba01e728ff287e08cd1067870f229dfea117283dc4bcad3",
        "ib_write_bw-siw.pcap, 0, 47397, 18515, 17, 868, 318f5e74c3bd94815eb5d4b2ffe8fe94818124e85c7a3ae453d4f5c56ff02f83, 17, 868, 655e7099acdeef284d7e9b20d47df8c200ce548ee4caca8505124de63d03a99b",
        "ib_write_bw-siw.pcap, 1, 56002, 18515, 6, 444, 48d6b2591a73b0ad10c19864039f905d93ca40182fe32a3e3a13d623197df89d, 1, 24, 17822b650e6437ca0eda6e0f0e428674e68dcb95ce4e0125296e50ea3543017e",
        "nfs3-rdma-siw.pcap, 0, 34353, 20049, 26, 309668, 157b30e0384e0d2b6a6cd681cc07dc0b2618956e9d2b6280ca7e951706e3089e, 19, 2652, 71ef0f1199821c251274002055762d8e9b23f4f37a923eaca8c83b94358172d1",
        "nfs3-rdma-siw.pcap, 1, 57562, 20049, 17, 2512, 9d0f570d4e87a29da7a1a0143b02ec22bff34245e7d609fb104109459f906df1, 38, 310836, 642794568266bdb12ca16eadbf65a57e526956709d6a30bf2007a4cae1bc550d",
        "nfs3-rdma-siw-lost.pcap, 0, 34353, 20049, 24, 215384, 281e14eb2b2a69038d05ce02e4cd6688a8951e336665a803b29a5ba8feae9cbf, 19, 2652, 71ef0f1199821c251274002055762d8e9b23f4f37a923eaca8c83b94358172d1",
        "nfs3-rdma-siw-lost.pcap, 1, 57562, 20049, 17, 2512, 9d0f570d4e87a29da7a1a0143b02ec22bff34245e7d609fb104109459f906df1, 36, 269836, 5c1ac0740a6cd7f701e80045703df54c576cff431fd52d767d601a00ef851bd6",
        "rping-siw-crc.pcap, 0, 48304, 7174, 31, 1664, fad5c1fa884dbcbbc924f40eca1c0a3afcc188c12b36717d6593758210fb3398, 41, 2184, db2a1479d76d939de3ee430e5ca07ae6e8537b404bb188f292602bf87c566294",
        "rping-siw.pcap, 0, 58566, 7174, 31, 1664, 5de3df0de40b9e65106ffadace82d3f69f33e01a7ddf8356575e41f73c8353c8, 41, 2184, 7642222c6b4609fbad2987491b1044500e8495ee47ff7d4d53a385489a3551e8",
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
        "ib_read_bw-siw.pcap, 79, 2",
        "ib_send_bw-siw.pcap, 60, 2",
        "ib_write_bw-siw.pcap, 71, 2",
        "nfs3-rdma-siw.pcap, 152, 2",
        "nfs3-rdma-siw-lost.pcap, 148, 2",
        "rping-siw-crc.pcap, 91, 1",
        "rping-siw.pcap, 91, 1",
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

        assertEquals("10.0.2.15:58566", rping.client().toString());
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
        // tshark -t ud: the MPA Request is frame 4, 2026-11-25 18:42:57.223494 (a microsecond pcap).
        TcpSegment request = rping.clientToServer().segments().get(0);
        assertEquals(4, request.frameNumber());
        assertEquals(Instant.parse("2026-11-25T18:42:57.223494Z"), request.timestamp());
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
    void completeNfsCaptureHasNoGaps() throws IOException {
        for (TcpConnection connection : read("nfs3-rdma-siw.pcap").connections()) {
            assertEquals(List.of(), connection.clientToServer().gaps(), connection::toString);
            assertEquals(List.of(), connection.serverToClient().gaps(), connection::toString);
            assertEquals(connection.clientToServer().byteCount(), connection.clientToServer().stream().length);
            assertEquals(connection.serverToClient().byteCount(), connection.serverToClient().stream().length);
        }
    }

    @Test
    void nfsCaptureIsMissingSegmentsAndSaysWhere() throws IOException {
        List<TcpConnection> nfs = read("nfs3-rdma-siw-lost.pcap").connections();
        TcpDirection writeData = nfs.get(0).clientToServer();
        TcpDirection readData = nfs.get(1).serverToClient();

        // tshark on the complete capture: the removed frames 49 (seq 67505, 32768 bytes) and 51
        // (seq 100273, 61516 bytes) are adjacent, one hole of 94284 bytes at stream offset 67504.
        assertEquals(List.of(new SequenceGap(67504, 94284)), writeData.gaps());
        assertEquals(67504, writeData.streamBeforeFirstGap().length);
        assertThrows(IllegalStateException.class, writeData::stream);

        // Removed frames 106 (seq 22009) and 111 (seq 83509), 20500 bytes each: two holes.
        assertEquals(List.of(new SequenceGap(22008, 20500), new SequenceGap(83508, 20500)), readData.gaps());
        assertEquals(22008, readData.streamBeforeFirstGap().length);
        assertThrows(IllegalStateException.class, readData::stream);

        assertEquals(0, nfs.get(0).serverToClient().gaps().size());
        assertEquals(0, nfs.get(1).clientToServer().gaps().size());
        // The bytes before the hole are the complete capture's bytes.
        byte[] complete = read("nfs3-rdma-siw.pcap").connections().get(0).clientToServer().stream();
        assertArrayEquals(Arrays.copyOf(complete, 67504), writeData.streamBeforeFirstGap());
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
    void nfsCanSendAnFpduCrcAsASegmentOfItsOwn() throws IOException {
        TcpDirection writes = read("nfs3-rdma-siw.pcap").connections().get(0).clientToServer();

        // tshark: frames 51 (61516 bytes), 53 (3960) and 54 (4) carry one FPDU of the WRITE data;
        // frame 54 is the only 4-byte segment and holds just that FPDU's CRC field.
        List<TcpSegment> crcSegments = writes.segments().stream().filter(s -> s.length() == 4).toList();
        assertEquals(List.of(54), crcSegments.stream().map(TcpSegment::frameNumber).toList());
        TcpSegment crc = crcSegments.get(0);
        assertEquals(165749L, crc.relativeSequence());
        assertEquals(165748L, crc.streamOffset());
        // No CRC negotiated (MPA flags 0x10): the field is present and zero.
        assertArrayEquals(new byte[4], crc.payload());

        // The FPDU at stream offset 100272: ULPDU_Length 0xffc2 (65474), 2 + 65474 is a multiple of
        // 4 (no pad), so its CRC field is the 4 bytes right before offset 165752.
        byte[] stream = writes.stream();
        int ulpduLength = ((stream[100272] & 0xff) << 8) | (stream[100273] & 0xff);
        assertEquals(65474, ulpduLength);
        assertEquals(crc.streamOffset() + 4, 100272 + 2 + ulpduLength + 4);
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
        return PcapReader.read(TestData.capture(pcap));
    }
}
