package org.iwarp4j.tools.nfs;

import java.util.List;

/**
 * One {@code iwarp nfs bench} run.
 *
 * @param fileSize  octets of the benchmark file
 * @param rsize     octets per READ (at most what the server's FSINFO allows)
 * @param wsize     octets per WRITE (likewise)
 * @param passes    measured passes over the file per operation; 0 means {@code durationSeconds} instead
 * @param warmupPasses WRITE and READ passes before measuring, verified but not counted
 * @param inFlight  READs or WRITEs without a reply at once
 * @param transports what to measure, in order
 * @param steadyShare after the warm-up passes, rounds run until one spends less than this share of
 *                  its time in JIT compilation ({@link SteadyState})
 * @param steadyCapSeconds no such round begins after this many seconds of them; 0 runs none
 */
public record NfsBenchSettings(long fileSize, int rsize, int wsize, int passes, double durationSeconds, int warmupPasses,
                               int inFlight, List<NfsTransport> transports, double steadyShare,
                               double steadyCapSeconds) {

    public NfsBenchSettings {
        transports = List.copyOf(transports);
        if (fileSize < 1 || rsize < 1 || wsize < 1 || inFlight < 1 || warmupPasses < 0 || transports.isEmpty()
                || passes < 0 || (passes == 0 && durationSeconds <= 0)) {
            throw new IllegalArgumentException("sizes, in flight and passes or duration must be positive");
        }
        if (!(steadyShare > 0) || !(steadyCapSeconds >= 0)) {
            throw new IllegalArgumentException("the steady share must be positive and its cap 0 or more");
        }
    }

    /** With the default steady-state rule (2 %, at most 60 s). */
    public NfsBenchSettings(long fileSize, int rsize, int wsize, int passes, double durationSeconds, int warmupPasses,
                            int inFlight, List<NfsTransport> transports) {
        this(fileSize, rsize, wsize, passes, durationSeconds, warmupPasses, inFlight, transports,
                SteadyState.DEFAULT_SHARE, SteadyState.DEFAULT_CAP_SECONDS);
    }

    public boolean byDuration() {
        return passes == 0;
    }

    /** The largest READ or WRITE: what the client asks the server's FSINFO for. */
    public int maxTransfer() {
        return Math.max(rsize, wsize);
    }
}
