package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedFilesTest {

    @TempDir
    Path workspace;

    @Test
    void findsTheRealCaptures() {
        assertTrue(Files.isRegularFile(SharedFiles.pcap("rping-siw.pcap")));
    }

    @Test
    void namingAFileThatIsNotThereFailsWithItsPath() {
        IllegalArgumentException missing =
                assertThrows(IllegalArgumentException.class, () -> SharedFiles.pcap("no-such.pcap"));
        assertTrue(missing.getMessage().contains("no-such.pcap"), missing.getMessage());
    }

    @Test
    void thePropertyWinsWhenItNamesADirectory() throws IOException {
        Path elsewhere = Files.createDirectories(workspace.resolve("elsewhere"));

        assertEquals(elsewhere, SharedFiles.locate(elsewhere.toString(), workspace));
    }

    @Test
    void withoutAUsablePropertyItWalksUpToASiblingSharedDirectory() throws IOException {
        Path shared = Files.createDirectories(workspace.resolve("shared/pcaps")).getParent();
        Path module = Files.createDirectories(workspace.resolve("main/mpa"));

        assertEquals(shared, SharedFiles.locate(null, module));
        assertEquals(shared, SharedFiles.locate(workspace.resolve("main/shared").toString(), module));
    }

    @Test
    void failsWhenThereIsNoSharedDirectoryAnywhere() throws IOException {
        Path module = Files.createDirectories(workspace.resolve("main/mpa"));

        assertThrows(IllegalStateException.class, () -> SharedFiles.locate(null, module));
    }
}
