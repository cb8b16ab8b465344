package org.iwarp4j.rpcrdma.internal;

import io.netty.util.HashedWheelTimer;
import java.util.concurrent.TimeUnit;

/**
 * The timer of the connection limits (RDMA Read bound, idle timeout) and of a Requester's delayed
 * connection attempts: one daemon thread for every connection of the process. Its tasks only look
 * at state, close connections and start connecting; they never block.
 */
final class LimitTimers {

    static final HashedWheelTimer TIMER = new HashedWheelTimer(r -> {
        Thread t = new Thread(r, "rpcrdma-limits");
        t.setDaemon(true);
        return t;
    }, 10, TimeUnit.MILLISECONDS);

    private LimitTimers() {
    }
}
