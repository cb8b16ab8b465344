package org.iwarp4j.ddp;

/**
 * Access rights of a registered {@link TaggedBuffer} (RFC 5041 §8.3.1 #5: read, write, or read and
 * write access). A tagged access names the right it needs; the buffer must have been registered
 * with it.
 */
public enum Access {
    /** The local ULP may have data placed into the buffer: receive buffers, RDMA Read Response sinks. */
    LOCAL_WRITE,
    /** The remote peer may read the buffer: source of an RDMA Read Response. */
    REMOTE_READ,
    /** The remote peer may write the buffer: target of an RDMA Write. */
    REMOTE_WRITE
}
