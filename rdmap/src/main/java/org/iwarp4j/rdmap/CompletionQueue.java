package org.iwarp4j.rdmap;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Where work completions go, like ibv_cq: bounded, filled by the queue pairs' event loops,
 * polled from any thread — or, with a listener, handed to the listener on the event loop that
 * completed them (the listener must not block).
 *
 * <p>An overrun (more unpolled completions than the capacity) puts the queue pair that overran
 * it into ERROR, as a hardware RNIC does: size the queue for the work you post.
 */
public final class CompletionQueue {

    private final ArrayBlockingQueue<WorkCompletion> completions;
    /**
     * Completions queued and not yet taken, kept beside the queue so that {@link #poll()} on an
     * empty queue reads one volatile instead of taking the queue's lock: a thread polling in a
     * loop (perftest's busy polling) would otherwise contend for that lock with the event loop
     * that completes, and an event loop that loses parks. It may lag the queue by a moment
     * (counted after the offer, taken after the poll), never by a completion for long.
     */
    private final java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
    private final int capacity;
    private volatile Consumer<WorkCompletion> listener;

    CompletionQueue(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("completion queue capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.completions = new ArrayBlockingQueue<>(capacity);
    }

    public int capacity() {
        return capacity;
    }

    /** The next completion, or {@code null} if there is none now. */
    public WorkCompletion poll() {
        if (queued.get() <= 0) {
            return null;
        }
        return taken(completions.poll());
    }

    /** The next completion, waiting up to {@code timeout}; {@code null} if none came. */
    public WorkCompletion poll(long timeout, TimeUnit unit) throws InterruptedException {
        return taken(completions.poll(timeout, unit));
    }

    /** The next completion, waiting as long as it takes. */
    public WorkCompletion take() throws InterruptedException {
        return taken(completions.take());
    }

    private WorkCompletion taken(WorkCompletion c) {
        if (c != null) {
            queued.decrementAndGet();
        }
        return c;
    }

    /** Completions waiting to be polled. */
    public int size() {
        return completions.size();
    }

    /**
     * Delivers completions to {@code listener} on the completing event loop instead of queueing
     * them; {@code null} returns to polling. Completions already queued stay queued.
     */
    public void setListener(Consumer<WorkCompletion> listener) {
        this.listener = listener;
    }

    /** @return {@code false} on overrun */
    boolean complete(WorkCompletion completion) {
        Consumer<WorkCompletion> l = listener;
        if (l != null) {
            l.accept(completion);
            return true;
        }
        if (!completions.offer(completion)) {
            return false;
        }
        queued.incrementAndGet();
        return true;
    }
}
