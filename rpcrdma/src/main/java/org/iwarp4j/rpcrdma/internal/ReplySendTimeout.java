package org.iwarp4j.rpcrdma.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts an RPC-over-RDMA connection whose posted work makes no progress for a bound of time:
 * Sends and RDMA Writes outstanding and none completed (RDMA Reads have their own bound, the RDMA
 * Read timeout). A Responder's Call keeps its place in the
 * server's Calls in service until its Reply's Send completes, and a Send completes once the socket
 * took its octets; a Requester that stops reading its TCP connection would otherwise hold its
 * places (and the Replies' memory) for as long as it stays connected, and the idle timeout never
 * fires while work is outstanding. The close is abortive (RFC 5040 §6.2's graceful close waits for
 * the very Sends that do not leave); the outstanding work completes as flushed, which answers the
 * Calls and gives their places back. ONC RPC over TCP's counterpart is
 * {@code RpcTcpServer.Builder.maxReplyWriteTime}. A Reply that cannot leave is a Reply this
 * Responder cannot send, and the connection is what it gives up then (RPC-R-069).
 */
public final class ReplySendTimeout extends EndpointWatch {

    private static final Logger log = LoggerFactory.getLogger(ReplySendTimeout.class);

    private final long boundNanos;
    private final Runnable onTimeout;

    private ReplySendTimeout(RdmaEndpoint endpoint, long boundNanos, Runnable onTimeout) {
        super(endpoint);
        this.boundNanos = boundNanos;
        this.onTimeout = onTimeout;
    }

    /**
     * Watches {@code endpoint} from now on; {@code onTimeout} is told before the abort. A zero
     * {@code bound} watches nothing.
     */
    public static void watch(RdmaEndpoint endpoint, Duration bound, Runnable onTimeout) {
        if (!bound.isZero()) {
            new ReplySendTimeout(endpoint, bound.toNanos(), onTimeout).start(bound.toNanos());
        }
    }

    @Override
    long check() {
        if (endpoint.sendsOutstanding() == 0) {
            return boundNanos;
        }
        long stalled = System.nanoTime() - endpoint.sendProgressNanos();
        if (stalled < boundNanos) {
            return boundNanos - stalled;
        }
        log.debug("RPC-over-RDMA connection {}: {} Sends and RDMA Writes made no progress for {} ms; aborting it",
                endpoint.queuePair(), endpoint.sendsOutstanding(), TimeUnit.NANOSECONDS.toMillis(stalled));
        onTimeout.run();
        endpoint.abort();
        return DONE;
    }
}
