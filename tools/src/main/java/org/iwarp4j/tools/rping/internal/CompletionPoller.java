package org.iwarp4j.tools.rping.internal;

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
 * ("cq completion failed status ..."), except a flush caused by the peer's disconnect, which is
 * reported as such.
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
                if (c.status() == WorkCompletionStatus.FLUSHED && c.terminateReason() == null) {
                    throw RpingFailure.disconnected("the peer disconnected while this end waited for " + what);
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
