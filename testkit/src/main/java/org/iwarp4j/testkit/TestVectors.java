package org.iwarp4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The known-answer vectors of the repository's {@code testdata/vectors/*.txt} files (their format
 * is described in {@code testdata/vectors/README.md}), so that tests never carry hand-copied hex.
 *
 * <p>A vector file is a list of records separated by blank lines; {@code #} lines are comments.
 * Each record has exactly the fields {@code id}, {@code source}, {@code origin}, {@code meaning}
 * and {@code hex}, in that order, one {@code name: value} line each; only {@code hex} may go on
 * over indented continuation lines. The parser rejects anything else (an unknown, missing,
 * repeated or reordered field, an origin that is neither {@code published} nor
 * {@code derived from ...}, a hex group with an odd number of digits or upper-case digits, an ID
 * defined twice) with the file and line, because a vector that is silently misread would make a
 * known-answer test compare against the wrong answer.
 */
public final class TestVectors {

    private static final List<String> FIELDS = List.of("id", "source", "origin", "meaning", "hex");
    private static final Pattern FIELD_LINE = Pattern.compile("^([a-z]+):\\s+(\\S.*?)\\s*$");
    private static final Pattern CONTINUATION = Pattern.compile("^\\s+(\\S.*?)\\s*$");
    private static final Pattern ID = Pattern.compile("^V-[A-Z0-9]+(-[A-Z0-9]+)*$");
    private static final Pattern HEX_GROUP = Pattern.compile("^([0-9a-f]{2})+$");
    private static final Pattern ORIGIN = Pattern.compile("^(published|derived from \\S.*)$");
    private static volatile Map<String, Vector> vectors;

    private TestVectors() {
    }

    /** One vector: its ID, where it comes from, what it means, and its octets. */
    record Vector(String id, String source, String origin, String meaning, byte[] bytes) {

        /** Whether the octets are printed in the cited RFC (rather than derived from it). */
        boolean published() {
            return origin.equals("published");
        }

        @Override
        public byte[] bytes() { // a copy: the record is shared by every caller
            return bytes.clone();
        }
    }

    /** The octets of vector {@code id} (e.g. {@code V-MPA-REQ1}); a fresh copy each call. */
    public static byte[] bytes(String id) {
        return vector(id).bytes();
    }

    static Vector vector(String id) {
        Vector v = all().get(id);
        if (v == null) {
            throw new IllegalArgumentException("no vector " + id + " in testdata/vectors/*.txt");
        }
        return v;
    }

    static Map<String, Vector> all() {
        Map<String, Vector> v = vectors;
        if (v == null) {
            v = parseDirectory(TestData.root().resolve("vectors"));
            vectors = v;
        }
        return v;
    }

    static Map<String, Vector> parseDirectory(Path directory) {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> txt = Files.newDirectoryStream(directory, "*.txt")) {
            txt.forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (files.isEmpty()) {
            throw new IllegalStateException("no *.txt vector files in " + directory);
        }
        Collections.sort(files);
        Map<String, Vector> out = new TreeMap<>();
        for (Path file : files) {
            for (Vector v : parse(file)) {
                if (out.putIfAbsent(v.id(), v) != null) {
                    throw new IllegalArgumentException("vector " + v.id() + " is defined twice (again in " + file + ")");
                }
            }
        }
        return Collections.unmodifiableMap(out);
    }

    static List<Vector> parse(Path file) {
        try {
            return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Vector> parse(String name, List<String> lines) {
        List<Vector> out = new ArrayList<>();
        Map<String, String> record = new LinkedHashMap<>();
        int recordLine = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int number = i + 1;
            if (line.isBlank()) {
                if (!record.isEmpty()) {
                    out.add(toVector(name, recordLine, record, out));
                    record.clear();
                }
                continue;
            }
            if (line.startsWith("#")) {
                if (!record.isEmpty()) {
                    throw malformed(name, number, "comment inside a record (end the record with a blank line first)");
                }
                continue;
            }
            Matcher continuation = CONTINUATION.matcher(line);
            if (continuation.matches()) {
                if (!record.containsKey("hex")) {
                    throw malformed(name, number, "indented line outside a hex field");
                }
                record.put("hex", record.get("hex") + " " + continuation.group(1));
                continue;
            }
            Matcher field = FIELD_LINE.matcher(line);
            if (!field.matches()) {
                throw malformed(name, number, "expected 'field: value', got: " + line);
            }
            String key = field.group(1);
            int expected = record.size();
            if (expected >= FIELDS.size() || !FIELDS.get(expected).equals(key)) {
                throw malformed(name, number, "field '" + key + "' where '"
                        + (expected < FIELDS.size() ? FIELDS.get(expected) : "a blank line")
                        + "' belongs (fields are " + String.join(", ", FIELDS) + ", in that order)");
            }
            if (record.isEmpty()) {
                recordLine = number;
            }
            record.put(key, field.group(2));
        }
        if (!record.isEmpty()) {
            out.add(toVector(name, recordLine, record, out));
        }
        return out;
    }

    private static Vector toVector(String name, int line, Map<String, String> record, List<Vector> earlier) {
        if (record.size() != FIELDS.size()) {
            throw malformed(name, line, "record lacks '" + FIELDS.get(record.size()) + "'");
        }
        String id = record.get("id");
        if (!ID.matcher(id).matches()) {
            throw malformed(name, line, "not a vector ID (V-UPPER-CASE-1): " + id);
        }
        for (Vector v : earlier) {
            if (v.id().equals(id)) {
                throw malformed(name, line, "vector " + id + " is defined twice");
            }
        }
        String origin = record.get("origin");
        if (!ORIGIN.matcher(origin).matches()) {
            throw malformed(name, line, id + ": origin must be 'published' or 'derived from ...', not: " + origin);
        }
        StringBuilder hex = new StringBuilder();
        for (String group : record.get("hex").split("\\s+")) {
            if (!HEX_GROUP.matcher(group).matches()) {
                throw malformed(name, line, id + ": hex group '" + group
                        + "' is not an even number of lower-case hex digits");
            }
            hex.append(group);
        }
        return new Vector(id, record.get("source"), origin, record.get("meaning"), Hex.decode(hex.toString()));
    }

    private static IllegalArgumentException malformed(String name, int line, String what) {
        return new IllegalArgumentException(name + ":" + line + ": " + what);
    }
}
