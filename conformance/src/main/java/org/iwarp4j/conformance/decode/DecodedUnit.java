package org.iwarp4j.conformance.decode;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One decoded unit of a connection: a startup frame or a ULPDU (one FPDU's DDP segment with what
 * it carries). {@link #summary()} is the one-line form; {@link #layers()} holds every decoded field
 * per layer ({@code mpa}, {@code ddp}, {@code rdmap}, {@code terminate}, {@code rpcrdma},
 * {@code rpc}), in wire order, for the tree ({@code -V}) and JSON forms.
 *
 * @param frame the frame that completed the unit
 * @param connection the connection's index (tshark's {@code tcp.stream})
 * @param direction {@code I>R} or {@code R>I}
 */
public record DecodedUnit(long frame, int connection, String direction, String summary,
                          Map<String, Map<String, Object>> layers) {

    public DecodedUnit {
        Objects.requireNonNull(summary, "summary");
        Map<String, Map<String, Object>> copy = new LinkedHashMap<>();
        layers.forEach((k, v) -> copy.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
        layers = Collections.unmodifiableMap(copy);
    }
}
