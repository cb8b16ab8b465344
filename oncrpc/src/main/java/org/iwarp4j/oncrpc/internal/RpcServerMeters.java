package org.iwarp4j.oncrpc.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.RpcConstants;

import java.util.EnumMap;
import java.util.Map;

/**
 * The dispatcher's meters: {@code iwarp.oncrpc.replies} with tag {@code stat} (the accept_stat
 * of accepted replies, or RPC_MISMATCH / AUTH_ERROR for denied ones) and
 * {@code iwarp.oncrpc.dropped} for messages that could not be answered.
 */
public final class RpcServerMeters {

    private static final RpcServerMeters NONE = new RpcServerMeters(new CompositeMeterRegistry());

    private final Map<AcceptStat, Counter> accepted = new EnumMap<>(AcceptStat.class);
    private final Counter rpcMismatch;
    private final Counter authError;
    private final Counter dropped;

    private RpcServerMeters(MeterRegistry registry) {
        for (AcceptStat stat : AcceptStat.values()) {
            accepted.put(stat, Counter.builder("iwarp.oncrpc.replies").tag("stat", stat.name()).register(registry));
        }
        rpcMismatch = Counter.builder("iwarp.oncrpc.replies").tag("stat", "RPC_MISMATCH").register(registry);
        authError = Counter.builder("iwarp.oncrpc.replies").tag("stat", "AUTH_ERROR").register(registry);
        dropped = Counter.builder("iwarp.oncrpc.dropped").register(registry);
    }

    /** Meters in {@code registry}, or ones that count nowhere when it is {@code null}. */
    public static RpcServerMeters of(MeterRegistry registry) {
        return registry == null ? NONE : new RpcServerMeters(registry);
    }

    public void replied(RpcReplyHeader header) {
        if (header instanceof RpcReplyHeader.Accepted a) {
            accepted.get(a.stat()).increment();
        } else if (((RpcReplyHeader.Denied) header).rejectStat() == RpcConstants.RPC_MISMATCH) {
            rpcMismatch.increment();
        } else {
            authError.increment();
        }
    }

    public void dropped() {
        dropped.increment();
    }
}
