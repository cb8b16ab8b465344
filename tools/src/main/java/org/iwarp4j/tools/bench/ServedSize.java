package org.iwarp4j.tools.bench;

/**
 * What a server end saw of one message size ({@code iwarp bench --server}): the messages it served
 * and how long the size took at this end. A server cannot tell the client's warm-up from its
 * measurement, so {@code nanos} covers both (from the moment this end was ready for the size, or the
 * client's plain-TCP comparison of the previous size ended, to the client's message that the size is
 * done), as do the messages; the client's figures are the measurement, these a check from the other
 * side.
 *
 * @param messages    messages served for the size, warm-up included (round trips for latency)
 * @param countedHere {@code true}: this end counted them (Send receives, latency answers); {@code false}:
 *                    the client's count, told at the end of the size (RDMA Write and Read place and
 *                    answer without this end's software seeing each message)
 */
public record ServedSize(int size, long messages, boolean countedHere, long nanos) {

    /**
     * Payload octets the messages carried to this end (RDMA Read: from it); for latency, one direction
     * of each round trip.
     */
    public long octets() {
        return messages * size;
    }

    /** Octets per second over the size's time at this end; {@code NaN} for no time. */
    public double bytesPerSecond() {
        return nanos > 0 ? octets() / (nanos / 1e9) : Double.NaN;
    }
}
