package org.iwarp4j.rpcrdma.internal;

import io.netty.util.Timeout;
import java.util.concurrent.TimeUnit;

/**
 * A bound of time on one connection, checked on {@link LimitTimers#TIMER} for as long as the
 * connection is open: each check either acts on the connection or says when to look again.
 * The idle timeout and the reply send bound are two.
 */
abstract class EndpointWatch {

    /** Returned by {@link #check()} once the watch has acted: nothing to check any more. */
    static final long DONE = -1;

    final RdmaEndpoint endpoint;
    private volatile Timeout timeout;

    EndpointWatch(RdmaEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** Looks first after {@code delayNanos}, and never after the connection closed. */
    final void start(long delayNanos) {
        schedule(delayNanos);
        endpoint.closeFuture().whenComplete((q, e) -> timeout.cancel());
    }

    private void schedule(long delayNanos) {
        timeout = LimitTimers.TIMER.newTimeout(x -> {
            if (endpoint.isOpen()) {
                long next = check();
                if (next != DONE) {
                    schedule(next);
                }
            }
        }, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** Acts on the open connection (then {@link #DONE}), or answers the nanoseconds until the next look. */
    abstract long check();
}
