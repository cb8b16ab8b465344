package org.iwarp4j.rdmap;

/** How a work request ended, in the words of ibv_wc_status where RDMA users know them. */
public enum WorkCompletionStatus {
    /** Done: for a Send or Write, the data was handed to TCP (RFC 5040 §5.5); for a Read, placed. */
    SUCCESS,
    /**
     * A local gather/scatter list was longer or shorter than the operation allows, or one of its
     * elements ends past its region (a Send's, Write's or Read's, or a receive's: nothing is sent
     * or posted), or an RDMA Write's remote tagged offset plus its length passes 2^64 (nothing is
     * sent).
     */
    LOCAL_LENGTH_ERROR,
    /**
     * A local memory region does not grant the access, or is no longer valid; or the connection
     * does not grant the operation: an RDMA Read posted before a connection that negotiated ORD 0
     * (no Read may be outstanding, RFC 6581 §9.1; nothing is sent).
     */
    LOCAL_PROTECTION_ERROR,
    /** The peer refused access to its memory (a Terminate with a tagged-buffer or protection error). */
    REMOTE_ACCESS_ERROR,
    /** The peer could not carry out the operation (no receive posted, message too long, ...). */
    REMOTE_OPERATION_ERROR,
    /** The queue pair went to ERROR before this work request finished (RFC 5040 §6.2.1). */
    FLUSHED,
    /** The connection failed under the stack (TCP lost, CRC or marker error, Terminate for a local error). */
    FATAL
}
