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
 */
public record NfsBenchSettings(long fileSize, int rsize, int wsize, int passes, double durationSeconds, int warmupPasses,
                               int inFlight, List<NfsTransport> transports) {

    public NfsBenchSettings {
        transports = List.copyOf(transports);
        if (fileSize < 1 || rsize < 1 || wsize < 1 || inFlight < 1 || warmupPasses < 0 || transports.isEmpty()
                || passes < 0 || (passes == 0 && durationSeconds <= 0)) {
            throw new IllegalArgumentException("sizes, in flight and passes or duration must be positive");
        }
    }

    public boolean byDuration() {
        return passes == 0;
    }

    /** The largest READ or WRITE: what the client asks the server's FSINFO for. */
    public int maxTransfer() {
        return Math.max(rsize, wsize);
    }
}
