package org.iwarp4j.tools.bench;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Locale;

/**
 * One JSON document per run of {@code iwarp bench} ({@code --json}, {@code --out_json FILE}), in the
 * spirit of iperf3's {@code -J} and perftest's {@code --out_json}: the settings, the machine, and per
 * message size every figure the table prints (RDMA, TCP, the ratio, latency percentiles). The field
 * names are stable and listed in docs/iwarp-command.md ("JSON output"); a figure that does not exist
 * (no TCP comparison, a size not reached) is {@code null}, never left out.
 */
public final class BenchJson {

    /** Bumped only when a field changes meaning or goes away; new fields do not bump it. */
    public static final int FORMAT = 1;

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final double MIB = 1 << 20;

    private BenchJson() {
    }

    /**
     * Everything a document says about one run.
     *
     * @param version      the command's version string
     * @param role         {@code loopback} or {@code client}
     * @param peer         {@code host:port} of the server, or {@code null} in loopback
     * @param rows         the rows printed, the partial one included
     * @param outcome      the RDMA outcome, or {@code null} if the run did not end normally
     * @param tcpNote      why there is no TCP column, or {@code null}
     * @param interrupted  the run was stopped (Ctrl-C)
     * @param error        what ended the run early other than a stop, or {@code null}
     * @param exitStatus   the command's exit status
     * @param load         the background load the run ran under, or {@code null}
     */
    public record Run(String version, BenchSettings settings, String role, String peer, List<BenchRow> rows,
                      RdmaOutcome outcome, String tcpNote, boolean interrupted, String error, int exitStatus,
                      BackgroundLoad.Info load) {

        /** A run without a background load. */
        public Run(String version, BenchSettings settings, String role, String peer, List<BenchRow> rows,
                   RdmaOutcome outcome, String tcpNote, boolean interrupted, String error, int exitStatus) {
            this(version, settings, role, peer, rows, outcome, tcpNote, interrupted, error, exitStatus, null);
        }
    }

    /**
     * What a server end ({@code iwarp bench --server}) can say about the client it served.
     *
     * @param port         the port it listened on
     * @param outcome      what it served and found, or {@code null} if the session did not end normally
     * @param interrupted  the server was stopped (Ctrl-C) before the session ended
     * @param error        what ended the session early other than a stop, or {@code null}
     * @param exitStatus   the command's exit status for this client
     * @param load         the background load the run ran under, or {@code null}
     */
    public record ServerRun(String version, BenchSettings settings, int port, RdmaOutcome outcome,
                            boolean interrupted, String error, int exitStatus, BackgroundLoad.Info load) {
    }

    /** Writes {@code run} to {@code out} as one pretty-printed document (UTF-8); does not close {@code out}. */
    public static void write(OutputStream out, Run run) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.useDefaultPrettyPrinter();
            BenchSettings s = run.settings();
            g.writeStartObject();
            head(g, s, run.version(), run.role());
            g.writeStringField("peer", run.peer());
            settingsAndMachine(g, s, run.load());

            g.writeArrayFieldStart("results");
            for (BenchRow row : run.rows()) {
                writeRow(g, row);
            }
            g.writeEndArray();

            g.writeBooleanField("interrupted", run.interrupted());
            g.writeStringField("error", run.error());
            verification(g, run.outcome(), run.interrupted());
            g.writeStringField("tcp_note", run.tcpNote());
            g.writeNumberField("exit_status", run.exitStatus());
            g.writeEndObject();
        }
        out.write('\n');
        out.flush();
    }

    /**
     * Writes a server end's document: the settings, the machine, per size what it served (messages,
     * octets, its own time and bandwidth for the size, warm-up included: see {@link ServedSize}), the
     * client's report where perftest sends one, and the verification.
     */
    public static void write(OutputStream out, ServerRun run) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.useDefaultPrettyPrinter();
            BenchSettings s = run.settings();
            g.writeStartObject();
            head(g, s, run.version(), "server");
            g.writeNumberField("port", run.port());
            settingsAndMachine(g, s, run.load());
            RdmaOutcome o = run.outcome();
            g.writeArrayFieldStart("served");
            if (o != null) {
                for (ServedSize served : o.served()) {
                    g.writeStartObject();
                    g.writeNumberField("bytes", served.size());
                    g.writeNumberField(s.test().isLatency() ? "round_trips" : "messages", served.messages());
                    g.writeStringField("counted_by", served.countedHere() ? "server" : "client");
                    g.writeNumberField("octets", served.octets());
                    g.writeNumberField("seconds", served.nanos() / 1e9);
                    double bps = served.bytesPerSecond();
                    nullableNumber(g, "bw_average_mb_per_sec", Double.isNaN(bps) ? null : bps / MIB);
                    nullableNumber(g, "bw_average_gbit_per_sec", Double.isNaN(bps) ? null : bps * 8 / 1e9);
                    nullableNumber(g, "msg_rate_mpps", served.nanos() > 0
                            ? served.messages() / (served.nanos() / 1e9) / 1e6 : null);
                    g.writeEndObject();
                }
            }
            g.writeEndArray();
            g.writeArrayFieldStart("client_report");
            if (o != null) {
                for (BandwidthResult r : o.bandwidth()) {
                    g.writeStartObject();
                    g.writeNumberField("bytes", r.size());
                    g.writeFieldName("rdma");
                    bandwidth(g, r);
                    g.writeEndObject();
                }
            }
            g.writeEndArray();
            g.writeBooleanField("interrupted", run.interrupted());
            g.writeStringField("error", run.error());
            verification(g, o, run.interrupted());
            g.writeNumberField("exit_status", run.exitStatus());
            g.writeEndObject();
        }
        out.write('\n');
        out.flush();
    }

    private static void head(JsonGenerator g, BenchSettings s, String version, String role) throws IOException {
        g.writeNumberField("format", FORMAT);
        g.writeStringField("tool", "iwarp bench " + s.test().command());
        g.writeStringField("version", version);
        g.writeStringField("perftest_equivalent", s.test().perftestName());
        g.writeStringField("operation", s.test().operation());
        g.writeStringField("kind", s.test().isLatency() ? "latency" : "bandwidth");
        g.writeStringField("role", role);
    }

    private static void settingsAndMachine(JsonGenerator g, BenchSettings s, BackgroundLoad.Info load)
            throws IOException {
        g.writeObjectFieldStart("settings");
        g.writeArrayFieldStart("sizes");
        for (int size : s.sizes()) {
            g.writeNumber(size);
        }
        g.writeEndArray();
        nullableNumber(g, "iterations", s.byDuration() ? null : (double) s.iterations());
        nullableNumber(g, "duration_seconds", s.byDuration() ? s.durationSeconds() : null);
        g.writeNumberField("warmup_seconds", s.warmupSeconds());
        g.writeNumberField("queue_pairs", s.queuePairs());
        g.writeNumberField("tx_depth", s.depth());
        g.writeStringField("crc", crc(s));
        g.writeBooleanField("markers", s.markers());
        g.writeNumberField("mpa_revision", s.mpaRevision());
        nullableNumber(g, "max_ulpdu", s.maxUlpdu() == 0 ? null : (double) s.maxUlpdu());
        g.writeBooleanField("compare_tcp", s.compareTcp());
        g.writeStringField("poll", s.poll().label());
        g.writeNumberField("interleave", s.interleave());
        g.writeStringField("order", s.order().label());
        if (load == null) {
            g.writeNullField("background_load");
        } else {
            g.writeObjectFieldStart("background_load");
            g.writeNumberField("threads", load.threads());
            g.writeNumberField("pid", load.pid());
            g.writeStringField("kind", "busy-looping threads in a separate JVM process");
            g.writeEndObject();
        }
        g.writeEndObject();

        g.writeObjectFieldStart("machine");
        g.writeNumberField("cores", Runtime.getRuntime().availableProcessors());
        g.writeStringField("jdk", System.getProperty("java.version"));
        g.writeStringField("jdk_vendor", System.getProperty("java.vendor"));
        g.writeStringField("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        g.writeStringField("transport", s.transport().name().toLowerCase(Locale.ROOT));
        g.writeEndObject();

        g.writeObjectFieldStart("units");
        g.writeStringField("bandwidth_mb", "MB/sec, MB = 2^20 octets (perftest's)");
        g.writeStringField("bandwidth_gbit", "Gb/sec, Gb = 10^9 bits (perftest's --report_gbits)");
        g.writeStringField("latency", "usec, one-way (half the round trip, perftest's)");
        g.writeStringField("ratio", "RDMA / TCP: average bandwidth, or typical latency");
        g.writeStringField("cpu", "thread CPU time (user + system) in ns per payload octet, or usec per"
                + " message (round trip); event loops: the Netty event-loop threads of this process;"
                + " app: the benchmark's own threads; cpu ratio: RDMA / TCP, event loops, per octet");
        g.writeEndObject();
    }

    private static void verification(JsonGenerator g, RdmaOutcome o, boolean interrupted) throws IOException {
        g.writeObjectFieldStart("verification");
        if (o == null) {
            g.writeStringField("state", interrupted ? "not finished: interrupted" : "not finished");
            g.writeNullField("verifiable");
            g.writeNullField("verified");
            g.writeArrayFieldStart("problems");
            g.writeEndArray();
            g.writeNullField("peer_version");
        } else {
            g.writeStringField("state", !o.verifiable() ? "not verifiable: the peer is perftest"
                    : o.verified() ? "verified" : "failed");
            g.writeBooleanField("verifiable", o.verifiable());
            g.writeBooleanField("verified", o.verified());
            g.writeArrayFieldStart("problems");
            for (String p : o.problems()) {
                g.writeString(p);
            }
            g.writeEndArray();
            g.writeStringField("peer_version", o.peerVersion());
        }
        g.writeEndObject();
    }

    private static void writeRow(JsonGenerator g, BenchRow row) throws IOException {
        g.writeStartObject();
        g.writeNumberField("bytes", row.size());
        g.writeBooleanField("partial", row.partial());
        g.writeFieldName("rdma");
        if (row.rdmaBandwidth() != null || row.rdmaLatency() == null) {
            bandwidth(g, row.rdmaBandwidth());
        } else {
            latency(g, row.rdmaLatency());
        }
        g.writeFieldName("tcp");
        if (row.rdmaLatency() != null) {
            latency(g, row.tcpLatency());
        } else {
            bandwidth(g, row.tcpBandwidth());
        }
        double ratio = row.ratio();
        nullableNumber(g, "ratio", Double.isNaN(ratio) ? null : ratio);
        if (row.rdmaLatency() == null) {
            g.writeFieldName("tcp_copy");
            bandwidth(g, row.tcpCopyBandwidth());
            double copyRatio = row.copyRatio();
            nullableNumber(g, "ratio_copy", Double.isNaN(copyRatio) ? null : copyRatio);
        }
        cpu(g, row);
        if (row.rdmaLatency() == null) {
            windows(g, row.windows());
        }
        g.writeEndObject();
    }

    /** The three measurements of a window, by their JSON field names. */
    private enum Side {
        RDMA("rdma"), TCP("tcp"), TCP_COPY("tcp_copy");

        final String field;

        Side(String field) {
            this.field = field;
        }

        BandwidthResult bandwidth(InterleavedWindow w) {
            return switch (this) {
                case RDMA -> w.rdma();
                case TCP -> w.tcp();
                case TCP_COPY -> w.tcpCopy();
            };
        }

        CpuUsage cpu(InterleavedWindow w) {
            return switch (this) {
                case RDMA -> w.rdmaCpu();
                case TCP -> w.tcpCpu();
                case TCP_COPY -> w.tcpCopyCpu();
            };
        }
    }

    /** An interleaved row's windows, each as a row of its own, and the medians of their ratios. */
    private static void windows(JsonGenerator g, List<InterleavedWindow> windows) throws IOException {
        g.writeArrayFieldStart("windows");
        for (InterleavedWindow w : windows) {
            g.writeStartObject();
            for (Side side : Side.values()) {
                g.writeFieldName(side.field);
                bandwidth(g, side.bandwidth(w));
            }
            nullableNumber(g, "ratio", nanToNull(w.ratio()));
            nullableNumber(g, "ratio_copy", nanToNull(w.copyRatio()));
            g.writeObjectFieldStart("cpu");
            for (Side side : Side.values()) {
                g.writeFieldName(side.field);
                cpu(g, side.cpu(w));
            }
            nullableNumber(g, "ratio", nanToNull(w.cpuRatio()));
            nullableNumber(g, "ratio_copy", nanToNull(w.cpuRatioCopy()));
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
        if (windows.isEmpty()) {
            g.writeNullField("window_medians");
            return;
        }
        g.writeObjectFieldStart("window_medians");
        nullableNumber(g, "ratio", nanToNull(InterleavedWindow.median(windows, InterleavedWindow::ratio)));
        nullableNumber(g, "ratio_copy", nanToNull(InterleavedWindow.median(windows, InterleavedWindow::copyRatio)));
        nullableNumber(g, "cpu_ratio", nanToNull(InterleavedWindow.median(windows, InterleavedWindow::cpuRatio)));
        nullableNumber(g, "cpu_ratio_copy",
                nanToNull(InterleavedWindow.median(windows, InterleavedWindow::cpuRatioCopy)));
        g.writeEndObject();
    }

    private static void cpu(JsonGenerator g, BenchRow row) throws IOException {
        CpuUsage any = row.rdmaCpu() != null ? row.rdmaCpu() : row.tcpCpu() != null ? row.tcpCpu() : row.tcpCopyCpu();
        if (any == null) {
            g.writeNullField("cpu");
            return;
        }
        g.writeObjectFieldStart("cpu");
        g.writeStringField("scope", any.scope());
        g.writeFieldName("rdma");
        cpu(g, row.rdmaCpu());
        g.writeFieldName("tcp");
        cpu(g, row.tcpCpu());
        double ratio = row.cpuRatio();
        nullableNumber(g, "ratio", Double.isNaN(ratio) ? null : ratio);
        if (row.rdmaLatency() == null) {
            g.writeFieldName("tcp_copy");
            cpu(g, row.tcpCopyCpu());
            double copy = row.cpuRatioCopy();
            nullableNumber(g, "ratio_copy", Double.isNaN(copy) ? null : copy);
        }
        g.writeEndObject();
    }

    private static void cpu(JsonGenerator g, CpuUsage c) throws IOException {
        if (c == null) {
            g.writeNull();
            return;
        }
        g.writeStartObject();
        g.writeNumberField("event_loop_cpu_ns", c.eventLoopNanos());
        g.writeNumberField("app_cpu_ns", c.applicationNanos());
        g.writeNumberField("octets", c.octets());
        g.writeNumberField("messages", c.messages());
        nullableNumber(g, "event_loop_ns_per_octet", nanToNull(c.eventLoopNanosPerOctet()));
        nullableNumber(g, "app_ns_per_octet", nanToNull(c.applicationNanosPerOctet()));
        nullableNumber(g, "event_loop_usec_per_message", nanToNull(c.eventLoopMicrosPerMessage()));
        nullableNumber(g, "app_usec_per_message", nanToNull(c.applicationMicrosPerMessage()));
        g.writeEndObject();
    }

    private static Double nanToNull(double value) {
        return Double.isNaN(value) ? null : value;
    }

    private static void bandwidth(JsonGenerator g, BandwidthResult r) throws IOException {
        if (r == null) {
            g.writeNull();
            return;
        }
        g.writeStartObject();
        g.writeNumberField("iterations", r.iterations());
        g.writeNumberField("bw_peak_mb_per_sec", r.peakBytesPerSecond() / MIB);
        g.writeNumberField("bw_average_mb_per_sec", r.averageBytesPerSecond() / MIB);
        g.writeNumberField("bw_peak_gbit_per_sec", r.peakBytesPerSecond() * 8 / 1e9);
        g.writeNumberField("bw_average_gbit_per_sec", r.averageBytesPerSecond() * 8 / 1e9);
        g.writeNumberField("msg_rate_mpps", r.messagesPerSecond() / 1e6);
        g.writeEndObject();
    }

    private static void latency(JsonGenerator g, LatencyResult r) throws IOException {
        if (r == null) {
            g.writeNull();
            return;
        }
        g.writeStartObject();
        g.writeNumberField("iterations", r.iterations());
        g.writeNumberField("t_min_usec", r.min());
        g.writeNumberField("t_max_usec", r.max());
        g.writeNumberField("t_typical_usec", r.typical());
        g.writeNumberField("t_avg_usec", r.average());
        g.writeNumberField("t_stdev_usec", r.stdev());
        g.writeNumberField("t_p99_usec", r.p99());
        g.writeNumberField("t_p99_9_usec", r.p999());
        g.writeObjectFieldStart("percentiles_usec");
        if (r.histogram() != null) {
            for (String p : new String[] {"50", "90", "99", "99.9", "99.99"}) {
                g.writeNumberField(p, r.percentile(Double.parseDouble(p)));
            }
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void nullableNumber(JsonGenerator g, String name, Double value) throws IOException {
        if (value == null) {
            g.writeNullField(name);
        } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            g.writeNumberField(name, value.longValue());
        } else {
            g.writeNumberField(name, value);
        }
    }

    private static String crc(BenchSettings s) {
        return switch (s.crc()) {
            case REQUIRE -> "on";
            case ACCEPT -> "accept";
            case OFF -> "off";
        };
    }
}
