package org.iwarp4j.benchmarks;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Payload megabytes (10^6 octets) handled, which JMH normalises per second: the secondary score
 * {@code <benchmark>:megabytes} is MB/s of ULPDU payload, with its error.
 */
@AuxCounters(AuxCounters.Type.OPERATIONS)
@State(Scope.Thread)
public class Megabytes {

    /** Megabytes of payload handled in this iteration. */
    public double megabytes;

    @Setup(Level.Iteration)
    public void reset() {
        megabytes = 0;
    }
}
