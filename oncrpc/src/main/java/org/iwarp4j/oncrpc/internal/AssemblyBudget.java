package org.iwarp4j.oncrpc.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The octets that all connections of one server may hold in records not yet taken up: records
 * being reassembled and records decoded but waiting for a call to start, in all and per client
 * (one address, however many connections it opens). Each connection bounds its own to one record
 * of {@code maxRecordSize}; this bounds their sum, which is otherwise connections × {@code
 * maxRecordSize} (8 GiB with the defaults of {@code RpcTcpServer}), and keeps one client from
 * holding all of it.
 *
 * <p>A connection reserves a record's octets when the record mark announces them, before they
 * are buffered, and gives them back once the record was taken up; octets that arrived with their
 * mark in one read are counted without waiting ({@link #take}). A reservation waits, and the
 * connection is not read meanwhile, while it does not fit beside its client's octets in {@code
 * maxPerClient} (unless the client holds none) or beside everyone's in {@code max} (unless nothing
 * is held). Waiting reservations are granted in turn (and the connection told, on any thread) as
 * octets given back make room: one that waits for the server's octets is never overtaken by a
 * later one, while one that waits only for its own client's octets holds up no other client's
 * (its own client's later ones wait behind it). A reservation once granted is never taken back,
 * and a connection reserves once per record, as much as the record can grow to, so a record that
 * has octets reserved can always complete: connections that wait hold nothing, and those that
 * hold can go on.
 *
 * <p>Thread-safe: the connections of a server live on several event loops.
 */
public final class AssemblyBudget {

    /** A connection that reserves octets. */
    public interface Account {
        /** Its reservation was granted: it may read on (called on any thread, outside the budget's lock). */
        void reservationGranted();

        /**
         * The client whose share its octets take (compared with {@code equals}); {@code null} for
         * one that counts against no client's share. Must not change while it holds or waits.
         */
        Object client();
    }

    private final long max;
    private final long maxPerClient;
    private long held;
    /** Octets held per client that holds any. */
    private final Map<Object, Long> clientHeld = new HashMap<>();
    private final Map<Account, Long> waiting = new LinkedHashMap<>();

    /** A budget with no bound per client. */
    public AssemblyBudget(long max) {
        this(max, Long.MAX_VALUE);
    }

    public AssemblyBudget(long max, long maxPerClient) {
        if (max < 1 || maxPerClient < 1) {
            throw new IllegalArgumentException("an assembly budget needs room for one octet");
        }
        this.max = max;
        this.maxPerClient = maxPerClient;
    }

    /**
     * Reserves {@code octets} for {@code account}; false if they must wait (then {@link
     * Account#reservationGranted} says when they were granted). A reservation larger than the whole
     * budget, or than a client's share, is granted once nothing else is held (by anyone, or by its
     * client), so that no record is refused for good.
     */
    public boolean reserve(Account account, long octets) {
        List<Account> granted = new ArrayList<>(1);
        boolean now;
        synchronized (this) {
            waiting.put(account, octets);
            grant(granted);
            now = granted.remove(account);
        }
        granted.forEach(Account::reservationGranted);
        return now;
    }

    /**
     * Counts {@code octets} of {@code account} that are in memory already (a record that arrived
     * whole), without waiting: they may take the budget or its client's share past their bound,
     * and then later reservations wait.
     */
    public void take(Account account, long octets) {
        List<Account> granted = new ArrayList<>(1);
        synchronized (this) {
            hold(account.client(), octets);
            grant(granted); // its client may have reached its share: a waiter of it no longer holds others up
        }
        granted.forEach(Account::reservationGranted);
    }

    /**
     * Gives back {@code octets} that {@code account} reserved or took before, and grants the
     * waiting reservations that now fit, in turn.
     */
    public void release(Account account, long octets) {
        List<Account> granted = new ArrayList<>(1);
        synchronized (this) {
            hold(account.client(), -octets);
            grant(granted);
        }
        granted.forEach(Account::reservationGranted);
    }

    /** {@code account} no longer waits (its connection closed). */
    public void forget(Account account) {
        List<Account> granted = new ArrayList<>(1);
        synchronized (this) {
            if (waiting.remove(account) == null) {
                return;
            }
            grant(granted);
        }
        granted.forEach(Account::reservationGranted);
    }

    private void grant(List<Account> granted) {
        Set<Object> passed = null; // clients with a waiter held by their share: their later ones wait behind it
        for (Iterator<Map.Entry<Account, Long>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Account, Long> next = it.next();
            Object client = next.getKey().client();
            long octets = next.getValue();
            if (client != null && passed != null && passed.contains(client)) {
                continue;
            }
            if (!fitsShare(client, octets)) {
                if (passed == null) {
                    passed = new HashSet<>();
                }
                passed.add(client); // it waits for its own client's octets: it holds up nobody else
                continue;
            }
            if (!fits(octets)) {
                return; // first come, first served: no later one goes before it
            }
            hold(client, octets);
            it.remove();
            granted.add(next.getKey());
        }
    }

    private void hold(Object client, long octets) {
        held += octets;
        if (client != null && octets != 0) {
            clientHeld.merge(client, octets, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    private boolean fits(long octets) {
        return held + octets <= max || held == 0;
    }

    private boolean fitsShare(Object client, long octets) {
        if (client == null) {
            return true;
        }
        long ofClient = clientHeld.getOrDefault(client, 0L);
        return ofClient + octets <= maxPerClient || ofClient == 0;
    }

    /** Octets reserved now. */
    public synchronized long held() {
        return held;
    }

    /** Octets reserved now by {@code client}'s connections. */
    public synchronized long held(Object client) {
        return clientHeld.getOrDefault(client, 0L);
    }

    /** Connections whose reservation waits now. */
    public synchronized int waiting() {
        return waiting.size();
    }
}
