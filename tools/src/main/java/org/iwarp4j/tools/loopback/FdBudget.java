package org.iwarp4j.tools.loopback;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The file descriptors a scale run needs in one process against the process's limit ({@code ulimit -n}),
 * checked before the first connection: a run that would hit the limit half-way dies with "Too many open
 * files" deep inside Netty, after minutes, with half its queue pairs connected. Every loopback connection is
 * a socket at each end, so one JVM holding both RNICs needs two descriptors per queue pair; with the server
 * RNIC in a child process each process needs one.
 *
 * @param needed    descriptors the run needs in this process: what is open now, the sockets, and headroom
 * @param limit     the process's limit, or -1 where the platform does not say
 * @param sockets   sockets the run opens in this process
 */
record FdBudget(long needed, long limit, long sockets) {

    /** Event-loop selectors and wake-up descriptors, the listener, the child's pipes, class files: plenty. */
    static final int HEADROOM = 64;

    /** The budget of a run of {@code qps} queue pairs with both ends in this process or only the client end. */
    static FdBudget of(int qps, boolean bothEnds) {
        long sockets = bothEnds ? 2L * qps + 1 : qps;
        long open = openNow();
        return new FdBudget(Math.max(open, 0) + sockets + HEADROOM, processLimit(), sockets);
    }

    boolean fits() {
        return limit < 0 || needed <= limit;
    }

    /** The most queue pairs a one-JVM run fits under the limit (as computed from the same open count). */
    long largestOneJvmRun() {
        long base = needed - sockets;
        return Math.max(0, (limit - base - 1) / 2);
    }

    /** One line: what is needed, what the limit is, what to do. */
    String describe(int qps, boolean bothEnds) {
        String ends = bothEnds ? "both RNICs in this JVM: 2 sockets per queue pair" : "client RNIC in this JVM: 1 socket per queue pair";
        String line = String.format("scale: %d queue pairs need about %d file descriptors in this process (%s, + %d open now and"
                + " headroom); the limit is %s (ulimit -n)", qps, needed, ends, needed - sockets,
                limit < 0 ? "unknown" : Long.toString(limit));
        if (fits()) {
            return line;
        }
        return line + (bothEnds ? String.format("; run with --server-process (server RNIC in a child JVM) or --qps %d at most",
                largestOneJvmRun()) : "; raise the limit or lower --qps");
    }

    private static long openNow() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof UnixOperatingSystemMXBean unix ? unix.getOpenFileDescriptorCount() : -1;
    }

    static long processLimit() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof UnixOperatingSystemMXBean unix ? unix.getMaxFileDescriptorCount() : -1;
    }

    /** Thrown before a run that cannot fit; its message is the one line to print. */
    static final class TooFewFileDescriptors extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        TooFewFileDescriptors(String message) {
            super(message);
        }
    }
}
