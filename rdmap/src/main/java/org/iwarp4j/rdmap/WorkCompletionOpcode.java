package org.iwarp4j.rdmap;

/** What a completed work request did. */
public enum WorkCompletionOpcode {
    SEND,
    RDMA_WRITE,
    RDMA_READ,
    LOCAL_INVALIDATE,
    /** A Send (any of the four Send types) was received into a posted receive. */
    RECEIVE
}
