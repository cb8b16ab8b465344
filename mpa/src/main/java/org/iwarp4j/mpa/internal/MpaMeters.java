package org.iwarp4j.mpa.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;

/**
 * MPA's meters: {@code iwarp.mpa.fpdus} and {@code iwarp.mpa.bytes} (tag {@code direction}
 * tx/rx, bytes as on the wire), {@code iwarp.mpa.errors} (tag {@code type} crc/marker/length),
 * {@code iwarp.mpa.fpdus.placed.directly} (received FPDUs placed by direct placement) and
 * {@code iwarp.mpa.bytes.placed.directly} (their payload octets that a socket read put in place).
 * Shared by all connections that use the same registry.
 */
public final class MpaMeters {

    private static final MpaMeters NONE = new MpaMeters(nowhere());

    /**
     * A registry that hands out no-op meters: an empty composite registry's counters still walk
     * their (empty) children on every increment, a cost per message on the event loop (about a
     * tenth of its samples in a lat-send profile).
     */
    private static MeterRegistry nowhere() {
        CompositeMeterRegistry registry = new CompositeMeterRegistry();
        registry.config().meterFilter(io.micrometer.core.instrument.config.MeterFilter.deny());
        return registry;
    }

    public final Counter fpdusSent;
    public final Counter fpdusReceived;
    public final Counter bytesSent;
    public final Counter bytesReceived;
    public final Counter crcErrors;
    public final Counter markerErrors;
    public final Counter lengthErrors;
    /** FPDUs whose payload went straight to its memory ({@code iwarp.mpa.fpdus.placed.directly}). */
    public final Counter fpdusPlacedDirectly;
    /** Payload octets the socket read straight into their memory ({@code iwarp.mpa.bytes.placed.directly}). */
    public final Counter bytesPlacedDirectly;

    private MpaMeters(MeterRegistry registry) {
        fpdusSent = Counter.builder("iwarp.mpa.fpdus").tag("direction", "tx").register(registry);
        fpdusReceived = Counter.builder("iwarp.mpa.fpdus").tag("direction", "rx").register(registry);
        bytesSent = Counter.builder("iwarp.mpa.bytes").baseUnit("bytes").tag("direction", "tx").register(registry);
        bytesReceived = Counter.builder("iwarp.mpa.bytes").baseUnit("bytes").tag("direction", "rx").register(registry);
        crcErrors = Counter.builder("iwarp.mpa.errors").tag("type", "crc").register(registry);
        markerErrors = Counter.builder("iwarp.mpa.errors").tag("type", "marker").register(registry);
        lengthErrors = Counter.builder("iwarp.mpa.errors").tag("type", "length").register(registry);
        fpdusPlacedDirectly = Counter.builder("iwarp.mpa.fpdus.placed.directly")
                .description("Received FPDUs whose payload the socket read straight into its memory")
                .register(registry);
        bytesPlacedDirectly = Counter.builder("iwarp.mpa.bytes.placed.directly").baseUnit("bytes")
                .description("Payload octets the socket read straight into their memory (no copy after the read)")
                .register(registry);
    }

    /** Meters in {@code registry}, or ones that count nowhere when it is {@code null}. */
    public static MpaMeters of(MeterRegistry registry) {
        return registry == null ? NONE : new MpaMeters(registry);
    }
}
