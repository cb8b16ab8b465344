package org.iwarp4j.tools.bench;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/**
 * What {@code iwarp bench} prints: perftest's header and columns, then the same transfer over
 * plain TCP and the ratio RDMA / TCP; for bandwidth twice: raw TCP (the receiver drops what it reads)
 * and TCP with copy (the receiver copies every octet into an application buffer the size of the RDMA
 * registered area, as an application must; RDMA's placement into that memory is the same work). Bandwidth: {@code #bytes #iterations BW peak BW average
 * MsgRate}, MB being 2^20 octets (or Gb/sec with {@code --report-gbits}: 10^9 bits) as in
 * perftest; latency: {@code t_min t_max t_typical t_avg t_stdev 99% 99.9%} in microseconds,
 * one-way (half the round trip) as perftest reports ib_write_lat and ib_send_lat.
 */
public final class BenchReport {

    public static final String LINE = "---------------------------------------------------------------------------------------";

    private BenchReport() {
    }

    public static void header(PrintWriter out, BenchSettings s, String where, boolean reportGbits) {
        header(out, s, where, reportGbits, false);
    }

    /**
     * The header; with {@code cpu} the column titles go on with the CPU columns ({@code --cpu}): the event
     * loops' CPU time per octet (latency: per round trip) of RDMA and of each TCP baseline, and RDMA / TCP.
     */
    public static void header(PrintWriter out, BenchSettings s, String where, boolean reportGbits, boolean cpu) {
        out.printf("# iwarp bench %s: %s %s, %s, %d QP%s, %s, CRC %s, markers %s, MPA revision %d, MULPDU %s, %s%n",
                s.test().command(), s.test().operation(), s.test().isLatency() ? "latency" : "bandwidth", where,
                s.queuePairs(), s.queuePairs() == 1 ? "" : "s",
                s.test().isLatency() ? "ping-pong, " + s.poll().label() + " polling" : "tx depth " + s.txDepth(),
                s.crc().name().toLowerCase(java.util.Locale.ROOT).replace("require", "on"),
                s.markers() ? "required" : "off", s.mpaRevision(),
                s.maxUlpdu() != 0 ? String.valueOf(s.maxUlpdu())
                        : s.transport() != org.iwarp4j.rdmap.Transport.NIO ? "from the connection's MSS (RFC 5044 §4.5 EMSS)"
                        : "from EMSS 1448 (MSS unknown)", s.transport());
        out.printf("# %s; TCP: the same transfer over plain Netty TCP in the same run; ratio = RDMA / TCP%s%n",
                s.test().isLatency() ? "latency one-way (half the round trip) in usec, as perftest"
                        : reportGbits ? "Gb = 10^9 bits, as perftest" : "MB = 2^20 octets, as perftest",
                s.test().isLatency() ? "" : "; TCP+copy: the receiver also copies every octet into an application"
                        + " buffer the size of the RDMA region");
        boolean tcpFirst = s.order() == BenchRunner.Order.TCP_FIRST;
        if (s.interleaved()) {
            out.printf("# interleaved: each size's RDMA, TCP and TCP+copy measured in %d rounds of %s s each, one"
                    + " after the other (the three's order rotated one step every round, the first starting with %s);"
                    + " a row adds its windows up%n",
                    s.interleave(), String.format(java.util.Locale.ROOT, "%.3g", s.durationSeconds() / s.interleave()),
                    tcpFirst ? "TCP" : "RDMA");
        } else if (tcpFirst && s.compareTcp()) {
            out.println("# order: each size's TCP and TCP+copy measured before its RDMA (--order tcp-first)");
        }
        if (cpu) {
            out.printf("# CPU: the event loops' CPU time (user + system; %s) per %s; cpu ratio = RDMA / TCP, lower is"
                            + " less work; the benchmark threads' own CPU time is in --json%n",
                    where.startsWith("loopback") ? "both ends, this process" : "this end",
                    s.test().isLatency() ? "round trip in usec" : "payload octet in ns");
        }
        out.println(LINE);
        if (s.test().isLatency()) {
            out.println(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
                    + "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   TCP t_typical[usec]   ratio"
                    + (cpu ? "   CPU[usec/rt]   TCP CPU[usec/rt]   cpu ratio" : ""));
        } else {
            String unit = reportGbits ? "Gb/sec" : "MB/sec";
            out.printf(" #bytes     #iterations    BW peak[%1$s]    BW average[%1$s]   MsgRate[Mpps]   "
                    + "TCP BW average[%1$s]   ratio   TCP+copy BW average[%1$s]   ratio%2$s%n", unit,
                    cpu ? "   CPU[ns/B]   TCP CPU[ns/B]   cpu ratio   TCP+copy CPU[ns/B]   cpu ratio" : "");
        }
        out.flush();
    }

    public static void bandwidthLine(PrintWriter out, BandwidthResult rdma, BandwidthResult tcp, boolean reportGbits) {
        bandwidthLine(out, rdma, tcp, null, reportGbits);
    }

    /** A bandwidth line with both TCP baselines, raw and with copy (either may be {@code null}). */
    public static void bandwidthLine(PrintWriter out, BandwidthResult rdma, BandwidthResult tcp,
                                     BandwidthResult tcpCopy, boolean reportGbits) {
        double factor = reportGbits ? 8 / 1e9 : 1.0 / (1 << 20);
        out.printf(" %-10d %-14d %-18.2f %-20.2f %-15.6f %-24s %-7s %-29s %s%n", rdma.size(), rdma.iterations(),
                rdma.peakBytesPerSecond() * factor, rdma.averageBytesPerSecond() * factor,
                rdma.messagesPerSecond() / 1e6, average(tcp, factor), ratio(rdma, tcp), average(tcpCopy, factor),
                ratio(rdma, tcpCopy));
        out.flush();
    }

    private static String average(BandwidthResult r, double factor) {
        return r == null ? "-" : String.format("%.2f", r.averageBytesPerSecond() * factor);
    }

    private static String ratio(BandwidthResult rdma, BandwidthResult tcp) {
        return tcp == null ? "-" : String.format("%.3f", rdma.averageBytesPerSecond() / tcp.averageBytesPerSecond());
    }

    public static void latencyLine(PrintWriter out, LatencyResult rdma, LatencyResult tcp) {
        out.printf(" %-6d %-14d %-14.2f %-12.2f %-18.2f %-14.2f %-15.2f %-22.2f %-24.2f %-21s %s%n", rdma.size(),
                rdma.iterations(), rdma.min(), rdma.max(), rdma.typical(), rdma.average(), rdma.stdev(), rdma.p99(),
                rdma.p999(), tcp == null ? "-" : String.format("%.2f", tcp.typical()),
                tcp == null ? "-" : String.format("%.3f", rdma.typical() / tcp.typical()));
        out.flush();
    }

    /**
     * One row as the table prints it, as soon as its size is done; a partial row (the run was
     * stopped during its size) is followed by a comment saying so.
     */
    public static void row(PrintWriter out, BenchRow row, boolean reportGbits) {
        row(out, row, reportGbits, false);
    }

    /** As {@link #row(PrintWriter, BenchRow, boolean)}; with {@code cpu} the CPU columns follow (see {@link #header}). */
    public static void row(PrintWriter out, BenchRow row, boolean reportGbits, boolean cpu) {
        StringWriter line = new StringWriter();
        PrintWriter figures = new PrintWriter(line);
        if (row.rdmaLatency() != null) {
            latencyLine(figures, row.rdmaLatency(), row.tcpLatency());
        } else if (row.rdmaBandwidth() != null) {
            bandwidthLine(figures, row.rdmaBandwidth(), row.tcpBandwidth(), row.tcpCopyBandwidth(), reportGbits);
        }
        String text = line.toString();
        if (cpu && !text.isEmpty()) {
            text = text.stripTrailing() + (row.rdmaLatency() != null
                    ? String.format("   %-14s %-18s %s", perMessage(row.rdmaCpu()), perMessage(row.tcpCpu()),
                            ratio(row.cpuRatio()))
                    : String.format("   %-11s %-15s %-11s %-20s %s", perOctet(row.rdmaCpu()), perOctet(row.tcpCpu()),
                            ratio(row.cpuRatio()), perOctet(row.tcpCopyCpu()), ratio(row.cpuRatioCopy())))
                    + System.lineSeparator();
        }
        out.print(text);
        if (!row.windows().isEmpty()) {
            List<InterleavedWindow> w = row.windows();
            out.printf("# %d octets in %d interleaved windows, medians of the windows' ratios: RDMA / TCP %s, / TCP+copy"
                            + " %s; cpu ratio %s, / TCP+copy %s%n", row.size(), w.size(),
                    ratio(InterleavedWindow.median(w, InterleavedWindow::ratio)),
                    ratio(InterleavedWindow.median(w, InterleavedWindow::copyRatio)),
                    ratio(InterleavedWindow.median(w, InterleavedWindow::cpuRatio)),
                    ratio(InterleavedWindow.median(w, InterleavedWindow::cpuRatioCopy)));
        }
        if (row.partial()) {
            out.println(row.rdmaLatency() == null && row.rdmaBandwidth() == null
                    ? "# " + row.size() + " octets: stopped before anything was measured"
                    : "# partial: the run was stopped while " + row.size() + " octets were measured; the row covers"
                            + " the part done");
        }
        out.flush();
    }

    private static String perOctet(CpuUsage c) {
        return c == null || Double.isNaN(c.eventLoopNanosPerOctet()) ? "-"
                : String.format("%.4f", c.eventLoopNanosPerOctet());
    }

    private static String perMessage(CpuUsage c) {
        return c == null || Double.isNaN(c.eventLoopMicrosPerMessage()) ? "-"
                : String.format("%.2f", c.eventLoopMicrosPerMessage());
    }

    private static String ratio(double r) {
        return Double.isNaN(r) ? "-" : String.format("%.3f", r);
    }

    /** {@code -H}: the distribution of the one-way latency of one size (RDMA, then plain TCP). */
    public static void histogram(PrintWriter out, BenchRow row) {
        if (row.rdmaLatency() == null) {
            return;
        }
        out.println("# histogram, " + row.size() + " octets, RDMA: one-way latency in usec (HdrHistogram)");
        row.rdmaLatency().distribution().lines().forEach(l -> out.println("#  " + l));
        if (row.tcpLatency() != null) {
            out.println("# histogram, " + row.size() + " octets, plain TCP: one-way latency in usec (HdrHistogram)");
            row.tcpLatency().distribution().lines().forEach(l -> out.println("#  " + l));
        }
        out.flush();
    }

    /** The closing lines: the rule and what was verified. */
    public static void footer(PrintWriter out, RdmaOutcome outcome, String tcpNote) {
        out.println(LINE);
        if (!outcome.verifiable()) {
            out.println("# data not verified: the peer is perftest " + outcome.peerVersion()
                    + ", whose memory holds no known pattern");
        } else if (outcome.problems().isEmpty()) {
            out.println("# data verified: every size, against the pattern, at both ends");
        } else {
            List<String> problems = outcome.problems();
            out.println("# DATA VERIFICATION FAILED:");
            problems.forEach(p -> out.println("#   " + p));
        }
        if (tcpNote != null) {
            out.println("# " + tcpNote);
        }
        out.flush();
    }
}
