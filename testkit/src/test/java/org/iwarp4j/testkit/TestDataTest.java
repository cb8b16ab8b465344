package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestDataTest {

    @TempDir
    Path workspace;

    @Test
    void theRepositoryCarriesItsOwnTestData() {
        Path root = TestData.root();

        assertTrue(Files.isDirectory(root.resolve("captures")), root.toString());
        assertTrue(Files.isRegularFile(root.resolve("captures/README.md")), root.toString());
        // Inside the checkout: the folder sits beside the top-level pom.xml.
        assertTrue(Files.isRegularFile(root.resolveSibling("pom.xml")), root.toString());
    }

    @Test
    void namingAFileThatIsNotThereFailsWithItsPath() {
        IllegalArgumentException missing =
                assertThrows(IllegalArgumentException.class, () -> TestData.capture("no-such.pcap"));
        assertTrue(missing.getMessage().contains("no-such.pcap"), missing.getMessage());
    }

    @Test
    void thePropertyWinsWhenItNamesADirectory() throws IOException {
        Path elsewhere = Files.createDirectories(workspace.resolve("elsewhere"));

        assertEquals(elsewhere, TestData.locate(elsewhere.toString(), workspace));
    }

    @Test
    void withoutAUsablePropertyItWalksUpToTheCheckoutsTestData() throws IOException {
        Path testdata = Files.createDirectories(workspace.resolve("checkout/testdata/captures")).getParent();
        Path module = Files.createDirectories(workspace.resolve("checkout/mpa"));

        assertEquals(testdata, TestData.locate(null, module));
        assertEquals(testdata, TestData.locate(workspace.resolve("checkout/mpa/testdata").toString(), module));
    }

    @Test
    void failsWhenThereIsNoTestDataAnywhere() throws IOException {
        Path module = Files.createDirectories(workspace.resolve("checkout/mpa"));

        assertThrows(IllegalStateException.class, () -> TestData.locate(null, module));
    }
}
