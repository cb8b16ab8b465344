package org.iwarp4j.rpcrdma.internal;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A Responder's RPC-over-RDMA meters, in its RNIC's registry ({@link org.iwarp4j.rdmap.Rnic#meterRegistry()}),
 * shared by the connections of one server (thread-safe):
 *
 * <ul>
 *   <li>{@code iwarp.rpcrdma.credits.granted}: a distribution, one sample per connection: the
 *       credits this Responder grants in every message (RFC 8166 §3.3.1, RPC-R-005), that is how
 *       many Calls the Requester may have outstanding (RPC-R-003).
 *   <li>{@code iwarp.rpcrdma.credits.in.use}: a distribution, one sample per Call received: how
 *       many Calls of its connection (it included) this end has received and not yet answered
 *       (its Reply or RDMA_ERROR sent, or the connection lost). That is the credits the Requester
 *       is using as the Responder sees them; its maximum is the depth the pipeline reached, at most
 *       the grant while the Requester keeps to it. It counts from the Call's receipt, so it includes
 *       the RDMA Reads of its Read chunks, which {@code iwarp.oncrpc.calls.in.progress} does not.
 * </ul>
 *
 * <p>knfsd shows the same two figures per connection as {@code sc_max_requests} and the
 * {@code svc_rdma_recv_ctxt}s in use.
 */
public final class ResponderMeters {

    private static final ResponderMeters NONE = new ResponderMeters(null, null);

    private final DistributionSummary granted;
    private final DistributionSummary inUse;

    private ResponderMeters(DistributionSummary granted, DistributionSummary inUse) {
        this.granted = granted;
        this.inUse = inUse;
    }

    /** Meters in {@code registry}, or ones that record nothing when it is {@code null}. */
    public static ResponderMeters of(MeterRegistry registry) {
        if (registry == null) {
            return NONE;
        }
        return new ResponderMeters(
                DistributionSummary.builder("iwarp.rpcrdma.credits.granted")
                        .description("Credits a Responder grants, one sample per connection")
                        .baseUnit("credits").register(registry),
                DistributionSummary.builder("iwarp.rpcrdma.credits.in.use")
                        .description("Calls of the connection received and not yet answered when one arrives, it included")
                        .baseUnit("credits").register(registry));
    }

    void connected(int credits) {
        if (granted != null) {
            granted.record(credits);
        }
    }

    void callReceived(int unanswered) {
        if (inUse != null) {
            inUse.record(unanswered);
        }
    }
}
