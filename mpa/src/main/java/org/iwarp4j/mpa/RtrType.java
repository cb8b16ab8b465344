package org.iwarp4j.mpa;

/**
 * The ready-to-receive (RTR) indications of RFC 6581 §9: the zero-length RDMA message an
 * Initiator sends first in the peer-to-peer model, so that the Responder may start sending.
 */
public enum RtrType {
    /** B: a zero-length Send, which consumes a posted Receive at the Responder. */
    SEND,
    /**
     * C: a zero-length RDMA Write. iwarp4j sends it with STag 1 and TO 0, as Linux siw does
     * ({@code siw_qp_mpa_rts}): a receiver must not check them (RFC 5041 §5.2), but some hardware
     * treats STag 0 specially (docs/interop.md).
     */
    WRITE,
    /**
     * D: a zero-length RDMA Read Request, answered with a zero-length Read Response. iwarp4j
     * sends sink and source STag 1 (docs/interop.md). Chelsio's iw_cxgb4 offers this type only by
     * default ({@code p2p_type} module parameter, {@code send_mpa_req}).
     */
    READ
}
