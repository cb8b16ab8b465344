package org.iwarp4j.oncrpc.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.RpcConstants;

import java.util.EnumMap;
import java.util.Map;

/**
 * The dispatcher's meters: {@code iwarp.oncrpc.replies} with tag {@code stat} (the accept_stat
 * of accepted replies, or RPC_MISMATCH / AUTH_ERROR for denied ones),
 * {@code iwarp.oncrpc.dropped} for messages that could not be answered, {@code
 * iwarp.oncrpc.duplicates} with tag {@code outcome} ({@code replayed}, {@code dropped}) for
 * retransmissions the duplicate request cache caught ({@code iwarp.oncrpc.duplicates.waited}: those
 * that came while the first was in progress, counted on arrival), and per transport (tag
 * {@code transport}, {@link org.iwarp4j.oncrpc.RpcTransportInfo#name()}: {@code tcp}, {@code rdma})
 * the calls in progress: the gauge {@code iwarp.oncrpc.calls.active} (handed to the dispatcher,
 * reply not yet complete) and the distribution {@code iwarp.oncrpc.calls.in.progress}, one sample
 * per call dispatched, of how many calls of that transport (it included) were then in progress
 * (knfsd's threads-busy figure, per transport). Its maximum and mean are the depth the clients'
 * pipelines reached at this server, whatever the transport; the transport's own time before
 * dispatch (an RPC-over-RDMA Call's Read chunks) is not in it.
 */
public final class RpcServerMeters {

    private static final RpcServerMeters NONE = new RpcServerMeters(new CompositeMeterRegistry(), false);

    private final Map<AcceptStat, Counter> accepted = new EnumMap<>(AcceptStat.class);
    private final Counter rpcMismatch;
    private final Counter authError;
    private final Counter dropped;
    private final Counter replayed;
    private final Counter duplicatesDropped;
    private final Counter duplicatesWaited;
    private final MeterRegistry registry;
    private final java.util.concurrent.ConcurrentMap<String, InProgress> inProgress =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** One transport's calls in progress and their distribution. */
    public static final class InProgress {
        private final java.util.concurrent.atomic.AtomicInteger active = new java.util.concurrent.atomic.AtomicInteger();
        private final DistributionSummary depth;

        private InProgress(MeterRegistry registry, String transport) {
            Gauge.builder("iwarp.oncrpc.calls.active", active, java.util.concurrent.atomic.AtomicInteger::get)
                    .tag("transport", transport).strongReference(true)
                    .description("Calls handed to the dispatcher whose reply is not yet complete").register(registry);
            depth = DistributionSummary.builder("iwarp.oncrpc.calls.in.progress").tag("transport", transport)
                    .description("Calls of the transport in progress when one is dispatched, it included")
                    .baseUnit("calls").register(registry);
        }

        /** A call begins. */
        public void begin() {
            depth.record(active.incrementAndGet());
        }

        /** One of the calls begun has its reply (or failed). */
        public void end() {
            active.decrementAndGet();
        }
    }

    private RpcServerMeters(MeterRegistry registry, boolean metered) {
        this.registry = metered ? registry : null;
        for (AcceptStat stat : AcceptStat.values()) {
            accepted.put(stat, Counter.builder("iwarp.oncrpc.replies").tag("stat", stat.name()).register(registry));
        }
        rpcMismatch = Counter.builder("iwarp.oncrpc.replies").tag("stat", "RPC_MISMATCH").register(registry);
        authError = Counter.builder("iwarp.oncrpc.replies").tag("stat", "AUTH_ERROR").register(registry);
        dropped = Counter.builder("iwarp.oncrpc.dropped").register(registry);
        replayed = Counter.builder("iwarp.oncrpc.duplicates").tag("outcome", "replayed")
                .description("Retransmissions answered with the first transmission's reply").register(registry);
        duplicatesDropped = Counter.builder("iwarp.oncrpc.duplicates").tag("outcome", "dropped")
                .description("Retransmissions dropped: the first transmission's reply was not kept").register(registry);
        duplicatesWaited = Counter.builder("iwarp.oncrpc.duplicates.waited")
                .description("Retransmissions that arrived while the first transmission was still in progress")
                .register(registry);
    }

    /** Meters in {@code registry}, or ones that count nowhere when it is {@code null}. */
    public static RpcServerMeters of(MeterRegistry registry) {
        return registry == null ? NONE : new RpcServerMeters(registry, true);
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

    /**
     * The calls in progress of {@code transport}, or {@code null} when these meters count nowhere.
     * A transport name comes from this process's transports, never from a peer, so the meters are bounded.
     */
    public InProgress inProgress(String transport) {
        return registry == null ? null : inProgress.computeIfAbsent(transport, t -> new InProgress(registry, t));
    }

    public void dropped() {
        dropped.increment();
    }

    /** A retransmission of a non-idempotent call arrived while the first was in progress: it waits for its reply. */
    public void duplicateWaits() {
        duplicatesWaited.increment();
    }

    /** A retransmission of a non-idempotent call was answered from the duplicate request cache, or dropped. */
    public void duplicate(boolean replayedReply) {
        (replayedReply ? replayed : duplicatesDropped).increment();
    }
}
