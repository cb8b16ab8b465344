package org.iwarp4j.nfs.binding;

import java.util.Objects;

/**
 * One XDR data item an Upper-Layer Binding makes DDP-eligible (RFC 8166 §3.4.2, §6): a sender may
 * move it out of the Payload stream into a chunk. An {@link Direction#ARGUMENT} travels in a Read
 * chunk (the server pulls it with RDMA Read), a {@link Direction#RESULT} in a Write chunk (the
 * server pushes it with RDMA Write). Everything not listed in a binding MUST NOT be reduced.
 *
 * @param operation the procedure or NFSv4 operation, in the RFC's words ("WRITE", "CREATE")
 * @param direction whether the item is in the Call's arguments or the Reply's results
 * @param xdrItem the item as RFC 8267 names it ("opaque data field in the WRITE4args structure")
 * @param union the union arm the item lives in, or {@code null} when it is not in a union
 */
public record DdpEligibleItem(String operation, Direction direction, String xdrItem, String union) {

    /** Where a DDP-eligible item travels. */
    public enum Direction {
        /** In a Call: a Read chunk, at the item's XDR Position (RFC 8166 §3.4.5). */
        ARGUMENT,
        /** In a Reply: a Write chunk the client provided (RFC 8166 §3.4.6). */
        RESULT
    }

    public DdpEligibleItem {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(direction, "direction");
        Objects.requireNonNull(xdrItem, "xdrItem");
    }

    static DdpEligibleItem argument(String operation, String xdrItem) {
        return new DdpEligibleItem(operation, Direction.ARGUMENT, xdrItem, null);
    }

    static DdpEligibleItem result(String operation, String xdrItem) {
        return new DdpEligibleItem(operation, Direction.RESULT, xdrItem, null);
    }

    static DdpEligibleItem argumentInArm(String operation, String xdrItem, String union) {
        return new DdpEligibleItem(operation, Direction.ARGUMENT, xdrItem, union);
    }
}
