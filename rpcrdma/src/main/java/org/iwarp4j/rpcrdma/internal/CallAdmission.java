package org.iwarp4j.rpcrdma.internal;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.iwarp4j.oncrpc.internal.ServerCallBudget;

/**
 * Takes one connection's Calls into service as the server's {@link ServerCallBudget} allows: a
 * Call starts at once when the server has room for it (a place, its client's share, the octets
 * its Read chunks will pull) and none of this connection's Calls waits before it; otherwise it
 * waits here, in order, and the connection waits in the server's queue. A started Call holds its
 * {@link ServerCallBudget.Place place} until the Responder gives it back, exactly once per
 * started Call, when it is answered or never will be.
 *
 * <p>What waits is bounded by the connection's credits (a Requester past twice its grant loses the
 * connection before its Call gets here, RPC-R-003), each an inline message of at most the receive
 * size; so is what one connection has in service. Waking happens on whatever thread freed the
 * room; the waiting Calls then start on {@code wakeExecutor}, never under a lock another
 * connection's wake could need.
 *
 * @param <C> a Call as the Responder took it in
 */
final class CallAdmission<C> implements ServerCallBudget.Waiter {

    private final ServerCallBudget budget;
    private final Object client;
    private final Executor wakeExecutor;
    private final ToLongFunction<C> octets;
    private final BiConsumer<C, ServerCallBudget.Place> start;
    private final Consumer<C> drop;
    // Guarded by itself:
    private final ArrayDeque<C> waiting = new ArrayDeque<>();
    private boolean closed;

    /**
     * Calls of the connection to {@code client} start with {@code start}, each holding {@code
     * octets} of the server's budget of call octets; those still waiting when the connection
     * closes go to {@code drop}.
     */
    CallAdmission(ServerCallBudget budget, Object client, Executor wakeExecutor, ToLongFunction<C> octets,
                  BiConsumer<C, ServerCallBudget.Place> start, Consumer<C> drop) {
        this.budget = budget;
        this.client = client;
        this.wakeExecutor = wakeExecutor;
        this.octets = octets;
        this.start = start;
        this.drop = drop;
    }

    @Override
    public Object client() {
        return client;
    }

    /** Starts {@code call} now, or queues it behind this connection's earlier ones. */
    void offer(C call) {
        ServerCallBudget.Place place = null;
        boolean late;
        synchronized (waiting) {
            late = closed;
            if (!late) {
                if (waiting.isEmpty()) {
                    place = budget.tryStart(this, octets.applyAsLong(call));
                }
                if (place == null) {
                    waiting.add(call);
                    return;
                }
            }
        }
        if (late) {
            drop.accept(call);
        } else {
            start.accept(call, place);
        }
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
            ServerCallBudget.Place place;
            synchronized (waiting) {
                if (closed || waiting.isEmpty()) {
                    budget.forget(this);
                    return;
                }
                place = budget.tryStart(this, octets.applyAsLong(waiting.peek()));
                if (place == null) {
                    return; // still in the server's queue
                }
                next = waiting.poll();
            }
            start.accept(next, place);
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
