package org.iwarp4j.cli.nfs;

/** One operation's measured passes: file octets moved, READ or WRITE calls, time (COMMITs included). */
record NfsThroughput(long octets, long calls, long nanos, int passes) {

    double bytesPerSecond() {
        return octets / (nanos / 1e9);
    }

    double callsPerSecond() {
        return calls / (nanos / 1e9);
    }
}
