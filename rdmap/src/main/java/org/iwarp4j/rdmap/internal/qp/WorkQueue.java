package org.iwarp4j.rdmap.internal.qp;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.iwarp4j.rdmap.ReceiveWorkRequest;

/**
 * The cross-thread queue of one queue pair: any thread {@link #enqueue}s {@link WorkCommand}s; the
 * first enqueue after a drain schedules one drain on the event loop, which runs every command
 * queued by then and flushes the channel once (the pattern of grpc-java's Netty {@code
 * WriteQueue}): many posts cost one wake-up and one flush. Before a connection's engine is bound,
 * commands wait here.
 *
 * <p>Receives posted on the engine's own event loop, typically by a completion queue listener
 * reposting the receive that just completed, skip the queue ({@link #postReceives}).
 */
public final class WorkQueue {

    private final Queue<WorkCommand> commands = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    /**
     * Commands that a receive posted on the event loop must not overtake ({@link
     * WorkCommand#holdsBackReceives}), queued and not yet taken off the queue: {@link
     * WorkCommand.PostReceive} (receives keep their posting order), {@link
     * WorkCommand.CloseGracefully} and {@link WorkCommand.Abort} (a receive posted after a close
     * was asked for is flushed by it, never filled by a Send read before the close ran). Counted up
     * before they are queued, down as they are taken (on the event loop, which runs each at once).
     */
    private final AtomicInteger queuedBarriers = new AtomicInteger();
    private final Runnable drainTask = this::drain;
    private volatile Executor executor;
    private volatile WorkCommand.Handler handler;
    /**
     * Completes commands as flushed once no engine will run them: the event loop is gone
     * ({@link #scheduleDrain}), or the queue pair ended without an engine ({@link #flushUnbound}).
     */
    private volatile WorkCommand.Handler flushing;
    /** Set by {@link #flushUnbound}: no engine will ever be bound, commands queued later are flushed at once. */
    private volatile boolean endedUnbound;

    /** From any thread. */
    public void enqueue(WorkCommand command) {
        if (command.holdsBackReceives()) {
            queuedBarriers.incrementAndGet();
        }
        commands.add(command);
        scheduleDrain();
    }

    /** {@link #enqueue} for a command already counted in {@link #queuedBarriers}. */
    private void enqueueCounted(WorkCommand command) {
        commands.add(command);
        scheduleDrain();
    }

    /**
     * From any thread: all of {@code batch}, then one drain, so that the work requests of one post
     * call reach the engine in the same turn (a drain scheduled by the first of them could
     * otherwise run before the rest are queued, and a Terminate read in between would flush the
     * rest instead of letting them go out behind the first). For send work only: receives go
     * through {@link #postReceives}, which counts them in {@link #queuedBarriers}.
     */
    public void enqueueAll(java.util.List<? extends WorkCommand> batch) {
        commands.addAll(batch);
        scheduleDrain();
    }

    /**
     * From any thread: receives, in order. On the engine's event loop, with no receive, close or
     * abort queued ahead of them, each is posted at once ({@link WorkCommand.Handler#postReceiveNow}) instead
     * of as a command for the drain at the end of the turn: one receive per Send received is the
     * commonest post of all, and a receive writes nothing that a drain's flush would send.
     *
     * <p>Sends consume the receives in the order they were posted (RFC 5040 §5.3, RDMAP-R-020:
     * one buffer per Send, Sends in order; DDP numbers the buffers by MSN as they are posted). Only
     * receives need to keep that order among themselves: a receive posted ahead of send work
     * queued earlier can only be there sooner for the peer's Sends. So the queue is skipped only
     * while it holds no receive: one posted from another thread before this post (its count is
     * raised before it is queued) is taken first, and while any is queued these queue behind it.
     * Nor is it skipped while a close or abort is queued: the receive is then flushed by it (RFC
     * 5040 §6.2.1) as one posted from any other thread, instead of waiting in DDP's queue for the
     * next Send of the same read. A receive the engine would complete at once (invalid memory, a
     * failed or closing queue pair) is queued too, so it completes in the drain, not inside the
     * caller's post.
     *
     * <p>If posting one at once throws (a request the engine cannot take), the requests before it
     * stay posted, it and the rest are not, {@code notPosted} is told how many were not (so that
     * their slots can be given back), and the exception propagates.
     */
    public void postReceives(ReceiveWorkRequest[] requests, IntConsumer notPosted) {
        int first = 0;
        WorkCommand.Handler h = handler;
        if (h != null && queuedBarriers.get() == 0 && inEventLoop()) {
            try {
                while (first < requests.length && h.postReceiveNow(requests[first])) {
                    first++;
                }
            } catch (RuntimeException | Error e) {
                notPosted.accept(requests.length - first);
                throw e;
            }
            if (first == requests.length) {
                return;
            }
        }
        queuedBarriers.addAndGet(requests.length - first);
        if (requests.length - first == 1) {
            enqueueCounted(new WorkCommand.PostReceive(requests[first]));
            return;
        }
        List<WorkCommand> batch = new ArrayList<>(requests.length - first);
        for (int i = first; i < requests.length; i++) {
            batch.add(new WorkCommand.PostReceive(requests[i]));
        }
        enqueueAll(batch);
    }

    private boolean inEventLoop() {
        Executor e = executor;
        return e instanceof EventExecutor && ((EventExecutor) e).inEventLoop();
    }

    /** The event loop the engine runs on ({@code null} before it is bound). */
    public Executor executor() {
        return executor;
    }

    /** Whether an engine runs the commands yet. */
    public boolean isBound() {
        return handler != null;
    }

    /**
     * Binds the engine (on its event loop); commands that waited are drained on a later turn.
     * {@code flushing} completes the commands queued after the event loop stopped.
     */
    void bind(Executor executor, WorkCommand.Handler handler, WorkCommand.Handler flushing) {
        this.flushing = flushing;
        this.executor = executor;
        this.handler = handler;
        if (!commands.isEmpty()) {
            scheduleDrain();
        }
    }

    /**
     * Drains now, on the event loop, also when a drain is already scheduled: at establishment the
     * receives posted before it must be in DDP's queues before the next socket read, and the drain
     * that {@link #bind} scheduled may run only after that read (an event loop may run IO before a
     * task queued in an earlier turn, e.g. when that turn's task time was used up). The scheduled
     * drain then finds nothing, or only what was queued since, to do.
     */
    public void drainNow() {
        if (handler != null) {
            drain();
        }
    }

    /**
     * For a queue pair that never ran an engine (closed or aborted before any connection): every
     * work request posted and waiting here completes as flushed (RFC 5040 §6.2.1), with its own
     * opcode, giving its slot back. Called after the queue pair left IDLE, so no later post
     * passes its state check (nor, once {@link #endedUnbound} is set here, the check that lets a
     * post after {@code close()} through); one that passed it before and queues after this flush
     * is flushed as it queues.
     */
    public void flushUnbound(QueuePairPort port) {
        flushing = new Completions(port).flushing();
        // Set before the queue is emptied: a post that passed its state check before the queue
        // pair left IDLE and queues after this flush sees the flag ({@link #scheduleDrain}), and
        // one that queued before is taken here. Volatile accesses on both sides: one of them sees
        // the other's write.
        endedUnbound = true;
        flushAll(flushing);
    }

    /**
     * Whether the queue pair ended without an engine ever being bound ({@link #flushUnbound}):
     * what is queued from now on is flushed on the caller's thread as it is queued.
     */
    public boolean endedUnbound() {
        return endedUnbound;
    }

    /** Completes every queued command with {@code h}, from whichever thread gets each first. */
    private void flushAll(WorkCommand.Handler h) {
        for (WorkCommand c; (c = poll()) != null; ) {
            c.dispatch(h);
        }
    }

    /** The next command, counted off {@link #queuedBarriers}; the caller runs it before anything else. */
    WorkCommand poll() {
        WorkCommand c = commands.poll();
        if (c != null && c.holdsBackReceives()) {
            queuedBarriers.decrementAndGet();
        }
        return c;
    }

    private void scheduleDrain() {
        Executor e = executor;
        if (e == null) {
            if (endedUnbound) {
                flushAll(flushing); // queued after flushUnbound had emptied the queue
            }
            return;
        }
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                e.execute(drainTask);
            } catch (RejectedExecutionException loopGone) {
                // The event loop has stopped (its RNIC was closed): no engine will ever run these
                // commands. The connection's teardown flushed what the engine held before the loop
                // stopped; what was queued since (a post that passed the state check, a close or
                // abort) completes here, as flushed (RFC 5040 §6.2.1), instead of the caller
                // getting the loop's exception and the queue staying marked as scheduled.
                drainScheduled.set(false);
                flushAll(flushing);
            }
        }
    }

    /**
     * Runs the commands queued when it starts, each on its own: one that throws goes to {@link
     * WorkCommand.Handler#commandFailed} and the rest still run (it used to end the drain, leaving
     * the commands behind it, and the flush, to the next post's drain: a receive that threw there
     * never completed). Commands queued while it runs (a completion queue listener's post in reply
     * to a completion made here) are left to the next drain, already scheduled by their enqueue: a
     * listener that reposts whatever completes, flushed as it is once the queue pair closes, cannot
     * keep the event loop in one drain for ever.
     */
    private void drain() {
        drainScheduled.set(false);
        WorkCommand.Handler h = handler;
        runQueued(h);
        h.drained();
    }

    /**
     * Runs on {@code h}, in order, the commands queued now, and not those they cause to be queued
     * (see {@link #drain}); on the event loop. {@code size()} walks the queue, no longer than the
     * polling that follows.
     */
    void runQueued(WorkCommand.Handler h) {
        for (int n = commands.size(); n > 0; n--) {
            WorkCommand c = poll();
            if (c == null) {
                return;
            }
            try {
                c.dispatch(h);
            } catch (RuntimeException | Error e) {
                h.commandFailed(c, e);
            }
        }
    }
}
