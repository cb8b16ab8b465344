package org.iwarp4j.rdmap;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Where work completions go, like ibv_cq: bounded, filled by the queue pairs' event loops,
 * polled from any thread (waited for from any but the RNIC's event loops, see {@link #take()}) —
 * or, with a listener, handed to the listener on the event loop that completed them (the listener
 * must not block).
 *
 * <p>An overrun (more unpolled completions than the capacity) loses the completion that did not
 * fit and fails the queue pair that overran the queue, as a hardware RNIC does (a completion queue
 * overrun is an asynchronous error that puts its queue pairs into ERROR): it sends a Terminate
 * (RDMAP Local Catastrophic Error), closes its connection and flushes its work (into the full
 * queue: those completions are lost as well); its {@link QueuePair#failureCause()} reads
 * "completion queue overrun, capacity N". Size the queue for the work you post.
 *
 * <p>No lock: {@link #poll()} of an empty queue reads one counter (a thread polling in a loop, as
 * perftest does, never contends with the completing event loop), and a thread waiting in {@link
 * #poll(long, TimeUnit)} or {@link #take()} is woken by the completing event loop with one unpark,
 * as a semaphore's release wakes its waiter. (It was an {@code ArrayBlockingQueue}, whose waiter,
 * signalled while the event loop still held the queue's lock, could wake only to wait for that
 * lock: two wake-ups per completion on a busy machine, and a spinning poller took the lock on
 * every look.)
 *
 * <p>On an event loop the wake-up waits for the end of the loop's turn: completing schedules one
 * task on that loop (no system call: the loop is the caller) that wakes as many waiters as there
 * are completions by then, so that the completions of one turn (a gathering write's promises, the
 * messages of one socket read) cost one unpark and one context switch instead of one each. The
 * waiter then finds them all with {@link #poll()}. A waiter is woken at the latest when the loop has
 * processed the I/O of its current turn; a completion from any other thread wakes at once.
 */
public final class CompletionQueue {

    private final ConcurrentLinkedQueue<WorkCompletion> completions = new ConcurrentLinkedQueue<>();
    /** Completions queued and not yet taken: a slot is counted before its completion is queued. */
    private final AtomicInteger queued = new AtomicInteger();
    /** Threads waiting in a timed poll or take; {@link #waiting} counts them so that completing skips an empty look. */
    private final ConcurrentLinkedQueue<Thread> waiters = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final int capacity;
    /** Whether the calling thread is one of the RNIC's event loops, where no call may wait. */
    private final BooleanSupplier onEventLoop;
    /** The RNIC that made this queue, whose queue pairs alone may use it; {@code null} for a test's queue. */
    private final Rnic rnic;
    private volatile Consumer<WorkCompletion> listener;
    /** A wake-up task is scheduled on some event loop and has not started yet. */
    private final AtomicBoolean wakeScheduled = new AtomicBoolean();
    private final Runnable wakeTask = this::wakeForQueued;
    /** Unparks so far, for tests: the cost this class exists to keep low. */
    private final AtomicLong wakeUps = new AtomicLong();

    /** A queue that any thread may wait on (for tests). */
    CompletionQueue(int capacity) {
        this(capacity, null, () -> false);
    }

    /** A queue of {@code rnic}: {@code onEventLoop} tells whether the caller is one of its event loops. */
    CompletionQueue(int capacity, Rnic rnic, BooleanSupplier onEventLoop) {
        if (capacity < 1) {
            throw new IllegalArgumentException("completion queue capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.rnic = rnic;
        this.onEventLoop = onEventLoop;
    }

    /**
     * Whether a queue pair of {@code owner} may complete into this queue: only if it is the RNIC
     * that made it. The waits refuse only that RNIC's event loops ({@link #take()}), so a queue
     * serving a queue pair of another RNIC could be waited on from the loop that has to fill it.
     */
    boolean servesQueuePairsOf(Rnic owner) {
        return rnic == null || rnic == owner;
    }

    public int capacity() {
        return capacity;
    }

    /** The next completion, or {@code null} if there is none now. */
    public WorkCompletion poll() {
        if (queued.get() <= 0) {
            return null;
        }
        WorkCompletion c = completions.poll();
        if (c != null) {
            queued.decrementAndGet();
        }
        return c;
    }

    /**
     * The next completion, waiting up to {@code timeout}; {@code null} if none came. A positive
     * timeout may not be given on one of the RNIC's event loops, see {@link #take()}.
     *
     * @throws IllegalStateException if {@code timeout} is positive and this is called on one of the
     *         RNIC's event loops
     */
    public WorkCompletion poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        if (nanos > 0) {
            checkMayWait("poll with a timeout");
        }
        return await(true, nanos);
    }

    /**
     * The next completion, waiting as long as it takes.
     *
     * <p>Not on one of the RNIC's event loops (a {@link #setListener listener}, a connection request
     * handler, a callback of a queue pair's futures): a completion is made on the event loop of its
     * queue pair, which may be the very loop the wait blocks, so it could wait for ever. There it
     * throws, whether or not a completion is queued; {@link #poll()} and a zero timeout are allowed.
     *
     * @throws IllegalStateException if called on one of the RNIC's event loops
     */
    public WorkCompletion take() throws InterruptedException {
        checkMayWait("take");
        return await(false, 0);
    }

    private void checkMayWait(String call) {
        if (onEventLoop.getAsBoolean()) {
            throw new IllegalStateException(call + " waits for a completion and cannot be called on one of the"
                    + " RNIC's event loops, which make the completions: call it from another thread, or use"
                    + " poll() or setListener there");
        }
    }

    private WorkCompletion await(boolean timed, long nanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        WorkCompletion c = poll();
        if (c != null || (timed && nanos <= 0)) {
            return c;
        }
        long deadline = System.nanoTime() + nanos;
        Thread me = Thread.currentThread();
        while (true) {
            waiting.incrementAndGet();
            waiters.add(me);
            try {
                // Looked at after registering: a completion queued before the registration is
                // seen here, one queued after it unparks this thread (or leaves a permit).
                c = poll();
                if (c != null) {
                    return c;
                }
                if (timed) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    LockSupport.parkNanos(this, left);
                } else {
                    LockSupport.park(this);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            } finally {
                boolean stillRegistered = waiters.remove(me);
                waiting.decrementAndGet();
                if (!stillRegistered && queued.get() > 0) {
                    // A completing thread chose this one to wake; if this one leaves without the
                    // completion meant for it (timed out, interrupted, or took another), pass it on.
                    wakeOne();
                }
            }
            c = poll();
            if (c != null) {
                return c;
            }
        }
    }

    private void wakeOne() {
        if (waiting.get() > 0) {
            Thread t = waiters.poll();
            if (t != null) {
                wakeUps.incrementAndGet();
                LockSupport.unpark(t);
            }
        }
    }

    /**
     * Threads registered to be woken now (for tests): counted from the queue a wake-up takes them
     * from, not from {@code waiting}, which a waiter raises before it joins that queue (a completion
     * in between finds no thread to unpark, and the waiter finds the completion itself).
     */
    int waitingThreads() {
        return waiters.size();
    }

    /** Waiting threads unparked so far (for tests). */
    long wakeUps() {
        return wakeUps.get();
    }

    /** Completions waiting to be polled. */
    public int size() {
        return Math.max(0, queued.get());
    }

    /**
     * Delivers completions to {@code listener} on the completing event loop instead of queueing
     * them; {@code null} returns to polling. Completions already queued stay queued.
     *
     * <p>The listener runs on the event loop of the queue pair that completed the work: queue
     * pairs on different loops that share this queue call it concurrently. Send work it posts is
     * not run inside the call but reaches the engine in the loop's drain at the end of the turn, in
     * posting order; a receive it posts on the completing queue pair is posted before {@link
     * QueuePair#postReceive} returns (so always ahead of a Send posted after it), behind any
     * receive still queued from another thread; after a {@code close()} or {@code abort()} still
     * queued it waits behind that and is flushed. Work it posts once {@code close()} or {@code
     * abort()} was called completes {@code FLUSHED} ({@link QueuePair#postReceive}): repost for
     * successful completions only. The listener is never called from inside its own post. It must not throw: an exception is caught on the event loop and fails the queue pair
     * whose completion it was, as any local failure does (no Terminate; {@link
     * QueuePair#failureCause()} is the exception, its outstanding work completes {@code FATAL} and
     * {@code FLUSHED}, its connection closes), whatever completion it was called for: a Send's or
     * Write's, a receive's, or one made while posting. An exception from a completion flushed after the
     * queue pair failed changes nothing more (it is logged at debug level; for a queue pair closed
     * before it ever connected it becomes the failure cause). {@code setListener(null)} does not wait for a call already running.
     */
    public void setListener(Consumer<WorkCompletion> listener) {
        this.listener = listener;
    }

    /** @return {@code false} on overrun */
    boolean complete(WorkCompletion completion) {
        return complete(completion, null);
    }

    /**
     * As {@link #complete(WorkCompletion)}, called on {@code loop} (the completing queue pair's
     * event loop, or {@code null}): a waiter is woken at the end of the loop's turn.
     */
    boolean complete(WorkCompletion completion, Executor loop) {
        Consumer<WorkCompletion> l = listener;
        if (l != null) {
            l.accept(completion);
            return true;
        }
        while (true) {
            int n = queued.get();
            if (n >= capacity) {
                return false;
            }
            if (queued.compareAndSet(n, n + 1)) {
                break;
            }
        }
        completions.add(completion);
        wakeSoon(loop);
        return true;
    }

    /** Wakes a waiter now, or at the end of the completing event loop's turn. */
    private void wakeSoon(Executor loop) {
        if (waiting.get() <= 0) {
            return; // a thread that starts waiting later looks at the queue after registering
        }
        if (!(loop instanceof EventExecutor) || !((EventExecutor) loop).inEventLoop()) {
            wakeOne();
            return;
        }
        if (wakeScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(wakeTask);
            } catch (RejectedExecutionException shuttingDown) {
                wakeScheduled.set(false);
                wakeOne();
            }
        }
    }

    /** One waiter per completion queued now (each takes one; a waiter left over waits on). */
    private void wakeForQueued() {
        wakeScheduled.set(false);
        for (int n = queued.get(); n > 0 && waiting.get() > 0; n--) {
            wakeOne();
        }
    }
}
