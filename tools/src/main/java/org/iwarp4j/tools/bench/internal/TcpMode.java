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
    /**
     * Latency: every {@code size} octets are answered with {@code size} octets by an application
     * thread of the server, which blocks until the event loop has read them (as the RDMA
     * responder's thread blocks in its completion queue): the same thread hand-offs per round trip
     * as the RDMA ping-pong. It used to be answered on the event loop itself, two hand-offs fewer.
     */
    ECHO,
    /**
     * As {@link #SINK}, but the server copies every octet it reads into an application buffer the
     * size of the RDMA run's registered area (cyclically), as an application that needs the data
     * must: the honest baseline for RDMA's placement into registered memory.
     */
    SINK_COPY,
    /** As {@link #READ}, and the client copies every octet of the answers into such a buffer. */
    READ_COPY,
    /** As {@link #ECHO}, the server's application thread polling without sleeping (perftest's busy polling). */
    ECHO_BUSY,
    /**
     * As {@link #ECHO}, answered on the server's event loop itself: the reference for
     * {@code LoopbackBench send-lat}, whose RDMA ping-pong also answers on the event loops.
     */
    ECHO_ON_LOOP;

    boolean echo() {
        return this == ECHO || this == ECHO_BUSY;
    }

    /** Octets of the application buffer for a run whose largest message is {@code maxSize}: perftest's BUFF_SIZE. */
    static int applicationBuffer(int maxSize) {
        return Math.max(maxSize, org.iwarp4j.tools.bench.BenchSettings.CYCLE_BUFFER);
    }
}
