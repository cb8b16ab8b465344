package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Tshark} on Linux's rping capture {@code testdata/captures/rping-siw-crc.pcap}: 10 rounds of
 * 7 RDMAP messages, CRC on.
 */
class TsharkTest {

    private static final Path RPING_CRC = TestData.capture("rping-siw-crc.pcap");

    @Test
    void readsTheDecodedCaptureAndCountsGoodCrcs() throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        String verbose = Tshark.read(RPING_CRC, "-V");
        assertTrue(verbose.contains("ID Req frame") && verbose.contains("ID Rep frame"));
        assertTrue(!verbose.contains("Running as user"), "tshark's warnings are not in the output");
        List<String> opcodes = Tshark.values(RPING_CRC, "iwarp_rdma", "iwarp_rdma.opcode");
        assertEquals(70, opcodes.size());
        assertEquals(opcodes.size(), Tshark.count(verbose, "(Good CRC32)"));
        assertEquals(List.of("0x03", "0x01", "0x02", "0x03", "0x03", "0x00", "0x03"), opcodes.subList(0, 7));
    }

    /**
     * The same connection moved to TCP ports 57000 and 6667, which tshark 4.0 gives to IRC: MPA's
     * heuristic still finds it (a CI run's capture whose ephemeral port was 57000 was shown as IRC).
     */
    @Test
    void findsMpaOnPortsRegisteredForAnotherProtocol(@TempDir Path dir) throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        Path moved = dir.resolve("rping-on-irc-ports.pcap");
        Files.write(moved, withPorts(Files.readAllBytes(RPING_CRC), 57000, 6667));
        String verbose = Tshark.read(moved, "-V");
        assertTrue(verbose.contains("Src Port: 57000") && verbose.contains("Dst Port: 6667"), "ports moved");
        assertTrue(verbose.contains("ID Req frame") && verbose.contains("ID Rep frame"));
        assertEquals(70, Tshark.count(verbose, "(Good CRC32)"));
    }

    /**
     * A copy of a one-connection capture whose first frame's source port is replaced by {@code first}
     * and its other port by {@code second} in every frame (TCP checksums are not verified by tshark).
     */
    private static byte[] withPorts(byte[] pcap, int first, int second) {
        ByteBuffer packet = ByteBuffer.wrap(pcap.clone()); // network byte order
        ByteBuffer b = packet.duplicate().order(packet.getInt(0) == 0xa1b2c3d4 || packet.getInt(0) == 0xa1b23c4d
                ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN); // the file's own
        int linkHeader = switch (b.getInt(20)) {
            case 1 -> 14;   // Ethernet
            case 113 -> 16; // Linux cooked
            case 276 -> 20; // Linux cooked v2
            case 101 -> 0;  // raw IP
            default -> throw new IllegalArgumentException("link type " + b.getInt(20));
        };
        int from = -1;
        int to = -1;
        for (int at = 24; at + 16 <= pcap.length; at += 16 + b.getInt(at + 8)) {
            int ip = at + 16 + linkHeader;
            int tcp = ip + ((packet.get(ip) >> 4) == 6 ? 40 : (packet.get(ip) & 0x0f) * 4);
            if (from < 0) {
                from = Short.toUnsignedInt(packet.getShort(tcp));
                to = Short.toUnsignedInt(packet.getShort(tcp + 2));
            }
            for (int port = tcp; port <= tcp + 2; port += 2) {
                int p = Short.toUnsignedInt(packet.getShort(port));
                packet.putShort(port, (short) (p == from ? first : p == to ? second : p));
            }
        }
        return packet.array();
    }

    @Test
    void aFailingTsharkIsAnError() {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        assertThrows(IOException.class, () -> Tshark.read(Path.of("target", "no-such.pcap")));
    }

    @Test
    void countsNonOverlappingOccurrences() {
        assertEquals(2, Tshark.count("aXaXaXa", "aXa"));
        assertEquals(0, Tshark.count("abc", "d"));
        assertEquals(2, Tshark.count("(Good CRC32) (Good CRC32)", "(Good CRC32)"));
    }
}
