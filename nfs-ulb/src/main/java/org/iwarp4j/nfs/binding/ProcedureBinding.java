package org.iwarp4j.nfs.binding;

import java.util.List;
import java.util.Objects;

/**
 * One row of an Upper-Layer Binding table: an RPC procedure (or an NFSv4 callback operation) with
 * its DDP-eligible items and its reply size estimate.
 *
 * @param number the procedure number
 * @param name the procedure's name in its RFC ("READ", "GETACL")
 * @param ddpEligible the items that may be reduced; empty: nothing may be (RFC 8166 §6.1)
 * @param replySize how the client bounds the result (RFC 8267 §3)
 * @param shortReplyChunkRetry whether the binding allows a retry with a larger Reply chunk and a
 *                             new XID after a reply resource overrun (RFC 8267 §3.1)
 */
public record ProcedureBinding(int number, String name, List<DdpEligibleItem> ddpEligible,
                               ReplySizeEstimate replySize, boolean shortReplyChunkRetry) {

    public ProcedureBinding {
        Objects.requireNonNull(name, "name");
        ddpEligible = List.copyOf(ddpEligible);
        Objects.requireNonNull(replySize, "replySize");
    }

    static ProcedureBinding of(int number, String name, ReplySizeEstimate replySize, DdpEligibleItem... items) {
        return new ProcedureBinding(number, name, List.of(items), replySize, false);
    }

    /** Whether a Call of this procedure may carry a Read chunk at a non-zero Position. */
    public boolean hasEligibleArgument() {
        return has(DdpEligibleItem.Direction.ARGUMENT);
    }

    /** Whether a Write chunk may be provided for this procedure's result. */
    public boolean hasEligibleResult() {
        return has(DdpEligibleItem.Direction.RESULT);
    }

    /**
     * A plain loop, no stream: both ends of RPC-over-RDMA ask this several times per RPC, too few
     * times for the JIT to compile a stream pipeline away (docs/performance-log.md, sixth session).
     */
    private boolean has(DdpEligibleItem.Direction direction) {
        for (int i = 0; i < ddpEligible.size(); i++) {
            if (ddpEligible.get(i).direction() == direction) {
                return true;
            }
        }
        return false;
    }

    /** The largest result in octets, inline (RFC 8267 §3). */
    public long maxResultOctets(long countArgument, ReplySizeLimits limits) {
        return replySize.maxOctets(countArgument, limits);
    }

    /**
     * Octets of the Write chunk the client provides for the eligible result (RFC 8166 §3.4.6: the
     * largest item, no roundup); 0 when the procedure has no eligible result.
     */
    public long writeChunkOctets(long countArgument, ReplySizeLimits limits) {
        return hasEligibleResult() ? replySize.variableOctets(countArgument, limits) : 0;
    }

    /** The largest result left in the Payload stream when the eligible result goes to a Write chunk. */
    public long reducedResultOctets(long countArgument, ReplySizeLimits limits) {
        return hasEligibleResult() ? replySize.reducedMaxOctets() : maxResultOctets(countArgument, limits);
    }
}
