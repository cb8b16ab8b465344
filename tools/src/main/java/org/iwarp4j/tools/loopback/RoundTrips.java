package org.iwarp4j.tools.loopback;

/** A ping-pong run: mean round-trip time and the event loops' CPU time per round trip, in microseconds. */
record RoundTrips(double meanMicros, double cpuMicros) {

    static RoundTrips of(long[] timing, long[] cpu, int rounds) {
        return new RoundTrips((timing[1] - timing[0]) / 1e3 / rounds, (cpu[1] - cpu[0]) / 1e3 / rounds);
    }
}
