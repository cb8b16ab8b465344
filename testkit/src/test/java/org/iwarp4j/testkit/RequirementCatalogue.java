package org.iwarp4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The repository's requirement catalogue ({@code docs/requirements/*.md}) and the citations of its
 * IDs in the rest of the checkout.
 *
 * <p>The parser is deliberately strict: in a catalogue file every line that starts with {@code |}
 * must be the exact table header, a separator line, or a complete requirement row. A row whose ID
 * is misspelt, whose cell count is wrong (a stray {@code |} in the text), or whose section or level
 * is missing fails the parse instead of silently dropping out of the catalogue, because a dropped
 * row would turn every citation of it into a false "unknown ID" or, worse, hide a gap.
 */
final class RequirementCatalogue {

    /** A requirement ID as cited anywhere: prefix, {@code -R-}, three digits. */
    static final Pattern ID = Pattern.compile("\\b[A-Z][A-Z0-9]*-R-[0-9]{3}\\b");

    static final List<String> HEADER = List.of("ID", "RFC section", "Level", "Role", "Requirement", "Notes");

    /** RFC 2119 keywords a Level cell may combine with " / "; a definitional fact is a lone dash. */
    static final Set<String> LEVEL_WORDS = Set.of("MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT",
            "SHOULD", "SHOULD NOT", "RECOMMENDED", "NOT RECOMMENDED", "MAY", "OPTIONAL", "NOT REQUIRED");
    static final String DEFINITIONAL = "\u2014";

    /** Where the catalogue lives, relative to the checkout root. */
    static final Path DIRECTORY = Path.of("docs", "requirements");

    /**
     * An ID followed by a shortened one (an ID then {@code /nnn}, {@code /-nnn}, {@code , -nnn},
     * {@code (a note), -nnn}, {@code and -nnn} or {@code to -nnn}): the short one is invisible to
     * {@code git grep} and to this scan, so every ID must be written out in full.
     */
    static final Pattern ABBREVIATED = Pattern.compile(
            "\\b[A-Z][A-Z0-9]*-R-[0-9]{3}\\b(?:/-?[0-9]{3}\\b|.*?(?:,|\\band\\b|\\bor\\b|\\bto\\b)\\s*-[0-9]{3}\\b)");

    /** A line that starts (after a comment leader) with a shortened ID, continuing an ID on the line before. */
    private static final Pattern ABBREVIATED_CONTINUATION = Pattern.compile(
            "^\\s*(?:\\*|//|#)?\\s*-[0-9]{3}(?:[,;.)]|\\s*$)");

    private static final Pattern WHOLE_ID = Pattern.compile("[A-Z][A-Z0-9]*-R-[0-9]{3}");
    private static final Pattern SEPARATOR_CELL = Pattern.compile(":?-{3,}:?");
    private static final Set<String> SCANNED_EXTENSIONS = Set.of(".java", ".md", ".sh", ".xml");

    /** One catalogue row. */
    record Row(String id, String section, String level, String role, String text, String notes, Path file,
               int line) {
        String prefix() {
            return id.substring(0, id.indexOf("-R-"));
        }
    }

    /** Where a citation abbreviates an ID ({@link #ABBREVIATED}). */
    record Abbreviation(Path file, int line, String text) {
        @Override
        public String toString() {
            return file + ":" + line + " " + text;
        }
    }

    /** One occurrence of an ID outside the catalogue. */
    record Citation(String id, Path file, int line) {
        @Override
        public String toString() {
            return file + ":" + line + " " + id;
        }
    }

    private final Map<String, Row> rows;

    private RequirementCatalogue(Map<String, Row> rows) {
        this.rows = rows;
    }

    /** Rows by ID, in file order. */
    Map<String, Row> rows() {
        return Collections.unmodifiableMap(rows);
    }

    boolean defines(String id) {
        return rows.containsKey(id);
    }

    /**
     * Parses every {@code *.md} in {@code catalogueDir} except {@code README.md}.
     *
     * @throws IllegalStateException listing every malformed row, duplicate ID and prefix clash found
     */
    static RequirementCatalogue parse(Path catalogueDir) {
        List<Path> files;
        try (Stream<Path> listing = Files.list(catalogueDir)) {
            files = listing.filter(p -> p.getFileName().toString().endsWith(".md"))
                    .filter(p -> !p.getFileName().toString().equals("README.md"))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> problems = new ArrayList<>();
        if (files.isEmpty()) {
            problems.add(catalogueDir + ": no catalogue files");
        }
        Map<String, Row> rows = new LinkedHashMap<>();
        Map<String, Path> fileOfPrefix = new TreeMap<>();
        for (Path file : files) {
            List<Row> fileRows = parseFile(file, problems);
            if (fileRows.isEmpty()) {
                problems.add(file + ": no requirement rows");
            }
            for (Row row : fileRows) {
                Row earlier = rows.putIfAbsent(row.id(), row);
                if (earlier != null) {
                    problems.add(row.file() + ":" + row.line() + " " + row.id() + " duplicates "
                            + earlier.file() + ":" + earlier.line());
                }
                Path owner = fileOfPrefix.putIfAbsent(row.prefix(), file);
                if (owner != null && !owner.equals(file)) {
                    problems.add(row.file() + ":" + row.line() + " " + row.id() + ": prefix " + row.prefix()
                            + " belongs to " + owner.getFileName());
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("malformed requirement catalogue:\n  " + String.join("\n  ", problems));
        }
        return new RequirementCatalogue(rows);
    }

    private static List<Row> parseFile(Path file, List<String> problems) {
        List<String> lines = readLines(file, StandardCharsets.UTF_8);
        List<Row> result = new ArrayList<>();
        boolean inTable = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            int number = i + 1;
            if (!line.startsWith("|")) {
                inTable = false;
                continue;
            }
            String where = file + ":" + number;
            if (line.length() < 2 || !line.endsWith("|")) {
                problems.add(where + ": table line does not end with '|'");
                continue;
            }
            List<String> cells = Arrays.stream(line.substring(1, line.length() - 1).split("\\|", -1))
                    .map(String::strip)
                    .collect(Collectors.toList());
            if (cells.get(0).equals(HEADER.get(0))) {
                if (!cells.equals(HEADER)) {
                    problems.add(where + ": header must be " + String.join(" | ", HEADER));
                }
                inTable = true;
                continue;
            }
            if (cells.stream().allMatch(c -> SEPARATOR_CELL.matcher(c).matches())) {
                if (cells.size() != HEADER.size()) {
                    problems.add(where + ": separator has " + cells.size() + " cells, expected " + HEADER.size());
                }
                continue;
            }
            if (!inTable) {
                problems.add(where + ": table row outside a requirement table (only requirement tables are allowed)");
                continue;
            }
            if (cells.size() != HEADER.size()) {
                problems.add(where + ": " + cells.size() + " cells, expected " + HEADER.size()
                        + " (a '|' inside a cell?)");
                continue;
            }
            String id = cells.get(0);
            if (!WHOLE_ID.matcher(id).matches()) {
                problems.add(where + ": '" + id + "' is not an ID (PREFIX-R-nnn, three digits)");
                continue;
            }
            boolean complete = true;
            for (int c = 1; c <= 4; c++) {
                if (cells.get(c).isEmpty()) {
                    problems.add(where + " " + id + ": empty " + HEADER.get(c));
                    complete = false;
                }
            }
            if (!cells.get(2).isEmpty() && !validLevel(cells.get(2))) {
                problems.add(where + " " + id + ": level '" + cells.get(2) + "' is not '" + DEFINITIONAL
                        + "' or RFC 2119 keywords joined by ' / '");
                complete = false;
            }
            if (complete) {
                result.add(new Row(id, cells.get(1), cells.get(2), cells.get(3), cells.get(4), cells.get(5), file,
                        number));
            }
        }
        return result;
    }

    static boolean validLevel(String level) {
        if (level.equals(DEFINITIONAL)) {
            return true;
        }
        return Arrays.stream(level.split(" / ", -1)).allMatch(LEVEL_WORDS::contains);
    }

    /**
     * Every ID occurrence in {@code *.java}, {@code *.md}, {@code *.sh} and {@code *.xml} files
     * under {@code root}, skipping the catalogue itself, build output ({@code target/}) and hidden
     * directories ({@code .git/}, caches).
     */
    static List<Citation> citations(Path root) {
        List<Citation> found = new ArrayList<>();
        scan(root, (file, lines) -> {
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = ID.matcher(lines.get(i));
                while (m.find()) {
                    found.add(new Citation(m.group(), file, i + 1));
                }
            }
        });
        return found;
    }

    /**
     * Every abbreviated citation ({@link #ABBREVIATED}, or a line continuing an ID of the line
     * before with a shortened one) in the files {@link #citations} scans; the catalogue's own
     * folder, whose README may talk about short forms, is not scanned.
     */
    static List<Abbreviation> abbreviations(Path root) {
        List<Abbreviation> found = new ArrayList<>();
        scan(root, (file, lines) -> {
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                boolean continuation = i > 0 && ID.matcher(lines.get(i - 1)).find()
                        && ABBREVIATED_CONTINUATION.matcher(line).find();
                if (continuation || ABBREVIATED.matcher(line).find()) {
                    found.add(new Abbreviation(file, i + 1, line.strip()));
                }
            }
        });
        return found;
    }

    private interface LinesVisitor {
        void visit(Path relativeFile, List<String> lines);
    }

    private static void scan(Path root, LinesVisitor visitor) {
        Path catalogue = root.resolve(DIRECTORY).normalize();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                    boolean skip = !dir.equals(root)
                            && (name.equals("target") || name.startsWith(".") || dir.normalize().equals(catalogue));
                    return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    String name = file.getFileName().toString();
                    int dot = name.lastIndexOf('.');
                    if (attrs.isRegularFile() && dot >= 0 && SCANNED_EXTENSIONS.contains(name.substring(dot))) {
                        // IDs are ASCII; ISO-8859-1 never fails on a file that is not UTF-8.
                        visitor.visit(root.relativize(file), readLines(file, StandardCharsets.ISO_8859_1));
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The citations whose ID this catalogue lacks. */
    List<Citation> unknown(List<Citation> citations) {
        return citations.stream().filter(c -> !defines(c.id())).collect(Collectors.toList());
    }

    /** The catalogue's IDs that none of these citations names, in file order. */
    List<String> uncited(List<Citation> citations) {
        Set<String> cited = citations.stream().map(Citation::id).collect(Collectors.toSet());
        return rows.keySet().stream().filter(id -> !cited.contains(id)).collect(Collectors.toList());
    }

    /**
     * Per catalogue file: how many IDs it defines, how many of them are cited, and the uncited ones.
     */
    String report(List<Citation> citations) {
        Set<String> uncited = Set.copyOf(uncited(citations));
        Map<Path, List<Row>> byFile = rows.values().stream()
                .collect(Collectors.groupingBy(Row::file, TreeMap::new, Collectors.toList()));
        StringBuilder out = new StringBuilder("Requirement catalogue: file, IDs, cited, uncited\n");
        int total = 0;
        int totalCited = 0;
        for (Map.Entry<Path, List<Row>> entry : byFile.entrySet()) {
            List<String> fileUncited = entry.getValue().stream().map(Row::id).filter(uncited::contains)
                    .collect(Collectors.toList());
            int ids = entry.getValue().size();
            total += ids;
            totalCited += ids - fileUncited.size();
            out.append(String.format("  %-40s %4d %4d %4d%s%n", entry.getKey().getFileName(), ids,
                    ids - fileUncited.size(), fileUncited.size(),
                    fileUncited.isEmpty() ? "" : "  " + String.join(" ", fileUncited)));
        }
        out.append(String.format("  %-40s %4d %4d %4d%n", "total", total, totalCited, total - totalCited));
        return out.toString();
    }

    private static List<String> readLines(Path file, Charset charset) {
        try {
            return new String(Files.readAllBytes(file), charset).lines()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
