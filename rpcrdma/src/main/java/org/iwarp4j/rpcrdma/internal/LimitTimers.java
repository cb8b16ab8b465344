package org.iwarp4j.rpcrdma.internal;

import io.netty.util.HashedWheelTimer;
import java.util.concurrent.TimeUnit;

/**
 * The timer of the connection limits (RDMA Read bound, idle timeout): one daemon thread for every
 * connection of the process. Its tasks only look at state and close connections; they never block.
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
