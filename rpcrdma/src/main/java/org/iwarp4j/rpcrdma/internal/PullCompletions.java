package org.iwarp4j.rpcrdma.internal;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Responder's responder-provided Read chunks waiting to be pulled
 * (draft-cel-nfsv4-rpcrdma-reliable-reply-02 §4.1.3): each is exposed read-only until the Requester
 * sends pull-completion notification (RDMA_DONE with the Reply's XID) or until the timeout passes
 * (RRC-R-011), then invalidated and deregistered. A notification for an XID with nothing waiting is
 * dropped (RRC-R-009).
 */
final class PullCompletions {

    private static final Logger log = LoggerFactory.getLogger(PullCompletions.class);
    private static final HashedWheelTimer TIMER = new HashedWheelTimer(r -> {
        Thread t = new Thread(r, "rpcrdma-pull-timeout");
        t.setDaemon(true);
        return t;
    }, 10, TimeUnit.MILLISECONDS);

    private record Waiting(Registrations registrations, Runnable released, Timeout timeout) {
    }

    private final Map<Integer, Waiting> waiting = new ConcurrentHashMap<>();
    private final Duration timeout;
    private volatile long timedOut;
    private volatile long completed;
    private volatile java.util.function.IntConsumer onExpiry = xid -> { };

    PullCompletions(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * Keeps {@code registrations} readable for the Reply with {@code xid} until notified or timed
     * out; {@code released} runs once they are released in any way: pulled (RDMA_DONE), expired,
     * replaced by another Reply with the same XID, or dropped with the connection.
     */
    void await(int xid, Registrations registrations, Runnable released) {
        Timeout t = TIMER.newTimeout(x -> expire(xid), timeout.toNanos(), TimeUnit.NANOSECONDS);
        Waiting previous = waiting.put(xid, new Waiting(registrations, released, t));
        if (previous != null) {
            previous.timeout().cancel();
            previous.registrations().release();
            previous.released().run();
        }
    }

    /** RDMA_DONE for {@code xid}: true if something was waiting (and is now released). */
    boolean completed(int xid) {
        Waiting w = waiting.remove(xid);
        if (w == null) {
            return false;
        }
        w.timeout().cancel();
        w.registrations().release();
        completed++;
        w.released().run();
        return true;
    }

    private void expire(int xid) {
        Waiting w = waiting.remove(xid);
        if (w != null) {
            log.debug("no pull completion for xid 0x{} within {}; invalidating its Read chunk",
                    Integer.toHexString(xid), timeout);
            w.registrations().release();
            timedOut++;
            w.released().run();
            onExpiry.accept(xid);
        }
    }

    /** Told the XID of each Read chunk invalidated for want of pull completion (after the invalidation). */
    void onExpiry(java.util.function.IntConsumer listener) {
        this.onExpiry = listener;
    }

    /** Releases everything (the connection is gone). */
    void closeAll() {
        for (Integer xid : Map.copyOf(waiting).keySet()) {
            Waiting w = waiting.remove(xid);
            if (w != null) {
                w.timeout().cancel();
                w.registrations().release();
                w.released().run();
            }
        }
    }

    int waitingCount() {
        return waiting.size();
    }

    long timedOut() {
        return timedOut;
    }

    long completedCount() {
        return completed;
    }
}
