package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The code examples of the docs pages are the code the example tests run. A test marks its example
 * with {@code // --- docs/PAGE.md example begins ---} and {@code // --- docs/PAGE.md example ends ---};
 * the lines between, indentation removed, must appear as consecutive lines of one {@code ```java}
 * block of that page. Without this check a page and its test drift apart and the page's example stops
 * compiling while the test stays green.
 */
class DocumentationExamplesTest {

    private static final Pattern BEGINS = Pattern.compile("^\\s*//\\s*---\\s*(docs/\\S+\\.md) example begins\\s*---\\s*$");
    private static final Pattern ENDS = Pattern.compile("^\\s*//\\s*---\\s*(docs/\\S+\\.md) example ends\\s*---\\s*$");

    @TempDir
    Path tree;

    @Test
    void everyMarkedExampleIsVerbatimOnItsPage() throws IOException {
        Path checkout = TestData.root().getParent();

        List<String> checked = new ArrayList<>();
        List<String> problems = check(checkout, checked);

        // The five API examples: mpa, verbs, oncrpc, rpc-over-rdma, nfs.
        assertTrue(checked.size() >= 5, "only " + checked + " marked examples found");
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void anExampleThatDriftedFromItsPageIsReported() throws IOException {
        write("docs/api.md", "# API", "", "```java", "Rnic rnic = Rnic.builder().build();", "rnic.close();", "```");
        write("mod/src/test/java/ApiExampleTest.java",
                "class ApiExampleTest {",
                "    void run() {",
                "        // --- docs/api.md example begins ---",
                "        Rnic rnic = Rnic.builder().name(\"a\").build();",
                "        rnic.close();",
                "        // --- docs/api.md example ends ---",
                "    }",
                "}");

        List<String> problems = check(tree, new ArrayList<>());

        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("mod/src/test/java/ApiExampleTest.java:3: "), problems.get(0));
        assertTrue(problems.get(0).contains("docs/api.md"), problems.get(0));
    }

    @Test
    void anExampleIsFoundInsideALongerBlockWhateverItsIndentation() throws IOException {
        write("docs/api.md", "```java", "try (Rnic rnic = Rnic.builder().build()) {", "    rnic.close();", "}", "```");
        write("mod/src/test/java/ApiExampleTest.java",
                "            // --- docs/api.md example begins ---",
                "            try (Rnic rnic = Rnic.builder().build()) {",
                "                rnic.close();",
                "            // --- docs/api.md example ends ---");

        List<String> checked = new ArrayList<>();

        assertEquals(List.of(), check(tree, checked));
        assertEquals(List.of("mod/src/test/java/ApiExampleTest.java:1"), checked);
    }

    @Test
    void aMissingPageOrEndMarkerIsReported() throws IOException {
        write("a/src/test/java/NoPageTest.java", "// --- docs/none.md example begins ---", "x();",
                "// --- docs/none.md example ends ---");
        write("b/src/test/java/NoEndTest.java", "// --- docs/none.md example begins ---", "x();");

        List<String> problems = check(tree, new ArrayList<>());

        assertEquals(List.of(
                "a/src/test/java/NoPageTest.java:1: docs/none.md does not exist",
                "b/src/test/java/NoEndTest.java:1: no '// --- docs/none.md example ends ---' after it"), problems);
    }

    /** Checks every marked example in the test sources under {@code root}; adds "file:line" of each to {@code checked}. */
    static List<String> check(Path root, List<String> checked) throws IOException {
        List<Path> sources = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                return !dir.equals(root) && (name.equals("target") || name.equals(".git"))
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String name = root.relativize(file).toString().replace('\\', '/');
                if (name.endsWith(".java") && name.contains("/src/test/java/")) {
                    sources.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        sources.sort(null);
        List<String> problems = new ArrayList<>();
        for (Path source : sources) {
            String name = root.relativize(source).toString().replace('\\', '/');
            List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                Matcher begins = BEGINS.matcher(lines.get(i));
                if (!begins.find()) {
                    continue;
                }
                String page = begins.group(1);
                String where = name + ":" + (i + 1);
                int end = i + 1;
                while (end < lines.size() && !endsFor(lines.get(end), page)) {
                    end++;
                }
                if (end == lines.size()) {
                    problems.add(where + ": no '// --- " + page + " example ends ---' after it");
                    continue;
                }
                Path pageFile = root.resolve(page);
                if (!Files.isRegularFile(pageFile)) {
                    problems.add(where + ": " + page + " does not exist");
                    continue;
                }
                checked.add(where);
                List<String> example = dedent(lines.subList(i + 1, end));
                if (javaBlocks(Files.readAllLines(pageFile, StandardCharsets.UTF_8)).stream()
                        .noneMatch(block -> containsRun(block, example))) {
                    problems.add(where + ": the example is not, line for line, in a ```java block of " + page
                            + "; it reads:\n" + example.stream().collect(Collectors.joining("\n", "", "\n")));
                }
                i = end;
            }
        }
        return problems;
    }

    private static boolean endsFor(String line, String page) {
        Matcher ends = ENDS.matcher(line);
        return ends.find() && ends.group(1).equals(page);
    }

    private static List<List<String>> javaBlocks(List<String> page) {
        List<List<String>> blocks = new ArrayList<>();
        List<String> current = null;
        for (String line : page) {
            String trimmed = line.strip();
            if (current == null && trimmed.startsWith("```java")) {
                current = new ArrayList<>();
            } else if (current != null && trimmed.startsWith("```")) {
                blocks.add(dedent(current));
                current = null;
            } else if (current != null) {
                current.add(line);
            }
        }
        return blocks;
    }

    private static List<String> dedent(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing()).toList();
    }

    private static boolean containsRun(List<String> block, List<String> run) {
        for (int start = 0; start + run.size() <= block.size(); start++) {
            if (block.subList(start, start + run.size()).equals(run)) {
                return true;
            }
        }
        return false;
    }

    private void write(String name, String... lines) throws IOException {
        Path file = tree.resolve(name);
        Files.createDirectories(file.getParent());
        Files.write(file, List.of(lines), StandardCharsets.UTF_8);
    }
}
