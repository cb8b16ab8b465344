package org.iwarp4j.oncrpc.internal;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What all connections of one server may hold at once: calls in service (dispatched, their reply
 * not yet made), each client's share of them, the octets calls hold (an RDMA server's pulled Read
 * chunks) in all and per client, and the octets of replies made but not yet taken by a socket, in
 * all and per client.
 * Each connection bounds its own share; this bounds their sum, which the per-connection bounds
 * alone leave at connections × calls × reply size — far more than any heap — and keeps one client
 * (one address, however many connections it opens) from holding every place or every octet.
 *
 * <p>A call may start when there is a place (fewer than {@code maxCalls} in service, fewer than
 * {@code maxReplyOctets} reply octets held), its client is within its share (fewer than {@code
 * maxCallsPerClient} calls, fewer than {@code maxReplyOctetsPerClient} reply octets held, and the
 * call's octets fit in {@code maxCallOctetsPerClient} beside its client's, or the client holds
 * none), and its octets fit in {@code maxCallOctets} beside those of
 * all calls in service (or none is in service, or it holds none). So at most {@code maxCalls}
 * calls are in service, {@code maxCallsPerClient} per client, the call octets stay within {@code
 * maxCallOctets} or one call's, and a client's within {@code maxCallOctetsPerClient} or one
 * call's; the replies held stay below {@code maxReplyOctets} plus what the calls in service at
 * that moment make, and a client's below {@code maxReplyOctetsPerClient} plus what its calls in
 * service make. So a client that reads none of its replies, on however many connections, keeps
 * other clients' calls from starting only if they need the same server-wide octets its share
 * leaves. A call that holds octets gives them back when it no longer needs them ({@link
 * Place#octetsDone()}), at the latest with its place.
 *
 * <p>Connections refused a start wait here, first come first served; room freed goes to the first
 * waiter that may start. A waiter held back by its client's share holds up nobody (it is passed,
 * and keeps its turn for when its client gives something back); a waiter waiting for the server's
 * octets holds up every waiter behind it whose call needs octets, so a large call is not passed
 * for ever by smaller ones, but not a call that needs none (that takes nothing the large one
 * waits for). Once a waiter has started, the next is woken while room is left. Finding the waiter
 * that may start walks the queue: O(waiting connections) per start and give-back while any wait.
 *
 * <p>Thread-safe: the connections of a server live on several event loops. A woken {@link Waiter}
 * is told on the releasing thread and hands itself to its own event loop.
 */
public final class ServerCallBudget {

    /** A connection waiting for room. */
    public interface Waiter {
        /**
         * Room was freed and the waiter may start: it tries its waiting calls again, or {@link
         * #forget forgets} itself if its own bounds keep it from starting, so that the others are
         * not held up behind it. Called on any thread; it may come more than once.
         */
        void budgetFreed();

        /**
         * The client whose share this connection's calls take (its peer's address, compared with
         * {@code equals}); {@code null} for a connection that counts against no client's share.
         * Must not change while the connection has calls in service.
         */
        Object client();
    }

    /**
     * One call's place in service. Given back exactly once, by {@link #ended()} or {@link
     * #replyMade(long)}; a second give-back does nothing and answers {@code false}, so a path that
     * cannot tell whether another already answered the call may give it back as well.
     */
    public final class Place {
        private final Object client;
        private long callOctets; // guarded by the budget
        private boolean givenBack; // guarded by the budget

        private Place(Object client, long callOctets) {
            this.client = client;
            this.callOctets = callOctets;
        }

        /**
         * The call no longer needs the octets it started with (its pulled data was consumed, or
         * will never be pulled); it keeps its place. Idempotent.
         */
        public void octetsDone() {
            synchronized (ServerCallBudget.this) {
                if (callOctets == 0) {
                    return;
                }
                releaseOctets();
            }
            passOn();
        }

        /**
         * The call left service without a reply to hold (answered otherwise, dropped, failed, or
         * its connection is gone); {@code false} if the place had been given back already.
         */
        public boolean ended() {
            return replyMade(0);
        }

        /**
         * The call's reply of {@code octets} is made: the call leaves service, its reply is held
         * until {@link ServerCallBudget#replyReleased written}; {@code false} if the place had
         * been given back already.
         */
        public boolean replyMade(long octets) {
            synchronized (ServerCallBudget.this) {
                if (givenBack) {
                    return false;
                }
                givenBack = true;
                calls--;
                replyOctets += octets;
                releaseOctets();
                if (client != null) {
                    clientCalls.computeIfPresent(client, (c, n) -> n == 1 ? null : n - 1);
                    if (octets > 0) {
                        clientReplyOctets.merge(client, octets, Long::sum);
                    }
                }
            }
            passOn();
            return true;
        }

        private void releaseOctets() {
            heldCallOctets -= callOctets;
            if (client != null && callOctets > 0) {
                long left = clientOctets.get(client) - callOctets;
                if (left == 0) {
                    clientOctets.remove(client);
                } else {
                    clientOctets.put(client, left);
                }
            }
            callOctets = 0;
        }
    }

    private final int maxCalls;
    private final int maxCallsPerClient;
    private final long maxReplyOctets;
    private final long maxReplyOctetsPerClient;
    private final long maxCallOctets;
    private final long maxCallOctetsPerClient;
    private int calls;
    private long replyOctets;
    private long heldCallOctets;
    /** Calls in service per client that has any; an entry leaves with the client's last call. */
    private final Map<Object, Integer> clientCalls = new HashMap<>();
    /** Call octets held per client that holds any. */
    private final Map<Object, Long> clientOctets = new HashMap<>();
    /** Reply octets held (made, not yet written) per client that has any. */
    private final Map<Object, Long> clientReplyOctets = new HashMap<>();
    /** The waiting connections in order, each with the octets its next call needs. */
    private final Map<Waiter, Long> waiters = new LinkedHashMap<>();

    /** A budget of calls and reply octets with no bound per client and none on call octets. */
    public ServerCallBudget(int maxCalls, long maxReplyOctets) {
        this(maxCalls, maxCalls, maxReplyOctets, maxReplyOctets, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    public ServerCallBudget(int maxCalls, int maxCallsPerClient, long maxReplyOctets, long maxReplyOctetsPerClient,
                            long maxCallOctets, long maxCallOctetsPerClient) {
        if (maxCalls < 1 || maxCallsPerClient < 1 || maxReplyOctets < 1 || maxReplyOctetsPerClient < 1
                || maxCallOctets < 1 || maxCallOctetsPerClient < 1) {
            throw new IllegalArgumentException("a call budget needs room for one call and one octet");
        }
        this.maxCalls = maxCalls;
        this.maxCallsPerClient = maxCallsPerClient;
        this.maxReplyOctets = maxReplyOctets;
        this.maxReplyOctetsPerClient = maxReplyOctetsPerClient;
        this.maxCallOctets = maxCallOctets;
        this.maxCallOctetsPerClient = maxCallOctetsPerClient;
    }

    /**
     * The client a connection to {@code peer} belongs to: its IP address (every port of a host is
     * one client, as in the per-address connection cap), or {@code peer} itself if it has none.
     */
    public static Object clientOf(java.net.SocketAddress peer) {
        return peer instanceof java.net.InetSocketAddress inet && inet.getAddress() != null ? inet.getAddress() : peer;
    }

    /** As {@link #tryStart(Waiter, long)} for a call that holds no octets of its own. */
    public Place tryStart(Waiter waiter) {
        return tryStart(waiter, 0);
    }

    /**
     * Starts a call that holds {@code callOctets} while in service, if the rules of the class
     * comment let it start now, before the waiters queued ahead of it: the call's place, to give
     * back when it leaves service. Otherwise queues {@code waiter} (once, keeping its turn) and
     * answers {@code null}. Room freed while others wait is theirs, so a connection that keeps the
     * server full cannot take each freed place before them.
     */
    public Place tryStart(Waiter waiter, long callOctets) {
        if (callOctets < 0) {
            throw new IllegalArgumentException("call octets < 0: " + callOctets);
        }
        Object client = waiter.client();
        Place place;
        Waiter next;
        synchronized (this) {
            if (firstThatMayStart(waiter, callOctets) != waiter) {
                waiters.put(waiter, callOctets);
                return null;
            }
            waiters.remove(waiter);
            calls++;
            heldCallOctets += callOctets;
            if (client != null) {
                clientCalls.merge(client, 1, Integer::sum);
                if (callOctets > 0) {
                    clientOctets.merge(client, callOctets, Long::sum);
                }
            }
            place = new Place(client, callOctets);
            next = firstThatMayStart(null, 0);
        }
        wake(next);
        return place;
    }

    /**
     * A held reply of {@code octets}, made by a call of {@code client} (the {@link Waiter#client()}
     * of its connection), was written or discarded.
     */
    public void replyReleased(Object client, long octets) {
        synchronized (this) {
            replyOctets -= octets;
            if (client != null && octets > 0) {
                clientReplyOctets.computeIfPresent(client, (c, n) -> n == octets ? null : n - octets);
            }
        }
        passOn();
    }

    /** Wakes the first waiter that may start, if any; it keeps its turn until it starts or is forgotten. */
    public void passOn() {
        Waiter next;
        synchronized (this) {
            next = firstThatMayStart(null, 0);
        }
        wake(next);
    }

    /**
     * {@code waiter} no longer waits: its connection closed, or its own bounds keep it from
     * starting. If room would have gone to it, or it held up the waiters behind it (it waited for
     * the server's octets), the one that may start now is woken.
     */
    public void forget(Waiter waiter) {
        Waiter next;
        synchronized (this) {
            Waiter before = firstThatMayStart(null, 0);
            if (waiters.remove(waiter) == null) {
                return;
            }
            next = firstThatMayStart(null, 0);
            if (next == before) {
                next = null; // already the one room goes to: woken when it became so
            }
        }
        wake(next);
    }

    public synchronized int callsInService() {
        return calls;
    }

    /** Calls in service of {@code client}. */
    public synchronized int callsInService(Object client) {
        return clientCalls.getOrDefault(client, 0);
    }

    public synchronized long replyOctetsHeld() {
        return replyOctets;
    }

    /** Octets of replies made for calls of {@code client} and not yet written. */
    public synchronized long replyOctetsHeld(Object client) {
        return clientReplyOctets.getOrDefault(client, 0L);
    }

    /** Octets the calls in service hold (what they started with, until {@link Place#octetsDone()}). */
    public synchronized long callOctetsHeld() {
        return heldCallOctets;
    }

    /** Octets the calls in service of {@code client} hold. */
    public synchronized long callOctetsHeld(Object client) {
        return clientOctets.getOrDefault(client, 0L);
    }

    public synchronized int waiting() {
        return waiters.size();
    }

    /**
     * The waiter that may start now under the rules of the class comment, walking the queue in
     * order with {@code candidate} (needing {@code candidateOctets}) at its place in it, or after
     * the last if it waits nowhere; {@code null} if none may. Both the start of a call and the
     * wake-up after a give-back ask this, so a waiter that may start is always the one woken.
     */
    private Waiter firstThatMayStart(Waiter candidate, long candidateOctets) {
        if (calls >= maxCalls || replyOctets >= maxReplyOctets) {
            return null; // no place for anyone
        }
        boolean octetsAwaitedAhead = false;
        for (Map.Entry<Waiter, Long> e : waiters.entrySet()) {
            Waiter w = e.getKey();
            long octets = w == candidate ? candidateOctets : e.getValue();
            if (heldByShare(w.client(), octets) || (octetsAwaitedAhead && octets > 0)) {
                continue;
            }
            if (octetsFit(octets)) {
                return w;
            }
            octetsAwaitedAhead = true; // it waits for the server's octets: none needing octets passes it
        }
        if (candidate == null || waiters.containsKey(candidate) || heldByShare(candidate.client(), candidateOctets)
                || (octetsAwaitedAhead && candidateOctets > 0) || !octetsFit(candidateOctets)) {
            return null;
        }
        return candidate;
    }

    private boolean heldByShare(Object client, long octets) {
        if (client == null) {
            return false;
        }
        if (clientCalls.getOrDefault(client, 0) >= maxCallsPerClient
                || clientReplyOctets.getOrDefault(client, 0L) >= maxReplyOctetsPerClient) {
            return true;
        }
        long held = clientOctets.getOrDefault(client, 0L);
        return octets > 0 && held > 0 && octets > maxCallOctetsPerClient - held;
    }

    private boolean octetsFit(long octets) {
        return octets == 0 || calls == 0 || octets <= maxCallOctets - heldCallOctets;
    }

    private static void wake(Waiter w) {
        if (w != null) {
            w.budgetFreed();
        }
    }
}
