package org.iwarp4j.interop.peer;

import java.util.List;

/**
 * A peer that can stop responding while this JVM runs (a VM whose guest kernel hangs or
 * panics), so {@link LinuxPeerExtension} checks it before each test class and replaces it
 * when it is gone.
 */
interface WatchedPeer extends LinuxPeer, AutoCloseable {

    Liveness liveness();

    /** A position in the peer's console output, for {@link #kernelFailuresSince}. */
    default long consoleMark() {
        return 0;
    }

    /**
     * The console lines since {@code mark} in which the peer's kernel reported a failure of its
     * own (panic, BUG, Oops, general protection fault, WARNING), not a stall: such a peer did not
     * hang by itself, our traffic may have broken it, and that is a defect to report.
     */
    default List<String> kernelFailuresSince(long mark) {
        return List.of();
    }

    /** Stops the peer; does not throw (a dead peer is closed as well as it can be). */
    @Override
    void close();
}
