package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

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
