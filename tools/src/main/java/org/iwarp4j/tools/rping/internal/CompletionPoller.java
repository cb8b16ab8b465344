package org.iwarp4j.tools.rping.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.rdmap.WorkCompletionOpcode;
import org.iwarp4j.rdmap.WorkCompletionStatus;

/**
 * rping's completion handler ({@code rping_cq_event_handler}) turned into a blocking wait: takes
 * completions off the one completion queue until the one rping's state machine waits for arrives.
 * Successful Send completions are only logged, as rping does; any failed completion ends the run
 * ("cq completion failed status ..."), except one the peer's disconnect caused, which is reported
 * as such: a flush, or a FATAL completion whose cause is the connection's I/O failing under it (a
 * reset, a write pending when the peer's FIN closed the connection), both without a Terminate.
 * Which of the two a peer's close gives depends on where this end's work was at that moment, so
 * both are rping's DISCONNECT event, as on Linux, where rping ignores flush errors and follows the
 * connection manager's DISCONNECTED event.
 */
public final class CompletionPoller {

    private final CompletionQueue completionQueue;
    private final Duration timeout;
    private final RpingLog log;

    /** @param timeout the longest wait for one completion; {@code null} waits for ever, as rping does */
    public CompletionPoller(CompletionQueue completionQueue, Duration timeout, RpingLog log) {
        this.completionQueue = completionQueue;
        this.timeout = timeout;
        this.log = log;
    }

    /** Waits for the next completion of kind {@code wanted}; {@code what} names it in errors. */
    public WorkCompletion await(WorkCompletionOpcode wanted, String what) throws RpingFailure, InterruptedException {
        while (true) {
            WorkCompletion c = timeout == null ? completionQueue.take()
                    : completionQueue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (c == null) {
                throw new RpingFailure("no completion within " + timeout.toMillis() + " ms while waiting for " + what);
            }
            if (!c.isSuccess()) {
                if (c.terminateReason() == null && c.status() == WorkCompletionStatus.FLUSHED) {
                    throw RpingFailure.disconnected("the peer disconnected while this end waited for " + what);
                }
                if (c.terminateReason() == null && c.status() == WorkCompletionStatus.FATAL
                        && c.failureCause() instanceof IOException) {
                    // Not a RuntimeException of this stack's: the connection itself failed.
                    throw RpingFailure.disconnected("the peer disconnected (" + c.failureCause().getMessage()
                            + ") while this end waited for " + what);
                }
                throw new RpingFailure("cq completion failed status " + c.status()
                        + (c.terminateReason() != null ? " (" + c.terminateReason() + ")" : "")
                        + " while waiting for " + what);
            }
            if (c.opcode() == wanted) {
                log.debug(describe(wanted));
                return c;
            }
            if (c.opcode() != WorkCompletionOpcode.SEND) {
                throw new RpingFailure("unexpected " + describe(c.opcode()) + " while waiting for " + what);
            }
            log.debug(describe(WorkCompletionOpcode.SEND));
        }
    }

    /** rping's debug words for each completion. */
    private static String describe(WorkCompletionOpcode opcode) {
        switch (opcode) {
            case SEND:
                return "send completion";
            case RECEIVE:
                return "recv completion";
            case RDMA_READ:
                return "rdma read completion";
            case RDMA_WRITE:
                return "rdma write completion";
            default:
                return opcode + " completion";
        }
    }
}
