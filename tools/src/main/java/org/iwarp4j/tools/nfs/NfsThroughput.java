package org.iwarp4j.tools.nfs;

/** One operation's measured passes: file octets moved, READ or WRITE calls, time (COMMITs included). */
public record NfsThroughput(long octets, long calls, long nanos, int passes) {

    public double bytesPerSecond() {
        return octets / (nanos / 1e9);
    }

    public double callsPerSecond() {
        return calls / (nanos / 1e9);
    }
}
