package org.iwarp4j.mpa.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.mpa.MpaDecision;
import org.iwarp4j.mpa.MpaStartupHandler;

/**
 * Jazzer target: a peer's Request frame and what follows it, to our Responder (RFC 5044 §7.1,
 * RFC 6581); input layout and properties in {@link StartupRun}. Bit 6 of octet 0 makes our
 * Responder reject the Request. Seeds: siw's client side of the rping, perftest and NFS captures, the RFC Request
 * vectors.
 */
class MpaStartupResponderFuzzTarget {

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 2) {
            return;
        }
        boolean reject = (input[0] & 0x40) != 0;
        StartupRun.run(input, MpaStartupHandler.responder(StartupRun.settings(input[0]),
                request -> CompletableFuture.completedFuture(
                        reject ? MpaDecision.reject(new byte[] {1, 2, 3}, "fuzz") : MpaDecision.accept())));
    }
}
