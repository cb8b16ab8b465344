package org.iwarp4j.ddp;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;

/**
 * DDP's meters: {@code iwarp.ddp.placed}, the ULP payload octets a {@link DdpReceiver} placed,
 * tagged {@code model} = {@code tagged} (RFC 5041 §3.2, into a {@link StagTable} buffer) or
 * {@code untagged} (§3.3, into a posted {@link ReceiveBuffer}). One instance is shared by every
 * stream that reports to the same registry; counting is thread-safe.
 */
public final class DdpMeters {

    /** Meters that count nowhere. */
    public static final DdpMeters NONE = new DdpMeters(nowhere());

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

    private final Counter placedTagged;
    private final Counter placedUntagged;

    private DdpMeters(MeterRegistry registry) {
        placedTagged = placed(registry, "tagged");
        placedUntagged = placed(registry, "untagged");
    }

    private static Counter placed(MeterRegistry registry, String model) {
        return Counter.builder("iwarp.ddp.placed").baseUnit("bytes").tag("model", model)
                .description("ULP payload placed by DDP").register(registry);
    }

    /** Meters in {@code registry}, or {@link #NONE} when it is {@code null}. */
    public static DdpMeters of(MeterRegistry registry) {
        return registry == null ? NONE : new DdpMeters(registry);
    }

    void placed(boolean tagged, int octets) {
        (tagged ? placedTagged : placedUntagged).increment(octets);
    }
}
