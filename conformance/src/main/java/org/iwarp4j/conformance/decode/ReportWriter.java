package org.iwarp4j.conformance.decode;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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

    /** The JSON form: capture, connections, units (with every layer's fields), violations, notes. */
    public static void json(DecodeReport report, PrintWriter out) {
        Map<String, Object> root = new java.util.LinkedHashMap<>();
        root.put("format", report.format());
        root.put("frames", report.frames());
        root.put("tcpConnections", report.tcpConnections());
        List<Object> connections = new ArrayList<>();
        for (ConnectionSummary c : report.connections()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("index", c.index());
            m.put("initiator", c.initiator());
            m.put("responder", c.responder());
            m.put("firstFrame", c.firstFrame());
            m.put("found", c.found());
            m.put("negotiated", c.negotiated());
            m.put("units", c.units());
            m.put("missingOctets", c.missingOctets());
            connections.add(m);
        }
        root.put("connections", connections);
        List<Object> units = new ArrayList<>();
        for (DecodedUnit u : report.units()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("frame", u.frame());
            m.put("connection", u.connection());
            m.put("direction", u.direction());
            m.put("summary", u.summary());
            m.put("layers", u.layers());
            units.add(m);
        }
        root.put("units", units);
        List<Object> violations = new ArrayList<>();
        for (Violation v : report.violations()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("id", v.requirementId());
            m.put("level", v.check().level().name());
            m.put("rfc", v.check().document());
            m.put("frame", v.frame());
            m.put("connection", v.connection());
            m.put("direction", v.direction());
            m.put("rule", v.check().rule());
            m.put("detail", v.detail());
            violations.add(m);
        }
        root.put("violations", violations);
        List<Object> notes = new ArrayList<>();
        for (Note n : report.notes()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("frame", n.frame());
            m.put("connection", n.connection());
            m.put("direction", n.direction());
            m.put("text", n.text());
            notes.add(m);
        }
        root.put("notes", notes);
        root.put("exitStatus", report.exitStatus());
        StringBuilder sb = new StringBuilder();
        write(sb, root, "");
        out.println(sb);
        out.flush();
    }

    private static void write(StringBuilder sb, Object value, String indent) {
        if (value == null) {
            sb.append("null");
        } else if (value instanceof Boolean || value instanceof Number) {
            sb.append(value);
        } else if (value instanceof Map<?, ?> map) {
            if (map.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append("{\n");
            String inner = indent + "  ";
            int i = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                sb.append(inner);
                string(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), inner);
                sb.append(++i < map.size() ? ",\n" : "\n");
            }
            sb.append(indent).append('}');
        } else if (value instanceof Collection<?> list) {
            if (list.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append("[\n");
            String inner = indent + "  ";
            int i = 0;
            for (Object o : list) {
                sb.append(inner);
                write(sb, o, inner);
                sb.append(++i < list.size() ? ",\n" : "\n");
            }
            sb.append(indent).append(']');
        } else {
            string(sb, value.toString());
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

}
