package org.iwarp4j.rpcrdma.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes an RPC-over-RDMA connection that has been idle for the idle timeout: no Call in service,
 * no RDMA work outstanding, and nothing received or sent for that long. The clock starts when the
 * connection is established, so a peer that never sends its first message is closed too. The close
 * is graceful (RFC 5040 §6.2: nothing is outstanding, so the queue pair closes its TCP connection at
 * once); the Requester sees its connection end and may connect again (RFC 8166 §4.5.5 when it has
 * work to do).
 */
public final class IdleTimeout extends EndpointWatch {

    private static final Logger log = LoggerFactory.getLogger(IdleTimeout.class);

    private final BooleanSupplier busy;
    private final long idleNanos;
    private final Runnable onIdle;

    private IdleTimeout(RdmaEndpoint endpoint, BooleanSupplier busy, long idleNanos, Runnable onIdle) {
        super(endpoint);
        this.busy = busy;
        this.idleNanos = idleNanos;
        this.onIdle = onIdle;
    }

    /**
     * Watches {@code endpoint} from now on (call it once the connection is established).
     * {@code busy} says whether the ULP has work in service; {@code onIdle} is told before the close.
     * A zero {@code idle} watches nothing.
     */
    public static void watch(RdmaEndpoint endpoint, BooleanSupplier busy, Duration idle, Runnable onIdle) {
        if (idle.isZero()) {
            return;
        }
        endpoint.active();
        new IdleTimeout(endpoint, busy, idle.toNanos(), onIdle).start(idle.toNanos());
    }

    @Override
    long check() {
        if (busy.getAsBoolean() || endpoint.outstandingWork() > 0) {
            return idleNanos;
        }
        long quiet = System.nanoTime() - endpoint.lastActivityNanos();
        if (quiet < idleNanos) {
            return idleNanos - quiet;
        }
        log.debug("RPC-over-RDMA connection {} idle for {} ms; closing it", endpoint.queuePair(),
                TimeUnit.NANOSECONDS.toMillis(quiet));
        onIdle.run();
        endpoint.close();
        return DONE;
    }
}
