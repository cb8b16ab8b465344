package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FuzzSeedsTest {

    @TempDir
    Path dir;

    @Test
    void theInputsDirectoryIsWhereJazzerReplaysFrom() {
        assertEquals(Path.of("m/src/test/resources/org/iwarp4j/testkit/FuzzSeedsTestInputs/fuzz"),
                FuzzSeeds.inputs(Path.of("m"), FuzzSeedsTest.class));
    }

    @Test
    void writtenSeedsCheckAndOthersAreLeftAlone() throws IOException {
        Files.write(dir.resolve("capture-x"), new byte[] {9});
        FuzzSeeds.check(dir, Map.of("a", new byte[] {1, 2}), true);

        assertArrayEquals(new byte[] {1, 2}, Files.readAllBytes(dir.resolve("enc-a")));
        FuzzSeeds.check(dir, Map.of("a", new byte[] {1, 2}), false);
        assertTrue(Files.exists(dir.resolve("capture-x")), "only enc-* files are the encoders'");
    }

    @Test
    void aChangedMissingOrStaleSeedFailsTheCheckAndWritingRepairsIt() throws IOException {
        FuzzSeeds.check(dir, Map.of("a", new byte[] {1}, "old", new byte[] {3}), true);

        assertThrows(AssertionError.class, () -> FuzzSeeds.check(dir, Map.of("a", new byte[] {2}, "old", new byte[] {3}), false));
        assertThrows(AssertionError.class, () -> FuzzSeeds.check(dir, Map.of("a", new byte[] {1}, "old", new byte[] {3},
                "new", new byte[0]), false));
        assertThrows(AssertionError.class, () -> FuzzSeeds.check(dir, Map.of("a", new byte[] {1}), false));

        FuzzSeeds.check(dir, Map.of("a", new byte[] {1}), true);
        assertFalse(Files.exists(dir.resolve("enc-old")));
        FuzzSeeds.check(dir, Map.of("a", new byte[] {1}), false);
    }
}
