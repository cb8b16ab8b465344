package org.iwarp4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The known-answer vectors of {@code shared/spec/test-vectors.md}, read from the document itself so
 * that tests never carry hand-copied hex: table rows {@code | V-ID | meaning | `hex` |} and blocks
 * that follow a {@code **V-ID**} heading in a fenced code block ({@code V-ID input:} headings are
 * stored as {@code V-ID-INPUT}).
 */
public final class TestVectors {

    private static final Pattern TABLE_ROW = Pattern.compile("^\\|\\s*(V-[A-Z0-9-]+)\\s*\\|.*`([0-9a-fA-F ]+)`\\s*\\|\\s*$");
    private static final Pattern BLOCK_HEADING = Pattern.compile("^(?:\\*\\*)?(V-[A-Z0-9-]+)(\\*\\*| input:)");
    private static volatile Map<String, byte[]> vectors;

    private TestVectors() {
    }

    /** The octets of vector {@code id} (e.g. {@code V-MPA-REQ1}); a fresh copy each call. */
    public static byte[] bytes(String id) {
        byte[] v = all().get(id);
        if (v == null) {
            throw new IllegalArgumentException("no vector " + id + " in test-vectors.md");
        }
        return v.clone();
    }

    private static Map<String, byte[]> all() {
        Map<String, byte[]> v = vectors;
        if (v == null) {
            v = parse(SharedFiles.spec("test-vectors.md"));
            vectors = v;
        }
        return v;
    }

    static Map<String, byte[]> parse(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, byte[]> out = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher row = TABLE_ROW.matcher(line);
            if (row.find()) {
                out.put(row.group(1), Hex.decode(row.group(2)));
                continue;
            }
            Matcher heading = BLOCK_HEADING.matcher(line);
            if (heading.find()) {
                int open = i + 1;
                while (open < lines.size() && !lines.get(open).startsWith("```")) {
                    open++;
                }
                StringBuilder hex = new StringBuilder();
                int j = open + 1;
                while (j < lines.size() && !lines.get(j).startsWith("```")) {
                    hex.append(lines.get(j)).append(' ');
                    j++;
                }
                String id = heading.group(2).equals(" input:") ? heading.group(1) + "-INPUT" : heading.group(1);
                out.put(id, Hex.decode(hex.toString()));
                i = j;
            }
        }
        return out;
    }
}
