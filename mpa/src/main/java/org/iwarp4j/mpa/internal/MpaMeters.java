package org.iwarp4j.mpa.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;

/**
 * MPA's meters: {@code iwarp.mpa.fpdus} and {@code iwarp.mpa.bytes} (tag {@code direction}
 * tx/rx, bytes as on the wire), {@code iwarp.mpa.errors} (tag {@code type} crc/marker/length).
 * Shared by all connections that use the same registry.
 */
public final class MpaMeters {

    private static final MpaMeters NONE = new MpaMeters(new CompositeMeterRegistry());

    public final Counter fpdusSent;
    public final Counter fpdusReceived;
    public final Counter bytesSent;
    public final Counter bytesReceived;
    public final Counter crcErrors;
    public final Counter markerErrors;
    public final Counter lengthErrors;

    private MpaMeters(MeterRegistry registry) {
        fpdusSent = Counter.builder("iwarp.mpa.fpdus").tag("direction", "tx").register(registry);
        fpdusReceived = Counter.builder("iwarp.mpa.fpdus").tag("direction", "rx").register(registry);
        bytesSent = Counter.builder("iwarp.mpa.bytes").baseUnit("bytes").tag("direction", "tx").register(registry);
        bytesReceived = Counter.builder("iwarp.mpa.bytes").baseUnit("bytes").tag("direction", "rx").register(registry);
        crcErrors = Counter.builder("iwarp.mpa.errors").tag("type", "crc").register(registry);
        markerErrors = Counter.builder("iwarp.mpa.errors").tag("type", "marker").register(registry);
        lengthErrors = Counter.builder("iwarp.mpa.errors").tag("type", "length").register(registry);
    }

    /** Meters in {@code registry}, or ones that count nowhere when it is {@code null}. */
    public static MpaMeters of(MeterRegistry registry) {
        return registry == null ? NONE : new MpaMeters(registry);
    }
}
