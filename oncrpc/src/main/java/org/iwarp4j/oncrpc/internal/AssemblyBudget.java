package org.iwarp4j.oncrpc.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The octets that all connections of one server may hold in records not yet taken up: records
 * being reassembled and records decoded but waiting for a call to start. Each connection bounds
 * its own to one record of {@code maxRecordSize}; this bounds their sum, which is otherwise
 * connections × {@code maxRecordSize} (8 GiB with the defaults of {@code RpcTcpServer}).
 *
 * <p>A connection reserves a record's octets when the record mark announces them, before they
 * are buffered, and gives them back once the record was taken up; octets that arrived with their
 * mark in one read are counted without waiting ({@link #take}). A reservation that does not fit
 * waits, first come first served, and the connection is not read meanwhile; it is granted (and
 * the connection told, on any thread) as soon as the octets given back make room for it, never
 * overtaken by a later one. A reservation once granted is never taken back, and only a record's
 * first reservation may wait (its later fragments {@link #take} theirs), so a record that has
 * octets reserved can always complete: connections that wait hold nothing, and those that hold
 * can go on.
 *
 * <p>Thread-safe: the connections of a server live on several event loops.
 */
public final class AssemblyBudget {

    /** A connection waiting for a reservation. */
    public interface Account {
        /** Its reservation was granted: it may read on (called on any thread, outside the budget's lock). */
        void reservationGranted();
    }

    private final long max;
    private long held;
    private final Map<Account, Long> waiting = new LinkedHashMap<>();

    public AssemblyBudget(long max) {
        if (max < 1) {
            throw new IllegalArgumentException("an assembly budget needs room for one octet");
        }
        this.max = max;
    }

    /**
     * Reserves {@code octets} for {@code account}; false if they must wait (then {@link
     * Account#reservationGranted} says when they were granted). A reservation larger than the whole
     * budget is granted once nothing else is held, so that no record is refused for good.
     */
    public synchronized boolean reserve(Account account, long octets) {
        if (waiting.isEmpty() && fits(octets)) {
            held += octets;
            return true;
        }
        waiting.put(account, octets);
        return false;
    }

    /**
     * Counts {@code octets} that are in memory already (a record that arrived whole), without
     * waiting: they may take the budget past its bound, and then later reservations wait.
     */
    public synchronized void take(long octets) {
        held += octets;
    }

    /** Gives back {@code octets} reserved before, and grants the waiting reservations that now fit, in turn. */
    public void release(long octets) {
        List<Account> granted = new ArrayList<>(1);
        synchronized (this) {
            held -= octets;
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
        for (Iterator<Map.Entry<Account, Long>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Account, Long> next = it.next();
            if (!fits(next.getValue())) {
                return; // first come, first served: no later one goes before it
            }
            held += next.getValue();
            it.remove();
            granted.add(next.getKey());
        }
    }

    private boolean fits(long octets) {
        return held + octets <= max || held == 0;
    }

    /** Octets reserved now. */
    public synchronized long held() {
        return held;
    }

    /** Connections whose reservation waits now. */
    public synchronized int waiting() {
        return waiting.size();
    }
}
