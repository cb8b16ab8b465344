package org.iwarp4j.oncrpc.internal;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What all connections of one server may hold at once: calls in service (dispatched, their reply
 * not yet made) and the octets of replies made but not yet taken by a socket. Each connection
 * bounds its own share; this bounds their sum, which the per-connection bounds alone leave at
 * connections × calls × reply size — far more than any heap.
 *
 * <p>A call may start while fewer than {@code maxCalls} are in service and fewer than {@code
 * maxReplyOctets} octets are held; so at most {@code maxCalls} calls are in service and the
 * replies held stay below {@code maxReplyOctets} plus what the calls in service at that moment
 * make. A connection refused a start waits here, first come first served: the first is woken when
 * calls end or replies are written, and no other connection starts a call before it; once it has
 * started, the next is woken while room is left.
 *
 * <p>Thread-safe: the connections of a server live on several event loops. A woken {@link Waiter}
 * is told on the releasing thread and hands itself to its own event loop.
 */
public final class ServerCallBudget {

    /** A connection waiting for room. */
    public interface Waiter {
        /**
         * Room was freed and the waiter is first: it tries its waiting calls again, or {@link
         * #forget forgets} itself if its own bounds keep it from starting, so that the others are
         * not held up behind it. Called on any thread; it may come more than once.
         */
        void budgetFreed();
    }

    private final int maxCalls;
    private final long maxReplyOctets;
    private int calls;
    private long replyOctets;
    private final Set<Waiter> waiters = new LinkedHashSet<>();

    public ServerCallBudget(int maxCalls, long maxReplyOctets) {
        if (maxCalls < 1 || maxReplyOctets < 1) {
            throw new IllegalArgumentException("a call budget needs room for one call and one octet");
        }
        this.maxCalls = maxCalls;
        this.maxReplyOctets = maxReplyOctets;
    }

    /**
     * Starts a call if there is room and no other connection waits before {@code waiter} (then the
     * call counts as in service until {@link #replyMade} or {@link #callEnded}); otherwise queues
     * {@code waiter} (once) and answers false. Room freed while others wait is theirs, so a
     * connection that keeps the server full cannot take each freed place before them.
     */
    public boolean tryStart(Waiter waiter) {
        Waiter next;
        synchronized (this) {
            Waiter head = first();
            if (!hasRoom() || (head != null && head != waiter)) {
                waiters.add(waiter);
                return false;
            }
            calls++;
            if (head == waiter) {
                waiters.remove(waiter);
            }
            next = hasRoom() ? first() : null;
        }
        wake(next);
        return true;
    }

    /** A call's reply of {@code octets} is made: the call leaves service, its reply is held until written. */
    public void replyMade(long octets) {
        synchronized (this) {
            calls--;
            replyOctets += octets;
        }
        passOn();
    }

    /** A call left service without a reply to hold (dropped, failed, or its connection is gone). */
    public void callEnded() {
        synchronized (this) {
            calls--;
        }
        passOn();
    }

    /** A held reply of {@code octets} was written or discarded. */
    public void replyReleased(long octets) {
        synchronized (this) {
            replyOctets -= octets;
        }
        passOn();
    }

    /** Wakes the first waiter if there is room for it; it stays first until it starts or is forgotten. */
    public void passOn() {
        Waiter next;
        synchronized (this) {
            next = hasRoom() ? first() : null;
        }
        wake(next);
    }

    /**
     * {@code waiter} no longer waits: its connection closed, or its own bounds keep it from
     * starting. If it was first, the next one is woken in its place.
     */
    public void forget(Waiter waiter) {
        boolean wasFirst;
        synchronized (this) {
            wasFirst = first() == waiter;
            waiters.remove(waiter);
        }
        if (wasFirst) {
            passOn();
        }
    }

    public synchronized int callsInService() {
        return calls;
    }

    public synchronized long replyOctetsHeld() {
        return replyOctets;
    }

    public synchronized int waiting() {
        return waiters.size();
    }

    private boolean hasRoom() {
        return calls < maxCalls && replyOctets < maxReplyOctets;
    }

    private Waiter first() {
        Iterator<Waiter> it = waiters.iterator();
        return it.hasNext() ? it.next() : null;
    }

    private static void wake(Waiter w) {
        if (w != null) {
            w.budgetFreed();
        }
    }
}
