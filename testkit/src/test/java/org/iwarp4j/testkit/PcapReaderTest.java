package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.iwarp4j.testkit.SyntheticPcap.ACK;
import static org.iwarp4j.testkit.SyntheticPcap.FIN;
import static org.iwarp4j.testkit.SyntheticPcap.PSH;
import static org.iwarp4j.testkit.SyntheticPcap.SYN;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The reader on hand-made captures, for what the real captures do not exercise. */
class PcapReaderTest {

    private static final String CLIENT = "192.0.2.1";
    private static final String SERVER = "192.0.2.2";

    @Test
    void relativeSequenceCountsFromTheSynAndOffsetsFromTheFirstDataByte() throws IOException {
        TcpConnection connection = handshake(new SyntheticPcap(1), 1000, 5000)
                .tcp(CLIENT, 40000, SERVER, 7174, 1001, ACK | PSH, "hello")
                .tcp(SERVER, 7174, CLIENT, 40000, 5001, ACK | PSH, "world!")
                .tcp(CLIENT, 40000, SERVER, 7174, 1006, ACK | PSH, " again")
                .read().onlyConnection();

        assertTrue(connection.handshakeCaptured());
        assertEquals(40000, connection.clientPort());
        assertEquals(7174, connection.serverPort());
        assertEquals(List.of(4, 6), frames(connection.clientToServer()));
        assertEquals(List.of(1L, 6L), connection.clientToServer().segments().stream()
                .map(TcpSegment::relativeSequence).toList());
        assertEquals(List.of(0L, 5L), connection.clientToServer().segments().stream()
                .map(TcpSegment::streamOffset).toList());
        assertEquals("hello again", text(connection.clientToServer().stream()));
        assertEquals("world!", text(connection.serverToClient().stream()));
        assertEquals(OptionalInt.of(1460), connection.clientToServer().announcedMss());
    }

    @Test
    void retransmittedSegmentsAreDroppedAndTheFirstCopyKept() throws IOException {
        TcpDirection direction = handshake(new SyntheticPcap(1), 0, 0)
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "abc")
                .tcp(CLIENT, 40000, SERVER, 7174, 4, ACK, "def")
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "abc")
                .tcp(CLIENT, 40000, SERVER, 7174, 4, ACK, "def")
                .read().onlyConnection().clientToServer();

        assertEquals(List.of(4, 5), frames(direction));
        assertEquals(2, direction.retransmittedSegments());
        assertEquals("abcdef", text(direction.stream()));
    }

    @Test
    void aRetransmissionThatAlsoCarriesNewBytesKeepsOnlyTheNewOnes() throws IOException {
        TcpDirection direction = handshake(new SyntheticPcap(1), 0, 0)
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "abc")
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "abcdef")
                .read().onlyConnection().clientToServer();

        assertEquals(List.of("abc", "def"), direction.segments().stream().map(s -> text(s.payload())).toList());
        assertEquals(List.of(4, 5), frames(direction));
        assertEquals(4L, direction.segments().get(1).relativeSequence());
        assertEquals(1, direction.retransmittedSegments());
    }

    @Test
    void outOfOrderSegmentsArePutInSequenceOrderKeepingTheirFrameNumbers() throws IOException {
        TcpDirection direction = handshake(new SyntheticPcap(1), 0, 0)
                .tcp(CLIENT, 40000, SERVER, 7174, 7, ACK, "ghi")
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "abc")
                .tcp(CLIENT, 40000, SERVER, 7174, 4, ACK, "def")
                .read().onlyConnection().clientToServer();

        assertEquals(List.of(5, 6, 4), frames(direction));
        assertEquals("abcdefghi", text(direction.stream()));
        assertEquals(List.of(), direction.gaps());
        assertEquals(0, direction.retransmittedSegments());
    }

    @Test
    void missingBytesAreReportedAsGapsAndStreamRefusesToJoinAcrossThem() throws IOException {
        TcpDirection direction = handshake(new SyntheticPcap(1), 0, 0)
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "abc")
                .tcp(CLIENT, 40000, SERVER, 7174, 10, ACK, "jkl")
                .read().onlyConnection().clientToServer();

        assertEquals(List.of(new SequenceGap(3, 6)), direction.gaps());
        assertEquals(9, direction.gaps().get(0).endOffset());
        assertEquals(6, direction.byteCount());
        assertEquals("abc", text(direction.streamBeforeFirstGap()));
        IllegalStateException refused = assertThrows(IllegalStateException.class, direction::stream);
        assertTrue(refused.getMessage().contains("stream offset 3"), refused.getMessage());
    }

    @Test
    void aFrameCutAtTheSnapshotLengthLeavesAGap() throws IOException {
        SyntheticPcap pcap = handshake(new SyntheticPcap(101), 0, 0);
        byte[] full = SyntheticPcap.ip(CLIENT, SERVER,
                SyntheticPcap.tcpSegment(40000, 7174, 1, ACK, "abcdef".getBytes(StandardCharsets.US_ASCII)));
        pcap.frame(full, full.length - 2).tcp(CLIENT, 40000, SERVER, 7174, 7, ACK, "ghi");

        TcpDirection direction = pcap.read().onlyConnection().clientToServer();

        assertEquals("abcd", text(direction.segments().get(0).payload()));
        assertEquals(List.of(new SequenceGap(4, 2)), direction.gaps());
    }

    @Test
    void withoutAHandshakeTheFirstSenderIsTheClientAndOffsetsStartAtItsLowestSequenceNumber()
            throws IOException {
        TcpConnection connection = new SyntheticPcap(1)
                .tcp(CLIENT, 40000, SERVER, 7174, 3_000_000_010L, ACK, "second")
                .tcp(SERVER, 7174, CLIENT, 40000, 77, ACK, "reply")
                .tcp(CLIENT, 40000, SERVER, 7174, 3_000_000_000L, ACK, "first-----")
                .read().onlyConnection();

        assertFalse(connection.handshakeCaptured());
        assertEquals(40000, connection.clientPort());
        assertEquals("first-----second", text(connection.clientToServer().stream()));
        assertEquals(List.of(0L, 10L), connection.clientToServer().segments().stream()
                .map(TcpSegment::relativeSequence).toList());
        assertEquals(OptionalInt.empty(), connection.clientToServer().announcedMss());
    }

    @Test
    void aCapturedSynAckMarksItsSenderAsServerEvenIfTheServerIsSeenFirst() throws IOException {
        TcpConnection connection = new SyntheticPcap(1)
                .tcp(SERVER, 7174, CLIENT, 40000, 500, SYN | ACK, new byte[0])
                .tcp(CLIENT, 40000, SERVER, 7174, 101, ACK, "req")
                .read().onlyConnection();

        assertEquals(7174, connection.serverPort());
        assertEquals(40000, connection.clientPort());
        assertFalse(connection.handshakeCaptured());
    }

    @Test
    void sequenceNumbersMayWrapAround() throws IOException {
        long isn = 0xffff_fffdL;
        TcpDirection direction = handshake(new SyntheticPcap(1), isn, 0)
                .tcp(CLIENT, 40000, SERVER, 7174, 0xffff_fffeL, ACK, "ab")
                .tcp(CLIENT, 40000, SERVER, 7174, 0, ACK, "cd")
                .read().onlyConnection().clientToServer();

        assertEquals("abcd", text(direction.stream()));
        assertEquals(List.of(1L, 3L), direction.segments().stream().map(TcpSegment::relativeSequence).toList());
    }

    @Test
    void aNewSynOnAReusedPortStartsANewConnection() throws IOException {
        SyntheticPcap pcap = handshake(new SyntheticPcap(1), 100, 200)
                .tcp(CLIENT, 40000, SERVER, 7174, 101, ACK | PSH, "one")
                .tcp(CLIENT, 40000, SERVER, 7174, 104, ACK | FIN, new byte[0]);
        List<TcpConnection> connections = handshake(pcap, 9000, 8000)
                .tcp(CLIENT, 40000, SERVER, 7174, 9001, ACK | PSH, "two")
                .read().connections();

        assertEquals(2, connections.size());
        assertEquals("one", text(connections.get(0).clientToServer().stream()));
        assertEquals("two", text(connections.get(1).clientToServer().stream()));
        assertEquals(List.of(9), frames(connections.get(1).clientToServer()));
    }

    @Test
    void aRetransmittedSynDoesNotStartANewConnection() throws IOException {
        List<TcpConnection> connections = new SyntheticPcap(1)
                .tcp(CLIENT, 40000, SERVER, 7174, 100, SYN, new byte[0])
                .tcp(CLIENT, 40000, SERVER, 7174, 100, SYN, new byte[0])
                .tcp(SERVER, 7174, CLIENT, 40000, 200, SYN | ACK, new byte[0])
                .read().connections();

        assertEquals(1, connections.size());
    }

    @Test
    void framesAreNumberedByPositionInTheFileCountingNonTcpFrames() throws IOException {
        SyntheticPcap pcap = new SyntheticPcap(1);
        pcap.frame(new byte[60]); // not IP (EtherType 0)
        TcpDirection direction = pcap.tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "x").read()
                .onlyConnection().clientToServer();

        assertEquals(List.of(2), frames(direction));
    }

    @Test
    void ethernetPaddingIsNotPayload() throws IOException {
        TcpDirection direction = new SyntheticPcap(1)
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "x") // 55-byte packet, padded to 60
                .read().onlyConnection().clientToServer();

        assertEquals("x", text(direction.stream()));
    }

    @ParameterizedTest(name = "link type {0}")
    @ValueSource(ints = {1, 101, 113})
    void readsEthernetRawIpAndLinuxCookedCaptures(int linkType) throws IOException {
        TcpConnection connection = handshake(new SyntheticPcap(linkType), 0, 0)
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "payload")
                .read().onlyConnection();

        assertEquals("payload", text(connection.clientToServer().stream()));
        assertEquals("192.0.2.1:40000", connection.client().toString());
    }

    @Test
    void readsIpv6() throws IOException {
        TcpConnection connection = new SyntheticPcap(1)
                .tcp("2001:db8::1", 40000, "2001:db8::2", 7174, 0, SYN, new byte[0])
                .tcp("2001:db8::1", 40000, "2001:db8::2", 7174, 1, ACK, "six")
                .read().onlyConnection();

        assertEquals("six", text(connection.clientToServer().stream()));
        assertEquals("[2001:db8:0:0:0:0:0:2]:7174", connection.server().toString());
    }

    @Test
    void readsBigEndianNanosecondCaptures() throws IOException {
        TcpDirection direction = new SyntheticPcap(ByteOrder.BIG_ENDIAN, true, 1)
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "ns")
                .read().onlyConnection().clientToServer();

        assertEquals(Instant.ofEpochSecond(0, 1_000_001), direction.segments().get(0).timestamp());
    }

    @Test
    void readsLittleEndianMicrosecondCaptures() throws IOException {
        TcpDirection direction = new SyntheticPcap(ByteOrder.LITTLE_ENDIAN, false, 1)
                .tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "us")
                .read().onlyConnection().clientToServer();

        assertEquals(Instant.ofEpochSecond(0, 1_000_000), direction.segments().get(0).timestamp());
    }

    @Test
    void segmentPayloadsCannotBeChangedFromOutside() throws IOException {
        TcpSegment segment = new SyntheticPcap(1).tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "abc")
                .read().onlyConnection().clientToServer().segments().get(0);

        segment.payload()[0] = 'X';

        assertEquals("abc", text(segment.payload()));
    }

    @Test
    void rejectsPcapngWithAHint() {
        byte[] pcapng = {0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 28, 0x1a, 0x2b, 0x3c, 0x4d, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0};
        IOException rejected = assertThrows(IOException.class, () -> PcapReader.read(new ByteArrayInputStream(pcapng)));
        assertTrue(rejected.getMessage().contains("editcap"), rejected.getMessage());
    }

    @Test
    void rejectsAFileCutShortInsideAFrame() {
        byte[] whole = new SyntheticPcap(1).tcp(CLIENT, 40000, SERVER, 7174, 1, ACK, "abc").bytes();
        byte[] cut = Arrays.copyOf(whole, whole.length - 1);

        IOException rejected = assertThrows(IOException.class, () -> PcapReader.read(new ByteArrayInputStream(cut)));
        assertTrue(rejected.getMessage().contains("frame 1"), rejected.getMessage());
    }

    @Test
    void rejectsUnsupportedLinkTypes() {
        byte[] header = new SyntheticPcap(1).bytes();
        header[20] = (byte) 147; // a user-defined link type

        assertThrows(IOException.class, () -> PcapReader.read(new ByteArrayInputStream(header)));
    }

    private static SyntheticPcap handshake(SyntheticPcap pcap, long clientIsn, long serverIsn) {
        return pcap.tcp(CLIENT, 40000, SERVER, 7174, clientIsn, SYN, new byte[0])
                .tcp(SERVER, 7174, CLIENT, 40000, serverIsn, SYN | ACK, new byte[0])
                .tcp(CLIENT, 40000, SERVER, 7174, clientIsn + 1, ACK, new byte[0]);
    }

    private static List<Integer> frames(TcpDirection direction) {
        return direction.segments().stream().map(TcpSegment::frameNumber).toList();
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
