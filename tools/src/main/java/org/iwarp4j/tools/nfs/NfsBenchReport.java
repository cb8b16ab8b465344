package org.iwarp4j.tools.nfs;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import org.iwarp4j.tools.bench.BenchReport;

/**
 * What {@code iwarp nfs bench} prints: what ran, a WRITE and a READ line with MB/s and calls/s
 * over RPC-over-RDMA and over TCP and the ratio RDMA / TCP (MB = 2^20 octets as the other bench
 * commands), then what was verified.
 */
public final class NfsBenchReport {

    public static final String COLUMNS = " operation  #bytes         #calls     RDMA[MB/sec]  RDMA[calls/sec]  "
            + "TCP[MB/sec]  TCP[calls/sec]  ratio";

    private NfsBenchReport() {
    }

    public static void header(PrintWriter out, NfsBenchSettings s, String where) {
        header(out, s, where, "NFSv3");
    }

    /** The header, naming the NFS version measured, e.g. {@code NFSv4.2}. */
    public static void header(PrintWriter out, NfsBenchSettings s, String where, String version) {
        out.printf(Locale.ROOT, "# iwarp nfs bench: %s WRITE and READ of one %s file over RPC-over-RDMA (RFC 8267) "
                + "and over TCP, %s%n", version, octets(s.fileSize()), where);
        out.printf(Locale.ROOT, "# rsize %d, wsize %d, %d call%s in flight, %s after %d warm-up pass%s (on every "
                        + "transport before any is measured); WRITEs UNSTABLE and a COMMIT per pass (timed)%n", s.rsize(), s.wsize(), s.inFlight(),
                s.inFlight() == 1 ? "" : "s", s.byDuration()
                        ? String.format(Locale.ROOT, "passes for %.1f s per operation", s.durationSeconds())
                        : s.passes() + " pass" + (s.passes() == 1 ? "" : "es") + " per operation",
                s.warmupPasses(), s.warmupPasses() == 1 ? "" : "es");
        out.printf(Locale.ROOT, "# then warm-up rounds until one spends under %.1f %% of its time in JIT compilation "
                + "(at most %s s); measured passes alternate between the transports%n", s.steadyShare() * 100,
                SteadyState.seconds(s.steadyCapSeconds()));
        out.println("# MB = 2^20 octets of file data; ratio = RDMA / TCP; #bytes and #calls: the RDMA run's");
        out.println(BenchReport.LINE);
        out.println(COLUMNS);
        out.flush();
    }

    public static void line(PrintWriter out, String operation, NfsThroughput rdma, NfsThroughput tcp) {
        NfsThroughput first = rdma != null ? rdma : tcp;
        double mb = 1 << 20;
        out.printf(Locale.ROOT, " %-10s %-14d %-10d %-13s %-16s %-12s %-15s %s%n", operation, first.octets(),
                first.calls(), rdma == null ? "-" : String.format(Locale.ROOT, "%.2f", rdma.bytesPerSecond() / mb),
                rdma == null ? "-" : String.format(Locale.ROOT, "%.1f", rdma.callsPerSecond()),
                tcp == null ? "-" : String.format(Locale.ROOT, "%.2f", tcp.bytesPerSecond() / mb),
                tcp == null ? "-" : String.format(Locale.ROOT, "%.1f", tcp.callsPerSecond()),
                rdma == null || tcp == null ? "-"
                        : String.format(Locale.ROOT, "%.3f", rdma.bytesPerSecond() / tcp.bytesPerSecond()));
        out.flush();
    }

    public static void footer(PrintWriter out, List<String> problems, boolean serverCopyChecked, List<String> notes) {
        out.println(BenchReport.LINE);
        if (problems.isEmpty()) {
            out.println("# data verified: every READ pass's CRC32C equals the written data's, every WRITE complete "
                    + "with a steady write verifier through COMMIT" + (serverCopyChecked
                    ? ", the server's file on disk too" : ""));
        } else {
            out.println("# DATA VERIFICATION FAILED:");
            problems.forEach(p -> out.println("#   " + p));
        }
        notes.forEach(n -> out.println("# " + n));
        out.flush();
    }

    public static String octets(long n) {
        if (n % (1L << 30) == 0) {
            return (n >> 30) + " GiB";
        }
        if (n % (1L << 20) == 0) {
            return (n >> 20) + " MiB";
        }
        if (n % (1L << 10) == 0) {
            return (n >> 10) + " KiB";
        }
        return n + " octet";
    }
}
