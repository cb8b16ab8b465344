package org.iwarp4j.rpcrdma.internal;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.iwarp4j.oncrpc.internal.ServerCallBudget;

/**
 * Takes one connection's Calls into service as the server's {@link ServerCallBudget} allows: a
 * Call starts at once when the server has room and none of this connection's Calls waits before
 * it; otherwise it waits here, in order, and the connection waits in the server's queue. A
 * started Call holds its place until {@link #ended()}; the Responder calls that exactly once per
 * started Call, when it is answered or never will be.
 *
 * <p>What waits is bounded by the connection's credits (a Requester past twice its grant loses the
 * connection before its Call gets here, RPC-R-003), each an inline message of at most the receive
 * size. Waking happens on whatever thread freed the room; the waiting Calls then start on {@code
 * wakeExecutor}, never under a lock another connection's wake could need.
 *
 * @param <C> a Call as the Responder took it in
 */
final class CallAdmission<C> implements ServerCallBudget.Waiter {

    private final ServerCallBudget budget;
    private final Executor wakeExecutor;
    private final Consumer<C> start;
    private final Consumer<C> drop;
    // Guarded by itself:
    private final ArrayDeque<C> waiting = new ArrayDeque<>();
    private boolean closed;

    /** Calls start with {@code start}; those still waiting when the connection closes go to {@code drop}. */
    CallAdmission(ServerCallBudget budget, Executor wakeExecutor, Consumer<C> start, Consumer<C> drop) {
        this.budget = budget;
        this.wakeExecutor = wakeExecutor;
        this.start = start;
        this.drop = drop;
    }

    /** Starts {@code call} now, or queues it behind this connection's earlier ones. */
    void offer(C call) {
        boolean late;
        synchronized (waiting) {
            late = closed;
            if (!late && (!waiting.isEmpty() || !budget.tryStart(this))) {
                waiting.add(call);
                return;
            }
        }
        (late ? drop : start).accept(call);
    }

    /** A started Call was answered (or never will be): its place in the server is free. */
    void ended() {
        budget.callEnded();
    }

    @Override
    public void budgetFreed() {
        try {
            wakeExecutor.execute(this::startWaiting);
        } catch (RejectedExecutionException e) {
            budget.forget(this); // the server is closing
        }
    }

    private void startWaiting() {
        while (true) {
            C next;
            synchronized (waiting) {
                if (closed || waiting.isEmpty()) {
                    budget.forget(this);
                    return;
                }
                if (!budget.tryStart(this)) {
                    return; // still in the server's queue
                }
                next = waiting.poll();
            }
            start.accept(next);
        }
    }

    /** The connection is gone: the Calls still waiting are dropped, and the connection leaves the server's queue. */
    void close() {
        ArrayDeque<C> dropped;
        synchronized (waiting) {
            closed = true;
            dropped = new ArrayDeque<>(waiting);
            waiting.clear();
        }
        budget.forget(this);
        dropped.forEach(drop);
    }

    /** Calls of this connection waiting for room in the server. */
    int waiting() {
        synchronized (waiting) {
            return waiting.size();
        }
    }
}
