package org.iwarp4j.rdmap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.iwarp4j.rdmap.internal.qp.EngineMeters;
import org.iwarp4j.rdmap.internal.wire.RdmapOpcode;

/**
 * RDMAP's meters, one instance per {@link Rnic}, shared by its queue pairs (thread-safe):
 *
 * <ul>
 *   <li>{@code iwarp.rdmap.messages}: RDMA Messages (RFC 5040 §4.1 Fig. 4), one per message
 *       whatever its segment count, tags {@code direction} tx/rx and {@code opcode}
 *       (rdma_write, rdma_read_request, rdma_read_response, send, send_with_invalidate,
 *       send_with_se, send_with_se_and_invalidate, terminate). A received message counts once its
 *       last segment was placed without error.
 *   <li>{@code iwarp.rdmap.completions}: work completions delivered, tags {@code opcode} and
 *       {@code status} (the lower-case names of {@link WorkCompletionOpcode} and {@link
 *       WorkCompletionStatus}); an unsignalled request that succeeds produces none and is not
 *       counted ({@link SendWorkRequest#withSignalled}).
 *   <li>{@code iwarp.rdmap.terminates}: Terminate messages (§4.8), tags {@code direction},
 *       {@code layer} (rdmap, ddp, llp) and {@code type} (the error type's name in that layer's
 *       table, e.g. remote_protection_error, tagged_buffer_error, mpa). A peer's numbers are
 *       4 bits each, so a peer can create at most 256 such meters.
 *   <li>{@code iwarp.rdmap.wake.up.writes}: zero-length RDMA Writes sent because a Responder
 *       stayed silent after our first FPDU ({@link QueuePairSettings.Builder#wakeUpWriteAfter});
 *       each is also counted as a sent rdma_write message.
 *   <li>{@code iwarp.rdmap.terminates.withheld}: Terminates that were due but not sent because
 *       MPA forbade it (a Responder before the Initiator's first valid FPDU, MPA-R-061); the
 *       connection is closed at once instead. Not counted in {@code iwarp.rdmap.terminates}.
 *   <li>{@code iwarp.rdmap.terminate.close.timeouts}: connections closed by {@link
 *       QueuePairSettings.Builder#terminateCloseTimeout} because the Terminate had not been
 *       written by then.
 *   <li>{@code iwarp.rdmap.connections.refused}: connections a {@link Listener} closed as soon as
 *       they were accepted because a cap was reached, tag {@code cap} ({@code listener},
 *       {@code address}; see {@link Rnic.Builder#maxConnectionsPerListener}).
 *   <li>{@code iwarp.rdmap.reads.outstanding}: a distribution, one sample per RDMA Read Request
 *       a work request sends: how many Reads of its queue pair (it included) then wait for their
 *       Read Response. Its maximum is the depth a Responder's Reads reached, at most the ORD MPA
 *       negotiated (RFC 6581 §9.1); a maximum of 1 under load means the Reads went one at a time.
 *   <li>{@code iwarp.rdmap.reads.waited.ord}: posted RDMA Reads that waited because ORD Reads
 *       were already outstanding on their queue pair (they go out as Read Responses come back).
 * </ul>
 */
final class RdmapMeters implements EngineMeters {

    private static final RdmapOpcode[] OPCODES = RdmapOpcode.values();
    private static final WorkCompletionStatus[] STATUSES = WorkCompletionStatus.values();

    static final RdmapMeters NONE = new RdmapMeters(nowhere());

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

    private final MeterRegistry registry;
    private final Counter[] sent = new Counter[OPCODES.length];
    private final Counter[] received = new Counter[OPCODES.length];
    private final Counter[][] completions =
            new Counter[WorkCompletionOpcode.values().length][STATUSES.length];
    private final ConcurrentMap<Integer, Counter> terminates = new ConcurrentHashMap<>();
    private final Counter wakeUpWrites;
    private final Counter terminatesWithheld;
    private final Counter terminateCloseTimeouts;
    private final Counter refusedByListenerCap;
    private final Counter refusedByAddressCap;
    private final DistributionSummary readsOutstanding;
    private final Counter readsWaitedForOrd;

    private RdmapMeters(MeterRegistry registry) {
        this.registry = registry;
        this.wakeUpWrites = Counter.builder("iwarp.rdmap.wake.up.writes")
                .description("Zero-length RDMA Writes sent to a Responder silent after our first FPDU")
                .register(registry);
        this.terminatesWithheld = Counter.builder("iwarp.rdmap.terminates.withheld")
                .description("Terminates due but not sent: MPA did not yet allow this Responder to send")
                .register(registry);
        this.terminateCloseTimeouts = Counter.builder("iwarp.rdmap.terminate.close.timeouts")
                .description("Connections closed because their Terminate was not written in time")
                .register(registry);
        this.refusedByListenerCap = refused(registry, "listener");
        this.refusedByAddressCap = refused(registry, "address");
        this.readsOutstanding = DistributionSummary.builder("iwarp.rdmap.reads.outstanding")
                .description("RDMA Reads of the queue pair awaiting their Read Response when one is sent, it included")
                .baseUnit("reads").register(registry);
        this.readsWaitedForOrd = Counter.builder("iwarp.rdmap.reads.waited.ord")
                .description("RDMA Reads that waited because ORD Reads were outstanding")
                .register(registry);
        for (RdmapOpcode opcode : OPCODES) {
            sent[opcode.ordinal()] = message(registry, "tx", opcode);
            received[opcode.ordinal()] = message(registry, "rx", opcode);
        }
        for (WorkCompletionOpcode opcode : WorkCompletionOpcode.values()) {
            for (WorkCompletionStatus status : STATUSES) {
                completions[opcode.ordinal()][status.ordinal()] = Counter.builder("iwarp.rdmap.completions")
                        .tag("opcode", name(opcode)).tag("status", name(status))
                        .description("Work completions").register(registry);
            }
        }
    }

    /** Meters in {@code registry}, or ones that count nowhere when it is {@code null}. */
    static RdmapMeters of(MeterRegistry registry) {
        return registry == null ? NONE : new RdmapMeters(registry);
    }

    private static Counter message(MeterRegistry registry, String direction, RdmapOpcode opcode) {
        return Counter.builder("iwarp.rdmap.messages").tag("direction", direction).tag("opcode", name(opcode))
                .description("RDMA Messages").register(registry);
    }

    private static Counter refused(MeterRegistry registry, String cap) {
        return Counter.builder("iwarp.rdmap.connections.refused").tag("cap", cap)
                .description("Connections closed at accept: a listener's connection cap was reached")
                .register(registry);
    }

    void connectionRefused(ConnectionLimits.Cap cap) {
        (cap == ConnectionLimits.Cap.SERVER ? refusedByListenerCap : refusedByAddressCap).increment();
    }

    @Override
    public void sent(RdmapOpcode opcode) {
        sent[opcode.ordinal()].increment();
    }

    @Override
    public void received(RdmapOpcode opcode) {
        received[opcode.ordinal()].increment();
    }

    void completed(WorkCompletion completion) {
        completions[completion.opcode().ordinal()][completion.status().ordinal()].increment();
    }

    @Override
    public void readIssued(int outstanding) {
        readsOutstanding.record(outstanding);
    }

    @Override
    public void readWaitedForOrd() {
        readsWaitedForOrd.increment();
    }

    @Override
    public void wakeUpWriteSent() {
        wakeUpWrites.increment();
    }

    @Override
    public void terminateWithheld() {
        terminatesWithheld.increment();
    }

    @Override
    public void terminateCloseTimedOut() {
        terminateCloseTimeouts.increment();
    }

    @Override
    public void terminateSent(TerminateReason reason) {
        sent(RdmapOpcode.TERMINATE);
        terminate(true, reason);
    }

    @Override
    public void terminateReceived(TerminateReason reason) {
        received(RdmapOpcode.TERMINATE);
        terminate(false, reason);
    }

    private void terminate(boolean tx, TerminateReason reason) {
        int key = (tx ? 1 << 8 : 0) | reason.layerCode() << 4 | reason.errorType();
        terminates.computeIfAbsent(key, k -> Counter.builder("iwarp.rdmap.terminates")
                .tag("direction", tx ? "tx" : "rx")
                .tag("layer", tagValue(reason.layerName()))
                .tag("type", tagValue(reason.errorTypeName()))
                .description("Terminate messages").register(registry)).increment();
    }

    private static String name(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    /** {@code Remote Protection Error} -> {@code remote_protection_error}, {@code Layer 0x5} -> {@code layer_0x5}. */
    static String tagValue(String words) {
        return words.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
    }
}
