package org.iwarp4j.conformance.probe;

import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * What {@link Probe#run()} found, immutable: the observations in probe order, how many
 * connections it took and how long. {@link #toTable()} is for people, {@link #toJson()} for
 * programs; the JSON field names are stable and listed in {@code docs/probe.md}.
 *
 * @param target {@code host:port} as probed
 * @param started when the first connection was opened
 * @param totalMillis wall-clock time of the whole run
 * @param connections TCP connections tried
 * @param connected of those, the ones whose TCP connect succeeded
 * @param replies MPA Replies received, over all connections
 * @param timeoutMillis the per-connection limit used
 * @param startupWaitMillis how long the startup-timeout probe was prepared to wait
 * @param observations in the order of {@code docs/probe.md}
 */
public record ProbeReport(String target, Instant started, long totalMillis, int connections, int connected,
                          int replies, long timeoutMillis, long startupWaitMillis, List<Observation> observations) {

    /** Version of the JSON layout; raised only when a field changes meaning or goes away. */
    public static final int JSON_SCHEMA = 1;

    public ProbeReport {
        observations = List.copyOf(observations);
    }

    /** The observation of {@code probe}, e.g. {@code "markers"}. */
    public Observation observation(String probe) {
        return observations.stream().filter(o -> o.probe().equals(probe)).findFirst()
                .orElseThrow(() -> new NoSuchElementException("no observation " + probe + " in " + observations));
    }

    /** Observations per verdict (every verdict present, possibly 0). */
    public Map<Verdict, Integer> summary() {
        Map<Verdict, Integer> counts = new EnumMap<>(Verdict.class);
        for (Verdict v : Verdict.values()) {
            counts.put(v, 0);
        }
        for (Observation o : observations) {
            counts.merge(o.verdict(), 1, Integer::sum);
        }
        return counts;
    }

    /** {@code true} if no observation failed (warnings, infos and inconclusive ones allowed). */
    public boolean conformant() {
        return summary().get(Verdict.FAIL) == 0;
    }

    /**
     * The exit status of {@code iwarp probe}, the first that applies: 1 when an observation failed
     * (whatever else went wrong), 3 when no TCP connection could be made at all, 4 when
     * connections were made but not one MPA Reply came back (a silent listener: nothing was
     * judged; one that talks but is not MPA sends malformed Replies, which fail), 0 otherwise.
     */
    public int exitStatus() {
        if (!conformant()) {
            return 1;
        }
        if (connected == 0) {
            return 3;
        }
        return replies == 0 ? 4 : 0;
    }

    /** A fixed-width table: one line per observation, then the summary. */
    public String toTable() {
        StringBuilder out = new StringBuilder();
        out.append("iwarp probe ").append(target).append(": ").append(connections).append(" connections, ")
                .append(String.format(java.util.Locale.ROOT, "%.1f s", totalMillis / 1000.0)).append('\n');
        int width = "PROBE".length();
        for (Observation o : observations) {
            width = Math.max(width, o.probe().length());
        }
        String format = "%-" + width + "s  %-12s  %-12s  %s%n";
        out.append(String.format(format, "PROBE", "RESULT", "REQUIREMENT", "OBSERVED"));
        for (Observation o : observations) {
            out.append(String.format(format, o.probe(), o.verdict().label(), o.requirement(), o.observed()));
        }
        StringBuilder summary = new StringBuilder();
        summary().forEach((v, n) -> summary.append(summary.length() == 0 ? "" : ", ").append(n).append(' ')
                .append(v.label()));
        out.append(summary).append('\n');
        return out.toString();
    }

    /** The report as one JSON object (fields in {@code docs/probe.md}), with a final newline. */
    public String toJson() {
        StringBuilder j = new StringBuilder("{");
        field(j, "tool", "iwarp probe").append(',');
        field(j, "schema", JSON_SCHEMA).append(',');
        field(j, "target", target).append(',');
        field(j, "started", started.toString()).append(',');
        field(j, "total_millis", totalMillis).append(',');
        field(j, "connections", connections).append(',');
        field(j, "connected", connected).append(',');
        field(j, "replies", replies).append(',');
        field(j, "timeout_millis", timeoutMillis).append(',');
        field(j, "startup_wait_millis", startupWaitMillis).append(',');
        string(j, "summary").append(":{");
        boolean first = true;
        for (Map.Entry<Verdict, Integer> e : summary().entrySet()) {
            if (!first) {
                j.append(',');
            }
            first = false;
            field(j, e.getKey().label(), e.getValue());
        }
        j.append("},");
        string(j, "observations").append(":[");
        for (int i = 0; i < observations.size(); i++) {
            Observation o = observations.get(i);
            j.append(i == 0 ? "{" : ",{");
            field(j, "probe", o.probe()).append(',');
            field(j, "requirement", o.requirement()).append(',');
            field(j, "verdict", o.verdict().label()).append(',');
            field(j, "observed", o.observed()).append(',');
            field(j, "expected", o.expected()).append(',');
            field(j, "millis", o.millis()).append(',');
            string(j, "facts").append(":{");
            boolean firstFact = true;
            for (Map.Entry<String, Object> f : o.facts().entrySet()) {
                if (!firstFact) {
                    j.append(',');
                }
                firstFact = false;
                field(j, f.getKey(), f.getValue());
            }
            j.append("}}");
        }
        return j.append("]}\n").toString();
    }

    private static StringBuilder field(StringBuilder j, String name, Object value) {
        string(j, name).append(':');
        if (value instanceof Number || value instanceof Boolean) {
            return j.append(value);
        }
        return string(j, String.valueOf(value));
    }

    private static StringBuilder string(StringBuilder j, String s) {
        j.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> j.append("\\\"");
                case '\\' -> j.append("\\\\");
                case '\n' -> j.append("\\n");
                case '\r' -> j.append("\\r");
                case '\t' -> j.append("\\t");
                default -> {
                    if (c < 0x20) {
                        j.append(String.format("\\u%04x", (int) c));
                    } else {
                        j.append(c);
                    }
                }
            }
        }
        return j.append('"');
    }
}
