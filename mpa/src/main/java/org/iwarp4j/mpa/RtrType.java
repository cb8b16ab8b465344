package org.iwarp4j.mpa;

/**
 * The ready-to-receive (RTR) indications of RFC 6581 §9: the zero-length RDMA message an
 * Initiator sends first in the peer-to-peer model, so that the Responder may start sending.
 */
public enum RtrType {
    /** B: a zero-length Send, which consumes a posted Receive at the Responder. */
    SEND,
    /** C: a zero-length RDMA Write (siw sends STag 0, TO 0). */
    WRITE,
    /** D: a zero-length RDMA Read Request, answered with a zero-length Read Response. */
    READ
}
