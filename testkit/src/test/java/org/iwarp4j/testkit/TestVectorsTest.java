package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TestVectorsTest {

    private static final String GOOD = """
            # a comment before the first record

            id:      V-A-1
            source:  RFC 5044 §4.4 Figure 5
            origin:  published
            meaning: two words over two lines
            hex:     00010203
                     0a0b 0c 0d

            id:      V-B
            source:  RFC 8166 §4
            origin:  derived from V-A-1
            meaning: one octet
            hex:     ff
            """;

    @TempDir
    Path workspace;

    private static List<TestVectors.Vector> parse(String text) {
        return TestVectors.parse("sample.txt", text.lines().toList());
    }

    /** GOOD with {@code from} replaced by {@code to} (the CSV writes line breaks as {@code \n}). */
    private static String goodWith(String from, String to) {
        String replaced = GOOD.replace(from.replace("\\n", "\n"), to.replace("\\n", "\n"));
        assertFalse(replaced.equals(GOOD), "the mutation must change the sample: " + from);
        return replaced;
    }

    @Test
    void readsEveryFieldAndJoinsHexContinuationLines() {
        List<TestVectors.Vector> v = parse(GOOD);

        assertEquals(2, v.size());
        assertEquals("V-A-1", v.get(0).id());
        assertEquals("RFC 5044 §4.4 Figure 5", v.get(0).source());
        assertTrue(v.get(0).published());
        assertEquals("two words over two lines", v.get(0).meaning());
        assertArrayEquals(new byte[] {0, 1, 2, 3, 0x0a, 0x0b, 0x0c, 0x0d}, v.get(0).bytes());
        assertEquals("V-B", v.get(1).id());
        assertEquals("derived from V-A-1", v.get(1).origin());
        assertFalse(v.get(1).published());
        assertArrayEquals(new byte[] {(byte) 0xff}, v.get(1).bytes());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown field       | 'meaning: one octet'     | 'meaning: one octet\\nnote:    extra' | '''note'' where ''hex'''",
            "missing field       | 'meaning: one octet\\n'  | '' | '''hex'' where ''meaning'''",
            "fields reordered    | 'origin:  published'     | 'meaning: published' | '''meaning'' where ''origin'''",
            "field repeated      | 'origin:  published'     | 'source:  again' | '''source'' where ''origin'''",
            "empty value         | 'source:  RFC 8166 §4'   | 'source: ' | 'expected ''field: value'''",
            "bad origin          | 'origin:  published'     | 'origin:  made up' | 'origin must be'",
            "bare derived        | 'origin:  derived from V-A-1' | 'origin:  derived' | 'origin must be'",
            "odd hex group       | 'hex:     ff'            | 'hex:     fff' | '''fff'''",
            "upper-case hex      | 'hex:     ff'            | 'hex:     FF' | '''FF'''",
            "not hex             | 'hex:     ff'            | 'hex:     fg' | '''fg'''",
            "colon-separated hex | 'hex:     ff'            | 'hex:     ff:ff' | '''ff:ff'''",
            "lower-case ID       | 'id:      V-B'           | 'id:      V-b' | 'not a vector ID'",
            "ID without V-       | 'id:      V-B'           | 'id:      B' | 'not a vector ID'",
            "ID defined twice    | 'id:      V-B'           | 'id:      V-A-1' | 'defined twice'",
            "stray indented line | 'meaning: one octet'     | 'meaning: one octet\\n  more meaning' | 'indented line outside'",
            "comment in a record | 'origin:  derived from V-A-1' | 'origin:  derived from V-A-1\\n# note' | 'comment inside a record'",
            "no colon            | 'source:  RFC 8166 §4'   | 'source   RFC 8166 §4' | 'expected ''field: value'''",
            "records not apart   | '\\n\\nid:      V-B'     | '\\nid:      V-B' | '''id'' where ''a blank line'''"})
    void rejectsAMalformedFileNamingItsLine(String what, String from, String to, String why) {
        String text = goodWith(from, to == null ? "" : to);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(text), what);
        assertTrue(e.getMessage().matches("sample\\.txt:\\d+: .+"), e.getMessage());
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void aRecordCutShortAtTheEndOfTheFileIsRejected() {
        String text = GOOD.substring(0, GOOD.lastIndexOf("hex:"));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(text));
        assertTrue(e.getMessage().contains("lacks 'hex'"), e.getMessage());
    }

    @Test
    void anIdDefinedInTwoFilesIsRejected() throws IOException {
        Files.writeString(workspace.resolve("a.txt"), GOOD);
        Files.writeString(workspace.resolve("b.txt"), GOOD.substring(GOOD.indexOf("id:      V-B")));

        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TestVectors.parseDirectory(workspace));
        assertTrue(e.getMessage().contains("V-B"), e.getMessage());
    }

    @Test
    void aFolderWithoutVectorFilesIsAnError() throws IOException {
        Files.writeString(workspace.resolve("README.md"), "not vectors");

        assertThrows(IllegalStateException.class, () -> TestVectors.parseDirectory(workspace));
    }

    @Test
    void theRepositorysFilesHoldEveryVectorTheTestsName() {
        Map<String, TestVectors.Vector> all = TestVectors.all();

        Set<String> named = Set.of("V-CRC-0", "V-CRC-1", "V-CRC-2", "V-CRC-3", "V-CRC-4", "V-CRC-5",
                "V-CRC-5-INPUT", "V-MPA-F5", "V-MPA-F6", "V-MPA-KEY-REQ", "V-MPA-KEY-REP", "V-MPA-REQ1",
                "V-MPA-REP1", "V-MPA-REQ2", "V-MPA-REQ2-P2P", "V-CMPD-1", "V-CMPD-2", "V-RPC-NULL", "V-RR-1",
                "V-RR-2", "V-RR-3", "V-RR-4", "V-RR-5", "V-RR-6", "V-RR-7", "V-FPDU-1", "V-FPDU-2", "V-FPDU-3",
                "V-FPDU-4", "V-FPDU-5", "V-FPDU-6", "V-FPDU-7", "V-FPDU-8", "V-RTR-1", "V-RTR-2", "V-RTR-3",
                "V-CRCOFF");
        assertEquals(named, all.keySet());
        assertArrayEquals(new byte[] {(byte) 0x83, (byte) 0x92, 0x06, (byte) 0xe3}, TestVectors.bytes("V-CRC-0"));
        assertEquals(52, TestVectors.bytes("V-MPA-F5").length);
        assertTrue(TestVectors.vector("V-MPA-F5").published());
        assertFalse(TestVectors.vector("V-FPDU-1").published());
    }

    @Test
    void everyFpduButTheBadCrcOneEndsWithItsOwnCrc() {
        // The derived FPDUs' CRCs were computed, not printed in an RFC: recompute them so a digit
        // mistyped in the file shows up here rather than as a puzzling codec failure.
        for (String id : TestVectors.all().keySet()) {
            if (!(id.startsWith("V-FPDU-") || id.startsWith("V-RTR-"))) {
                continue;
            }
            byte[] fpdu = TestVectors.bytes(id);
            CRC32C crc = new CRC32C();
            crc.update(fpdu, 0, fpdu.length - 4);
            long value = crc.getValue();
            byte[] wire = {(byte) value, (byte) (value >>> 8), (byte) (value >>> 16), (byte) (value >>> 24)};
            assertArrayEquals(wire, Arrays.copyOfRange(fpdu, fpdu.length - 4, fpdu.length), id);
        }
    }

    @Test
    void eachCallGetsItsOwnCopy() {
        byte[] first = TestVectors.bytes("V-RTR-1");
        first[0] = 0x7f;

        byte[] second = TestVectors.bytes("V-RTR-1");
        assertNotSame(first, second);
        assertEquals(0x00, second[0]);
    }

    @Test
    void anUnknownIdIsAnError() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TestVectors.bytes("V-NO-SUCH"));
        assertTrue(e.getMessage().contains("V-NO-SUCH"), e.getMessage());
    }
}
