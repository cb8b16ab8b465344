package org.iwarp4j.conformance.decode;

import java.util.Set;

/**
 * What {@link CaptureDecoder} looks at.
 *
 * @param ports TCP ports whose connections are decoded as iWARP even without MPA startup frames
 *     (captures that start mid-stream); empty for none
 * @param connection decode only the connection with this index (tshark's {@code tcp.stream}), or
 *     -1 for all
 */
public record DecodeOptions(Set<Integer> ports, int connection) {

    /** Every connection that starts with an MPA Request. */
    public static final DecodeOptions DEFAULT = new DecodeOptions(Set.of(), -1);

    public DecodeOptions {
        ports = Set.copyOf(ports);
        if (connection < -1) {
            throw new IllegalArgumentException("connection index " + connection);
        }
    }

    public DecodeOptions withPorts(Set<Integer> newPorts) {
        return new DecodeOptions(newPorts, connection);
    }

    public DecodeOptions withConnection(int index) {
        return new DecodeOptions(ports, index);
    }
}
