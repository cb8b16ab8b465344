package org.iwarp4j.tools.rping;

/**
 * The numbers of Linux rping (rdma-core {@code librdmacm/examples/rping.c}) that this rping keeps,
 * so that both programs size, count and address everything alike.
 */
public final class RpingConstants {

    /** rping's port: {@code cb->port = htobe16(7174)}. */
    public static final int DEFAULT_PORT = 7174;
    /** rping's ping data size without {@code -S}: {@code cb->size = 64} (the man page's "100" is stale). */
    public static final int DEFAULT_SIZE = 64;
    /**
     * The smallest {@code -S}: {@code RPING_MIN_BUFSIZE = sizeof(stringify(INT_MAX)) +
     * sizeof(RPING_MSG_FMT)}. No header rping.c includes defines {@code INT_MAX}, so the macro
     * stringifies to {@code "INT_MAX"}: 8 + 15 = 23.
     */
    public static final int MIN_SIZE = 23;
    /** The largest {@code -S}: rping refuses {@code size > RPING_BUFSIZE - 1} with {@code RPING_BUFSIZE} 64 KiB. */
    public static final int MAX_SIZE = 64 * 1024 - 1;
    /** {@code RPING_SQ_DEPTH}: the send queue depth. */
    public static final int SEND_QUEUE_DEPTH = 16;
    /** {@code max_recv_wr}: rping creates its queue pair with room for two receives and posts one. */
    public static final int RECEIVE_QUEUE_DEPTH = 2;
    /** The completion queue: {@code RPING_SQ_DEPTH * 2} entries, shared by both queues. */
    public static final int COMPLETION_QUEUE_CAPACITY = SEND_QUEUE_DEPTH * 2;
    /**
     * IRD and ORD: rping asks for {@code responder_resources = 1, initiator_depth = 1}, which siw
     * sends as the RFC 6581 word {@code 00010001} in both Request and Reply (rping-siw.pcap).
     */
    public static final int IRD = 1;
    public static final int ORD = 1;

    private RpingConstants() {
    }
}
