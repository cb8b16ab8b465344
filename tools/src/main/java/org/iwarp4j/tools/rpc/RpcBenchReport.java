package org.iwarp4j.tools.rpc;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import org.iwarp4j.tools.bench.BenchReport;

/**
 * What {@code iwarp bench rpc} prints: a header saying what ran, one line per procedure and size
 * with calls/s and MB/s over RPC-over-RDMA and over TCP and the ratio RDMA / TCP (MB = 2^20
 * octets of payload, as {@code iwarp bench} and perftest count), then what was verified.
 */
public final class RpcBenchReport {

    public static final String COLUMNS = " procedure  #bytes     #calls      RDMA[calls/sec]  RDMA[MB/sec]  "
            + "TCP[calls/sec]  TCP[MB/sec]  ratio";

    private RpcBenchReport() {
    }

    public static void header(PrintWriter out, RpcBenchSettings s, String where, String rdmaConnection) {
        out.printf("# iwarp bench rpc: echo program %#x over RPC-over-RDMA v1 (RFC 8166) and over ONC RPC/TCP "
                + "(RFC 5531 record marking), %s%n", org.iwarp4j.oncrpc.sample.EchoProgram.PROGRAM, where);
        out.printf("# RPC-over-RDMA: %s; %d call%s in flight; %s per row and transport; %s%n", rdmaConnection,
                s.inFlight(), s.inFlight() == 1 ? "" : "s", s.byDuration()
                        ? String.format(Locale.ROOT, "%.2f s", s.durationSeconds())
                        : s.calls() + " call" + (s.calls() == 1 ? "" : "s"), s.transport());
        out.println("# " + order(s));
        StringBuilder what = new StringBuilder("#");
        for (EchoProcedure p : s.procedures()) {
            what.append(' ').append(p).append(": ").append(p.direction()).append(';');
        }
        out.println(what + " MB = 2^20 octets of payload, once per call; ratio = RDMA / TCP");
        out.println(BenchReport.LINE);
        out.println(COLUMNS);
        out.flush();
    }

    /**
     * How the run is ordered, so that no transport pays alone for compiling the code both share
     * (RPC, XDR, Netty) or for the code a procedure adds: the warm-up over every row and transport
     * before any measurement, then which transport each row measures first.
     */
    public static String order(RpcBenchSettings s) {
        int rows = s.procedures().size() * s.sizes().size();
        int transports = s.compareTcp() ? 2 : 1;
        String warmup = s.warmupSeconds() > 0
                ? String.format(Locale.ROOT, "warm-up first: %.2f s of calls over all %d row%s on %s (%.3f s each, "
                        + "at least one call; verified, not counted)", s.warmupSeconds(), rows, rows == 1 ? "" : "s",
                        transports == 2 ? "both transports" : "RPC-over-RDMA", s.warmupSlice())
                : "no warm-up (--warmup 0): the first row measured pays for compiling the code";
        return warmup + (transports == 2 ? "; then each row measures RDMA first on odd rows, TCP first on even rows"
                : "");
    }

    public static void line(PrintWriter out, EchoProcedure procedure, RpcRate rdma, RpcRate tcp) {
        double mb = 1 << 20;
        out.printf(Locale.ROOT, " %-10s %-10d %-11d %-16.1f %-13.2f %-15s %-12s %s%n", procedure, rdma.size(),
                rdma.calls(), rdma.callsPerSecond(), rdma.bytesPerSecond() / mb,
                tcp == null ? "-" : String.format(Locale.ROOT, "%.1f", tcp.callsPerSecond()),
                tcp == null ? "-" : String.format(Locale.ROOT, "%.2f", tcp.bytesPerSecond() / mb),
                tcp == null ? "-" : String.format(Locale.ROOT, "%.3f", rdma.callsPerSecond() / tcp.callsPerSecond()));
        out.flush();
    }

    /**
     * The closing rule, then what was verified: every reply of the procedures that ran, or the rows
     * whose replies did not verify.
     */
    public static void footer(PrintWriter out, List<EchoProcedure> procedures, List<String> problems, String tcpNote) {
        out.println(BenchReport.LINE);
        if (problems.isEmpty()) {
            out.println("# data verified: every reply (" + String.join(", ",
                    procedures.stream().map(EchoProcedure::verified).toList()) + ")");
        } else {
            out.println("# DATA VERIFICATION FAILED:");
            problems.forEach(p -> out.println("#   " + p));
        }
        if (tcpNote != null) {
            out.println("# " + tcpNote);
        }
        out.flush();
    }
}
