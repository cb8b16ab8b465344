package org.iwarp4j.mpa.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.iwarp4j.mpa.MpaStartupHandler;

/**
 * Jazzer target: a peer's Reply frame and what follows it, to our Initiator (RFC 5044 §7.1,
 * RFC 6581); input layout and properties in {@link StartupRun}. Seeds: siw's server side of the rping, perftest
 * and NFS captures, the RFC Reply vector.
 */
class MpaStartupInitiatorFuzzTarget {

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 2) {
            return;
        }
        StartupRun.run(input, MpaStartupHandler.initiator(StartupRun.settings(input[0])));
    }
}
