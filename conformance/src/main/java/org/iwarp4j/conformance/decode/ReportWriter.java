package org.iwarp4j.conformance.decode;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Prints a {@link DecodeReport}: one line per unit (tcpdump-like), the full tree ({@code -V}), or
 * JSON; and the rule list ({@code --rules}).
 */
public final class ReportWriter {

    private ReportWriter() {
    }

    /**
     * The text form: a line per connection, a line per unit ({@code frame conn dir summary}), each
     * violation ({@code !! ID}) and note ({@code --}) under the frame it belongs to, and a summary.
     *
     * @param verbose add every decoded field, one layer per line, under each unit
     */
    public static void text(DecodeReport report, PrintWriter out, boolean verbose) {
        out.printf("%s, %d frames, %d TCP connections, %d iWARP%n", report.format(), report.frames(),
                report.tcpConnections(), report.connections().size());
        for (ConnectionSummary c : report.connections()) {
            out.printf("conn %d: %s > %s (found by %s, frame %d): %s%s%n", c.index(), c.initiator(), c.responder(),
                    c.found(), c.firstFrame(), c.negotiated(),
                    c.missingOctets() > 0 ? "; " + c.missingOctets() + " octets missing from the capture" : "");
        }
        Iterator<Violation> violations = report.violations().iterator();
        Iterator<Note> notes = report.notes().iterator();
        Violation v = violations.hasNext() ? violations.next() : null;
        Note n = notes.hasNext() ? notes.next() : null;
        for (DecodedUnit u : report.units()) {
            while (n != null && n.frame() <= u.frame()) {
                out.println("   -- " + n);
                n = notes.hasNext() ? notes.next() : null;
            }
            out.printf("%6d %3d %s %s%n", u.frame(), u.connection(), u.direction(), u.summary());
            if (verbose) {
                for (Map.Entry<String, Map<String, Object>> layer : u.layers().entrySet()) {
                    StringBuilder line = new StringBuilder("              ").append(layer.getKey()).append(':');
                    layer.getValue().forEach((k, val) -> line.append(' ').append(k).append('=').append(val));
                    out.println(line);
                }
            }
            while (v != null && v.frame() <= u.frame()) {
                out.println("   !! " + v);
                v = violations.hasNext() ? violations.next() : null;
            }
        }
        while (n != null) {
            out.println("   -- " + n);
            n = notes.hasNext() ? notes.next() : null;
        }
        while (v != null) {
            out.println("   !! " + v);
            v = violations.hasNext() ? violations.next() : null;
        }
        long must = report.violations().stream().filter(x -> x.check().level() == Check.Level.MUST).count();
        long should = report.violations().size() - must;
        out.printf("%d violations%s%s%n", must, should > 0 ? ", " + should + " warnings (SHOULD)" : "",
                report.violations().isEmpty() ? "" : ": " + String.join(" ", report.violatedIds()));
        out.flush();
    }

    /** The rules checked, grouped by RFC, with their requirement IDs. */
    public static void rules(PrintWriter out) {
        Map<String, List<Check>> byDocument = new TreeMap<>();
        for (Check c : Check.values()) {
            byDocument.computeIfAbsent(c.document(), k -> new ArrayList<>()).add(c);
        }
        byDocument.forEach((doc, checks) -> {
            out.printf("%s (%d rules)%n", doc, checks.size());
            for (Check c : checks) {
                out.printf("  %-12s %-6s %s%n", c.requirementId(), c.level(), c.rule());
            }
        });
        out.flush();
    }

    /** Number of rules per document ({@code RFC 5044}, ...). */
    public static Map<String, Integer> ruleCounts() {
        Map<String, Integer> counts = new TreeMap<>();
        for (Check c : Check.values()) {
            counts.merge(c.document(), 1, Integer::sum);
        }
        return counts;
    }

    /**
     * The JSON form: capture, connections, units (with every layer's fields), violations, notes.
     * Written as it goes: a capture of millions of units would need the whole text, and a map per
     * unit, in memory at once.
     */
    public static void json(DecodeReport report, PrintWriter out) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format", report.format());
        root.put("frames", report.frames());
        root.put("tcpConnections", report.tcpConnections());
        root.put("connections", each(report.connections(), c -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", c.index());
            m.put("initiator", c.initiator());
            m.put("responder", c.responder());
            m.put("firstFrame", c.firstFrame());
            m.put("found", c.found());
            m.put("negotiated", c.negotiated());
            m.put("units", c.units());
            m.put("missingOctets", c.missingOctets());
            return m;
        }));
        root.put("units", each(report.units(), u -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("frame", u.frame());
            m.put("connection", u.connection());
            m.put("direction", u.direction());
            m.put("summary", u.summary());
            m.put("layers", u.layers());
            return m;
        }));
        root.put("violations", each(report.violations(), v -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", v.requirementId());
            m.put("level", v.check().level().name());
            m.put("rfc", v.check().document());
            m.put("frame", v.frame());
            m.put("connection", v.connection());
            m.put("direction", v.direction());
            m.put("rule", v.check().rule());
            m.put("detail", v.detail());
            return m;
        }));
        root.put("notes", each(report.notes(), n -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("frame", n.frame());
            m.put("connection", n.connection());
            m.put("direction", n.direction());
            m.put("text", n.text());
            return m;
        }));
        root.put("exitStatus", report.exitStatus());
        write(out, root, "");
        out.println();
        out.flush();
    }

    /** A JSON array made one element at a time while it is written. */
    private interface Each extends Iterable<Object> {
    }

    /** {@code items} as {@code form} makes each, one at a time while it is written. */
    private static <E> Each each(List<E> items, Function<E, Object> form) {
        return () -> items.stream().map(form).iterator();
    }

    private static void write(PrintWriter out, Object value, String indent) {
        if (value == null) {
            out.print("null");
        } else if (value instanceof Boolean || value instanceof Number) {
            out.print(value);
        } else if (value instanceof Map<?, ?> map) {
            if (map.isEmpty()) {
                out.print("{}");
                return;
            }
            out.print("{\n");
            String inner = indent + "  ";
            int i = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.print(inner);
                string(out, String.valueOf(e.getKey()));
                out.print(": ");
                write(out, e.getValue(), inner);
                out.print(++i < map.size() ? ",\n" : "\n");
            }
            out.print(indent);
            out.print('}');
        } else if (value instanceof Collection<?> || value instanceof Each) {
            Iterator<?> items = ((Iterable<?>) value).iterator();
            if (!items.hasNext()) {
                out.print("[]");
                return;
            }
            out.print("[\n");
            String inner = indent + "  ";
            while (items.hasNext()) {
                out.print(inner);
                write(out, items.next(), inner);
                out.print(items.hasNext() ? ",\n" : "\n");
            }
            out.print(indent);
            out.print(']');
        } else {
            string(out, value.toString());
        }
    }

    private static void string(PrintWriter out, String s) {
        out.print('"');
        int plain = 0; // the characters from here to i need no escape: they go out in one write
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String escape = switch (c) {
                case '"' -> "\\\"";
                case '\\' -> "\\\\";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                default -> c < 0x20 ? String.format("\\u%04x", (int) c) : null;
            };
            if (escape != null) {
                out.write(s, plain, i - plain);
                out.print(escape);
                plain = i + 1;
            }
        }
        out.write(s, plain, s.length() - plain);
        out.print('"');
    }

}
