package org.iwarp4j.tools.rpc;

/**
 * One measurement: {@code calls} calls of {@code size} payload octets each in {@code nanos}, of
 * which {@code unverified} had a reply that did not verify.
 */
public record RpcRate(int size, long calls, long nanos, long unverified) {

    public double callsPerSecond() {
        return calls / (nanos / 1e9);
    }

    /** Payload octets per second (the opaque data, counted once per call). */
    public double bytesPerSecond() {
        return callsPerSecond() * size;
    }
}
