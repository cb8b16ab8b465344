package org.iwarp4j.rdmap.internal.qp;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The cross-thread queue of one queue pair: any thread {@link #enqueue}s {@link WorkCommand}s; the
 * first enqueue after a drain schedules one drain on the event loop, which runs every command
 * queued by then and flushes the channel once (the pattern of grpc-java's Netty {@code
 * WriteQueue}): many posts cost one wake-up and one flush. Before a connection's engine is bound,
 * commands wait here.
 */
public final class WorkQueue {

    private final Queue<WorkCommand> commands = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    private volatile Executor executor;
    private volatile WorkCommand.Handler handler;

    /** From any thread. */
    public void enqueue(WorkCommand command) {
        commands.add(command);
        scheduleDrain();
    }

    /**
     * From any thread: all of {@code batch}, then one drain, so that the work requests of one post
     * call reach the engine in the same turn (a drain scheduled by the first of them could
     * otherwise run before the rest are queued, and a Terminate read in between would flush the
     * rest instead of letting them go out behind the first).
     */
    public void enqueueAll(java.util.List<? extends WorkCommand> batch) {
        commands.addAll(batch);
        scheduleDrain();
    }

    /** The event loop the engine runs on ({@code null} before it is bound). */
    public Executor executor() {
        return executor;
    }

    /** Whether an engine runs the commands yet. */
    public boolean isBound() {
        return handler != null;
    }

    /** Binds the engine (on its event loop); commands that waited are drained on a later turn. */
    void bind(Executor executor, WorkCommand.Handler handler) {
        this.executor = executor;
        this.handler = handler;
        if (!commands.isEmpty()) {
            scheduleDrain();
        }
    }

    /** Drains now, on the event loop, unless a drain is already scheduled. */
    public void drainNow() {
        if (handler != null && drainScheduled.compareAndSet(false, true)) {
            drain();
        }
    }

    /** The next command, for a queue pair that failed and completes them as flushed; {@code null} if none. */
    WorkCommand poll() {
        return commands.poll();
    }

    private void scheduleDrain() {
        Executor e = executor;
        if (e != null && drainScheduled.compareAndSet(false, true)) {
            e.execute(drainTask);
        }
    }

    private void drain() {
        drainScheduled.set(false);
        WorkCommand.Handler h = handler;
        for (WorkCommand c; (c = commands.poll()) != null; ) {
            c.dispatch(h);
        }
        h.drained();
    }
}
