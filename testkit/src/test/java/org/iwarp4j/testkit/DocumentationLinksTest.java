package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link in the checkout's Markdown (README.md, docs/, testdata/, module READMEs)
 * names a file that is there, and every anchor into a Markdown page a heading it has.
 */
class DocumentationLinksTest {

    @TempDir
    Path tree;

    @Test
    void everyRelativeLinkInTheCheckoutResolves() throws IOException {
        Path checkout = TestData.root().getParent();

        MarkdownLinkChecker.Report report = MarkdownLinkChecker.check(checkout);

        assertTrue(report.files().contains("README.md"), report.files().toString());
        assertTrue(report.files().contains("docs/README.md"), report.files().toString());
        assertTrue(report.links() > 50, "only " + report.links() + " links found: is the parser blind?");
        assertTrue(report.broken().isEmpty(), report.broken().size() + " broken links:\n"
                + report.broken().stream().map(Object::toString).collect(Collectors.joining("\n")));
    }

    @Test
    void aLinkToAMissingFileIsReportedWithItsFileAndLine() throws IOException {
        write("README.md", "# Top", "", "See [the guide](docs/guide.md) and [the API](docs/api.md#verbs).");
        write("docs/guide.md", "# Guide");

        MarkdownLinkChecker.Report report = MarkdownLinkChecker.check(tree);

        assertEquals(List.of("README.md:3: [the API](docs/api.md#verbs) (no such file)"), strings(report));
        assertEquals(2, report.links());
    }

    @Test
    void linksAreResolvedAgainstTheirOwnFilesFolder() throws IOException {
        write("docs/a.md", "[up](../README.md) [sibling](b.md) [wrong](README.md) [dir](../src/)");
        write("docs/b.md", "x");
        write("README.md", "x");
        Files.createDirectories(tree.resolve("src"));

        assertEquals(List.of("docs/a.md:1: [wrong](README.md) (no such file)"), strings(MarkdownLinkChecker.check(tree)));
    }

    @Test
    void aLinkOutOfTheCheckoutIsBrokenEvenWhenTheFileExistsThere() throws IOException {
        Path checkout = Files.createDirectories(tree.resolve("checkout"));
        Files.writeString(tree.resolve("outside.md"), "# Outside", StandardCharsets.UTF_8);
        Files.writeString(checkout.resolve("README.md"), "[notes](../outside.md)", StandardCharsets.UTF_8);

        assertEquals(List.of("README.md:1: [notes](../outside.md) (leaves the checkout)"),
                strings(MarkdownLinkChecker.check(checkout)));
    }

    @Test
    void anchorsMustNameAHeadingOfTheTargetPage() throws IOException {
        write("README.md",
                "[ok](docs/mpa.md#using-mpa-rfc-5044) [ok too](docs/mpa.md#meters-1) [own](#top-level)",
                "[bad](docs/mpa.md#no-such-part) [bad own](#nowhere)",
                "",
                "Top level",
                "=========");
        write("docs/mpa.md", "# Using MPA (RFC 5044)", "## Meters", "```", "# not a heading", "```", "## Meters");

        assertEquals(List.of(
                "README.md:2: [bad](docs/mpa.md#no-such-part) (no heading #no-such-part in docs/mpa.md)",
                "README.md:2: [bad own](#nowhere) (no heading #nowhere in README.md)"),
                strings(MarkdownLinkChecker.check(tree)));
    }

    @Test
    void codeWebLinksAndBuildOutputAreNotChecked() throws IOException {
        write("README.md",
                "`[in a span](missing.md)` [web](https://example.org/x.md) [mail](mailto:a@example.org)",
                "```md",
                "[in a block](missing.md)",
                "```",
                "[ref]: missing-too.md");
        write("target/generated.md", "[stale](gone.md)");
        write(".git/notes.md", "[stale](gone.md)");

        MarkdownLinkChecker.Report report = MarkdownLinkChecker.check(tree);

        assertEquals(List.of("README.md"), report.files());
        assertEquals(List.of("README.md:5: [ref]: missing-too.md (no such file)"), strings(report));
    }

    @Test
    void headingAnchorsFollowGitHub() {
        assertEquals("the-two-commands", MarkdownLinkChecker.slug("The two commands"));
        assertEquals("rpc-over-rdma-rfc-8166", MarkdownLinkChecker.slug("RPC-over-RDMA (RFC 8166)"));
        assertEquals("use-it-from-your-project", MarkdownLinkChecker.slug("Use it from your project"));
        assertEquals("iwarp-pcap-recording-for-wireshark",
                MarkdownLinkChecker.slug("`iwarp pcap`: recording for Wireshark"));
        assertEquals("against-plain-tcp-the-issue-5-targets",
                MarkdownLinkChecker.slug("Against plain TCP: the [issue 5](x.md) targets"));
    }

    private void write(String name, String... lines) throws IOException {
        Path file = tree.resolve(name);
        Files.createDirectories(file.getParent());
        Files.write(file, List.of(lines), StandardCharsets.UTF_8);
    }

    private static List<String> strings(MarkdownLinkChecker.Report report) {
        return report.broken().stream().map(Object::toString).toList();
    }
}
