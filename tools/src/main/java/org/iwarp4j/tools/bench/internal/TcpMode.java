package org.iwarp4j.tools.bench.internal;

/**
 * What a plain-TCP comparison connection does; the client's first 8 octets name it and the
 * message size (big-endian): {@code mode(4) size(4)}.
 */
enum TcpMode {
    /** The server ends the comparison: it stops listening. */
    DONE,
    /** RDMA Write and Send: the server consumes the stream; at the client's end of stream it answers the octet count (8 octets). */
    SINK,
    /** RDMA Read: each 4-octet request is answered with {@code size} octets. */
    READ,
    /** Latency: every {@code size} octets are echoed. */
    ECHO
}
