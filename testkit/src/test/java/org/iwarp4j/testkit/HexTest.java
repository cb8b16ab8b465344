package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

class HexTest {

    @Test
    void decodesSpecStyleWordsAndTsharkStyleOctets() {
        byte[] key = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);

        assertArrayEquals(key, Hex.decode("4d504120 49442052 65712046 72616d65"));
        assertArrayEquals(key, Hex.decode("4d:50:41:20:49:44:20:52:65:71:20:46:72:61:6d:65"));
        assertArrayEquals(key, Hex.decode("4D504120\n\t49442052 65712046\r\n72616D65"));
    }

    @Test
    void rejectsWhatIsNotHexRatherThanSkippingIt() {
        assertThrows(IllegalArgumentException.class, () -> Hex.decode("4d50x1"));
        assertThrows(IllegalArgumentException.class, () -> Hex.decode("4d5"));
    }

    @Test
    void encodesLowerCaseWithoutSeparators() {
        assertEquals("00ff10ab", Hex.encode(new byte[] {0, (byte) 0xff, 0x10, (byte) 0xab}));
        assertEquals("", Hex.encode(new byte[0]));
    }

    @Test
    void decodesTheMarkerStreamDumpWithoutItsOffsetColumn() throws IOException {
        byte[] stream = Hex.decodeDump(Files.readString(TestData.vector("marker-stream.hex")));

        // testdata/vectors/README.md, marker stream: 1060 octets; FPDU 1's CRC at 612, FPDU 4's at 1056.
        assertEquals(1060, stream.length);
        assertEquals("028a1384", Hex.encode(java.util.Arrays.copyOfRange(stream, 612, 616)));
        assertEquals("81315c47", Hex.encode(java.util.Arrays.copyOfRange(stream, 1056, 1060)));
    }

    @Test
    void dumpLinesNeedAnOffsetColumn() {
        assertThrows(IllegalArgumentException.class, () -> Hex.decodeDump("0000: 00 01\n02 03"));
    }
}
