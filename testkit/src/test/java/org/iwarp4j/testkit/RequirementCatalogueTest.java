package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every requirement ID cited in the checkout (code, tests, scripts, poms, Markdown) must have a row
 * in {@code docs/requirements/}, so that {@code git grep -n ID} always leads from a citation to the
 * rule it claims to implement or test. IDs the catalogue defines but nothing cites are reported,
 * not failed: they are the requirements nobody has claimed yet.
 *
 * <p>The IDs used in the synthetic trees below are assembled from parts so that this file itself
 * cites nothing.
 */
class RequirementCatalogueTest {

    private static final String R = "-R-";

    @TempDir
    Path workspace;

    @Test
    void everyCitedRequirementIdHasACatalogueRow() {
        Path root = TestData.root().getParent();
        RequirementCatalogue catalogue = RequirementCatalogue.parse(root.resolve(RequirementCatalogue.DIRECTORY));
        List<RequirementCatalogue.Citation> citations = RequirementCatalogue.citations(root);

        System.out.print(catalogue.report(citations));

        // The scan did find the code's citations (guards against a scan that silently sees nothing).
        assertTrue(citations.size() > 100, "only " + citations.size() + " citations found under " + root);
        List<RequirementCatalogue.Citation> unknown = catalogue.unknown(citations);
        assertTrue(unknown.isEmpty(), unknown.size() + " cited IDs are not in " + RequirementCatalogue.DIRECTORY
                + ":\n  " + unknown.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
        List<RequirementCatalogue.Abbreviation> abbreviated = RequirementCatalogue.abbreviations(root);
        assertTrue(abbreviated.isEmpty(), abbreviated.size() + " lines abbreviate an ID (write every ID out):\n  "
                + abbreviated.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
    }

    @Test
    void abbreviatedIdsAreFoundOutsideTheCatalogueFolder() throws IOException {
        String id = "MPA" + R + "044";
        String other = "MPA" + R + "045";
        writeCatalogue(row(id, "7.1.1", "MUST") + row(other, "7.1.1", "MUST"));
        // The catalogue's README may speak of short forms; it is not scanned.
        write("docs/requirements/README.md", "uncited: " + id + ", -045\n");
        write("a/Slash.java", "// keys (" + id + "/045)\n// keys (" + id + "/-045)\n");
        write("a/Comma.java", "/* " + id + ", -045 */\n// " + id + " (a note), -045.\n// " + id + " to -045\n");
        write("a/Wrapped.java", "/**\n * rules " + id + ",\n * -045; more\n */\n");
        write("a/Fine.java", "// " + id + ", " + other + "; " + id + " to " + other + "; error -111\n// 64768/128 "
                + id + ", 128 octets\n");
        write("docs/Guide.md", "- " + id + " and -045\n");

        List<String> found = RequirementCatalogue.abbreviations(workspace).stream()
                .map(a -> a.file() + ":" + a.line()).sorted().collect(Collectors.toList());

        assertEquals(List.of(Path.of("a/Comma.java") + ":1", Path.of("a/Comma.java") + ":2",
                Path.of("a/Comma.java") + ":3", Path.of("a/Slash.java") + ":1", Path.of("a/Slash.java") + ":2",
                Path.of("a/Wrapped.java") + ":3", Path.of("docs/Guide.md") + ":1"), found);
    }

    @Test
    void aCitedIdThatTheCatalogueLacksIsReportedWithItsFileAndLine() throws IOException {
        String known = "MPA" + R + "001";
        String madeUp = "MPA" + R + "999";
        writeCatalogue(row(known, "1.2", "MUST"));
        write("mpa/src/main/java/Framing.java", "class Framing {\n    // " + known + "\n    // see " + madeUp
                + " and " + known + "\n}\n");
        write("scripts/check.sh", "# " + madeUp + "\n");
        // Not scanned: the catalogue directory, build output, hidden directories, other extensions.
        write("mpa/target/classes/Old.java", "// " + madeUp + "\n");
        write(".cache/vm/notes.md", madeUp + "\n");
        write("notes.txt", madeUp + "\n");

        RequirementCatalogue catalogue = RequirementCatalogue.parse(workspace.resolve(RequirementCatalogue.DIRECTORY));
        List<RequirementCatalogue.Citation> citations = RequirementCatalogue.citations(workspace);
        List<String> unknown = catalogue.unknown(citations).stream().map(Object::toString).sorted()
                .collect(Collectors.toList());

        assertEquals(List.of(Path.of("mpa/src/main/java/Framing.java") + ":3 " + madeUp,
                Path.of("scripts/check.sh") + ":1 " + madeUp), unknown);
        assertEquals(2, citations.stream().filter(c -> c.id().equals(known)).count());
        assertEquals(List.of(), catalogue.uncited(citations));
    }

    @Test
    void anUncitedIdIsReportedNotFailed() throws IOException {
        String cited = "DDP" + R + "001";
        String uncited = "DDP" + R + "002";
        writeCatalogue(row(cited, "3", "MUST") + row(uncited, "3", "MUST NOT"));
        write("ddp/Segment.java", "// " + cited + "\n");

        RequirementCatalogue catalogue = RequirementCatalogue.parse(workspace.resolve(RequirementCatalogue.DIRECTORY));
        List<RequirementCatalogue.Citation> citations = RequirementCatalogue.citations(workspace);

        assertTrue(catalogue.unknown(citations).isEmpty());
        assertEquals(List.of(uncited), catalogue.uncited(citations));
        String report = catalogue.report(citations);
        assertTrue(report.contains("   2    1    1  " + uncited), report);
    }

    @Test
    void malformedRowsFailTheParseInsteadOfBeingSkipped() throws IOException {
        String id = "RPC" + R + "001";
        assertMalformed(row("RPC" + R + "01", "2.3.2", "MUST"), "is not an ID");
        assertMalformed(row(id, "", "MUST"), "empty RFC section");
        assertMalformed(row(id, "2.3.2", ""), "empty Level");
        assertMalformed(row(id, "2.3.2", "must"), "level 'must'");
        assertMalformed(row(id, "2.3.2", "MUST/MAY"), "level 'MUST/MAY'");
        assertMalformed("| " + id + " | 2.3.2 | MUST | both | a | b | c |\n", "7 cells");
        assertMalformed("| " + id + " | 2.3.2 | MUST | both | text |\n", "5 cells");
        assertMalformed("| " + id + " | 2.3.2 | MUST | both | text | note\n", "does not end");
    }

    @Test
    void duplicateIdsAndAMisplacedHeaderFail() throws IOException {
        String id = "ULB" + R + "001";
        assertMalformed(row(id, "3", "\u2014") + row(id, "3.1", "MUST"), "duplicates");

        Files.createDirectories(workspace.resolve(RequirementCatalogue.DIRECTORY));
        write("docs/requirements/a.md", "| ID | Section | Level | Role | Requirement | Notes |\n|---|---|---|---|---|---|\n"
                + row(id, "3", "MUST"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RequirementCatalogue.parse(workspace.resolve(RequirementCatalogue.DIRECTORY)));
        assertTrue(e.getMessage().contains("header must be"), e.getMessage());
    }

    @Test
    void levelsCombineKeywordsOrAreADash() {
        assertTrue(RequirementCatalogue.validLevel("MUST / MUST NOT"));
        assertTrue(RequirementCatalogue.validLevel("SHOULD / MAY / MUST"));
        assertTrue(RequirementCatalogue.validLevel("\u2014"));
        assertFalse(RequirementCatalogue.validLevel("-"));
        assertFalse(RequirementCatalogue.validLevel("MUST / "));
        assertFalse(RequirementCatalogue.validLevel("should"));
    }

    private void assertMalformed(String rows, String expected) throws IOException {
        writeCatalogue(rows);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RequirementCatalogue.parse(workspace.resolve(RequirementCatalogue.DIRECTORY)));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    private void writeCatalogue(String rows) throws IOException {
        write("docs/requirements/README.md", "| not | a catalogue | file |\n");
        write("docs/requirements/test.md", "# Test\n\n| ID | RFC section | Level | Role | Requirement | Notes |\n"
                + "|---|---|---|---|---|---|\n" + rows + "\nA note below the table.\n");
    }

    private static String row(String id, String section, String level) {
        return "| " + id + " | " + section + " | " + level + " | both | Some rule in words. | |\n";
    }

    private void write(String relative, String content) throws IOException {
        Path file = workspace.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }
}
