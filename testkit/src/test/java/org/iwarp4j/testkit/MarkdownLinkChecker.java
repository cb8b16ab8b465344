package org.iwarp4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the relative links of a tree's Markdown files whose targets are missing.
 *
 * <p>The documentation is split over many pages that link to each other and into the source tree;
 * a moved or renamed file breaks those links silently, since nothing else reads them. Checked:
 * inline links and images {@code [text](path)}, {@code [text](path#anchor)}, {@code [text](#anchor)}
 * and reference definitions {@code [id]: path}; a link must name a file or directory inside the
 * root, and an anchor into a Markdown file must match one of its headings as GitHub names them.
 * Links with a scheme ({@code https:}, {@code mailto:}) are not checked, nor anything in code
 * (fenced blocks and {@code `spans`}), nor {@code target/} and {@code .git/}.
 */
final class MarkdownLinkChecker {

    /** One link whose target is missing: where it is and why it fails. */
    record BrokenLink(String file, int line, String link, String reason) {
        @Override
        public String toString() {
            return file + ":" + line + ": " + link + " (" + reason + ")";
        }
    }

    /** What a check looked at, and what it found broken. */
    record Report(List<String> files, int links, List<BrokenLink> broken) {
    }

    private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", ".git");
    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(`{3,}|~{3,})");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?:(?!\\1).)+?\\1");
    private static final Pattern INLINE_LINK =
            Pattern.compile("!?\\[([^\\[\\]]*)\\]\\(\\s*(<[^>]*>|[^)\\s]*)(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_DEFINITION =
            Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
    private static final Pattern ATX_HEADING = Pattern.compile("^\\s{0,3}#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*$");
    private static final Pattern SETEXT_UNDERLINE = Pattern.compile("^\\s{0,3}(=+|-+)\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*(?:name|id)=\"([^\"]+)\"");
    private static final Pattern LINK_IN_HEADING = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");

    private final Path root;
    private final Map<Path, Set<String>> anchors = new HashMap<>();

    private MarkdownLinkChecker(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** Checks every {@code *.md} under {@code root}. */
    static Report check(Path root) throws IOException {
        return new MarkdownLinkChecker(root).run();
    }

    private Report run() throws IOException {
        List<Path> markdown = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return !dir.equals(root) && SKIPPED_DIRECTORIES.contains(dir.getFileName().toString())
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile() && file.getFileName().toString().endsWith(".md")) {
                    markdown.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        markdown.sort(null);
        List<String> files = new ArrayList<>();
        List<BrokenLink> broken = new ArrayList<>();
        int links = 0;
        for (Path file : markdown) {
            files.add(relative(file));
            links += checkFile(file, broken);
        }
        return new Report(List.copyOf(files), links, List.copyOf(broken));
    }

    private int checkFile(Path file, List<BrokenLink> broken) throws IOException {
        int links = 0;
        boolean inFence = false;
        String fence = null;
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher fenceMatcher = FENCE.matcher(line);
            if (fenceMatcher.find()) {
                String marker = fenceMatcher.group(1);
                if (!inFence) {
                    inFence = true;
                    fence = marker;
                } else if (marker.charAt(0) == fence.charAt(0) && marker.length() >= fence.length()) {
                    inFence = false;
                }
                continue;
            }
            if (inFence) {
                continue;
            }
            String text = blankCodeSpans(line);
            List<String> targets = new ArrayList<>();
            List<String> shown = new ArrayList<>();
            Matcher inline = INLINE_LINK.matcher(text);
            while (inline.find()) {
                targets.add(inline.group(2));
                shown.add(line.substring(inline.start(), inline.end()));
            }
            Matcher reference = REFERENCE_DEFINITION.matcher(text);
            if (reference.find()) {
                targets.add(reference.group(1));
                shown.add(line.substring(reference.start(), reference.end()));
            }
            for (int k = 0; k < targets.size(); k++) {
                String target = targets.get(k);
                if (target.startsWith("<") && target.endsWith(">")) {
                    target = target.substring(1, target.length() - 1);
                }
                if (target.isEmpty() || SCHEME.matcher(target).find()) {
                    continue;
                }
                links++;
                String reason = problem(file, target);
                if (reason != null) {
                    broken.add(new BrokenLink(relative(file), i + 1, shown.get(k), reason));
                }
            }
        }
        return links;
    }

    /** The line with every code span's characters replaced, offsets kept, so nothing in code looks like a link. */
    private static String blankCodeSpans(String line) {
        StringBuilder text = new StringBuilder(line);
        Matcher span = CODE_SPAN.matcher(line);
        while (span.find()) {
            for (int i = span.start(); i < span.end(); i++) {
                text.setCharAt(i, 'x');
            }
        }
        return text.toString();
    }

    /** Why {@code target}, written in {@code file}, does not resolve; null when it does. */
    private String problem(Path file, String target) throws IOException {
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        Path resolved;
        if (path.isEmpty()) {
            resolved = file;
        } else {
            String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
            resolved = (decoded.startsWith("/") ? root.resolve(decoded.substring(1)) : file.getParent().resolve(decoded))
                    .normalize();
            if (!resolved.startsWith(root)) {
                return "leaves the checkout";
            }
            if (!Files.exists(resolved)) {
                return "no such file";
            }
        }
        if (anchor != null && !anchor.isEmpty() && Files.isRegularFile(resolved)
                && resolved.getFileName().toString().endsWith(".md")
                && !anchorsOf(resolved).contains(URLDecoder.decode(anchor.replace("+", "%2B"), StandardCharsets.UTF_8))) {
            return "no heading #" + anchor + " in " + relative(resolved);
        }
        return null;
    }

    /** The anchors GitHub gives a Markdown file's headings, plus explicit {@code <a name/id>} ones. */
    private Set<String> anchorsOf(Path file) {
        return anchors.computeIfAbsent(file, f -> {
            try {
                return headingAnchors(Files.readAllLines(f, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    static Set<String> headingAnchors(List<String> lines) {
        Set<String> result = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inFence = false;
        String fence = null;
        String previous = null;
        for (String line : lines) {
            Matcher fenceMatcher = FENCE.matcher(line);
            if (fenceMatcher.find()) {
                String marker = fenceMatcher.group(1);
                if (!inFence) {
                    inFence = true;
                    fence = marker;
                } else if (marker.charAt(0) == fence.charAt(0) && marker.length() >= fence.length()) {
                    inFence = false;
                }
                previous = null;
                continue;
            }
            if (inFence) {
                continue;
            }
            String heading = null;
            Matcher atx = ATX_HEADING.matcher(line);
            if (atx.matches()) {
                heading = atx.group(1);
            } else if (previous != null && SETEXT_UNDERLINE.matcher(line).matches()) {
                heading = previous.strip();
            }
            if (heading != null) {
                String slug = slug(heading);
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                result.add(n == 0 ? slug : slug + "-" + n);
                previous = null;
            } else {
                boolean paragraph = !line.isBlank() && !line.stripLeading().startsWith("|")
                        && !line.stripLeading().startsWith(">") && !line.stripLeading().startsWith("- ");
                previous = paragraph ? line : null;
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                result.add(html.group(1));
            }
        }
        return result;
    }

    /** GitHub's heading anchor: link text kept, lower case, punctuation dropped, spaces to hyphens. */
    static String slug(String heading) {
        String text = LINK_IN_HEADING.matcher(heading).replaceAll("$1");
        return text.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
                .replace(' ', '-');
    }

    private String relative(Path file) {
        return root.relativize(file.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }
}
