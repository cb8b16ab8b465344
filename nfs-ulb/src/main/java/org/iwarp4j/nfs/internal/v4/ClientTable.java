package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client records (RFC 8881 §2.4, §18.35): one per client owner, made by EXCHANGE_ID, confirmed by
 * the first CREATE_SESSION, renewed by every SEQUENCE (§8.3) and dropped with all its state once
 * its lease has run out. At most {@link Nfs4Settings#maxClients()} records exist; when the table
 * is full an unconfirmed record is evicted first, then expired ones; otherwise EXCHANGE_ID answers
 * NFS4ERR_DELAY. One IP address makes at most {@link Nfs4Settings#maxClientsPerAddress()} of them
 * (the same rule: its own oldest unconfirmed record is evicted, else NFS4ERR_DELAY), so that one
 * host cannot take the table from the others; the new incarnation of a client the host has a
 * confirmed record of is not refused for it (it replaces that record at its CREATE_SESSION), so a
 * host holds at most twice the cap. Callers hold {@link Nfs4Context#lock()}.
 */
final class ClientTable {

    private static final Logger log = LoggerFactory.getLogger(ClientTable.class);

    private final Nfs4Context ctx;
    private final Map<Long, Client> byId = new HashMap<>();
    /**
     * The records of each owner (at most two: a confirmed one and the unconfirmed one of a new
     * incarnation), so that EXCHANGE_ID and CREATE_SESSION look at their own owner's records only.
     */
    private final Map<ByteBuffer, List<Client>> byOwner = new HashMap<>();
    /** Unconfirmed records, oldest first (they never renew), for the eviction when the table is full. */
    private final Set<Client> unconfirmedByAge = new LinkedHashSet<>();
    /** Records made from each host (its IP address), for {@link Nfs4Settings#maxClientsPerAddress()}. */
    private final Map<Object, Integer> byHost = new HashMap<>();
    static final long REAP_INTERVAL_MILLIS = 1000;
    private static final long NEVER = Long.MIN_VALUE;
    private long reapedAtMillis = NEVER;
    /** Walks of the table for expired clients, for tests. */
    private long reaps;
    /** Any host may make records that expire unused, up to maxClients per lease: their log lines are limited. */
    private final org.iwarp4j.oncrpc.internal.LogRateLimit expiryLog;

    ClientTable(Nfs4Context ctx) {
        this.ctx = ctx;
        this.expiryLog = ctx.warningLimit();
    }

    /** One client record. */
    static final class Client {
        final long clientId;
        final byte[] owner;
        final byte[] verifier;
        final int principal;
        /**
         * The IP address whose EXCHANGE_ID made the record: what the per-address cap counts, and
         * the one host CREATE_SESSION is served from for it.
         */
        final Object host;
        boolean confirmed;
        /** The last CREATE_SESSION sequenceid served (RFC 8881 §18.36.4): the next must be one more. */
        int createSessionSeq;
        /** The reply to that CREATE_SESSION, for its replay. */
        byte[] createSessionReply;
        long lastRenewMillis;
        boolean reclaimComplete;
        final List<SessionTable.Session> sessions = new ArrayList<>();

        Client(long clientId, byte[] owner, byte[] verifier, int principal, Object host, long now) {
            this.clientId = clientId;
            this.owner = owner;
            this.verifier = verifier;
            this.principal = principal;
            this.host = host;
            this.lastRenewMillis = now;
        }

        /** The sequenceid EXCHANGE_ID tells the client to use in its next CREATE_SESSION. */
        int nextCreateSessionSeq() {
            return createSessionSeq + 1;
        }
    }

    /** EXCHANGE_ID's outcome: the record and whether it was confirmed already. */
    record Exchanged(Client client, boolean confirmed) {
    }

    /**
     * EXCHANGE_ID for a client owner (RFC 8881 §18.35.5): the confirmed record of this owner is
     * returned if the verifier matches (the client is the same incarnation); a changed verifier
     * (the client rebooted) or no confirmed record gets a new unconfirmed record, which replaces any
     * other unconfirmed one. A confirmed record with state held by another principal is
     * NFS4ERR_CLID_INUSE whatever the verifier (§18.35.5 case 3, "client collision"): otherwise
     * anyone could name another client's owner with a new verifier and, at its CREATE_SESSION,
     * have that client's record dropped with all its state. Without state it is replaced, as
     * for a new owner.
     */
    Exchanged exchange(byte[] owner, byte[] verifier, int principal, SocketAddress from, boolean update) {
        reapExpired();
        Client confirmed = null;
        Client unconfirmed = null;
        for (Client c : byOwner.getOrDefault(ByteBuffer.wrap(owner), List.of())) {
            if (c.confirmed) {
                confirmed = c;
            } else {
                unconfirmed = c;
            }
        }
        if (update) {
            if (confirmed == null) {
                throw new Nfs4Exception(NFS4ERR_NOENT, "update of an unknown client owner");
            }
            if (!Arrays.equals(confirmed.verifier, verifier)) {
                throw new Nfs4Exception(NFS4ERR_NOT_SAME, "update with another verifier");
            }
            if (confirmed.principal != principal) {
                throw new Nfs4Exception(NFS4ERR_PERM, "update by another principal");
            }
            renew(confirmed);
            return new Exchanged(confirmed, true);
        }
        if (confirmed != null && confirmed.principal != principal) {
            if (hasState(confirmed)) {
                throw new Nfs4Exception(NFS4ERR_CLID_INUSE, "client owner in use by another principal");
            }
        } else if (confirmed != null && Arrays.equals(confirmed.verifier, verifier)) {
            renew(confirmed);
            return new Exchanged(confirmed, true);
        }
        if (unconfirmed != null) {
            remove(unconfirmed);
        }
        Object host = hostOf(from);
        if (confirmed == null || !confirmed.host.equals(host)) {
            makeRoomFor(host); // only a host's own client's new incarnation goes past its cap
        }
        makeRoom();
        Client c = new Client(newClientId(), owner.clone(), verifier.clone(), principal, host, ctx.now());
        byId.put(c.clientId, c);
        byHost.merge(host, 1, Integer::sum);
        byOwner.computeIfAbsent(ByteBuffer.wrap(c.owner), k -> new ArrayList<>(2)).add(c);
        unconfirmedByAge.add(c);
        return new Exchanged(c, false);
    }

    /**
     * A client id no live record has: the boot id, then a random word. The boot id makes the ids
     * of an earlier start unknown here (NFS4ERR_STALE_CLIENTID); the random word keeps another host
     * from working out the ids made just before or after its own, as it could from a counter, and
     * from then trying them in CREATE_SESSION.
     */
    private long newClientId() {
        long id;
        do {
            id = ((long) ctx.bootId() << 32) | (ctx.random().nextInt() & 0xFFFF_FFFFL);
        } while (byId.containsKey(id));
        return id;
    }

    /** Takes {@code c} out of the table and its indexes; its sessions and state are the caller's. */
    private void remove(Client c) {
        byId.remove(c.clientId);
        unindex(c);
    }

    /** Takes {@code c} out of the indexes beside {@link #byId}. */
    private void unindex(Client c) {
        unconfirmedByAge.remove(c);
        byHost.computeIfPresent(c.host, (h, n) -> n == 1 ? null : n - 1);
        ByteBuffer key = ByteBuffer.wrap(c.owner);
        List<Client> same = byOwner.get(key);
        if (same != null && same.remove(c) && same.isEmpty()) {
            byOwner.remove(key);
        }
    }

    private boolean hasState(Client c) {
        return !c.sessions.isEmpty() || ctx.states().hasState(c.clientId);
    }

    /**
     * What the per-address cap counts a client by, and what CREATE_SESSION must come from: its IP
     * address (whatever the port).
     */
    static Object hostOf(SocketAddress from) {
        if (from instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress();
        }
        return from == null ? NO_ADDRESS : from;
    }

    /** The host of calls from no socket address (in-process tests): one host. */
    private static final Object NO_ADDRESS = new Object();

    /**
     * Keeps {@code host} under its cap of records: at the cap its own oldest unconfirmed record
     * goes (at most {@code maxClients} looked at), and without one EXCHANGE_ID is NFS4ERR_DELAY.
     */
    private void makeRoomFor(Object host) {
        int cap = ctx.settings().maxClientsPerAddress();
        if (byHost.getOrDefault(host, 0) < cap) {
            return;
        }
        for (Client c : unconfirmedByAge) {
            if (c.host.equals(host)) {
                remove(c);
                return;
            }
        }
        throw new Nfs4Exception(NFS4ERR_DELAY, "client records of " + host + " at its cap (" + cap + ")");
    }

    private void makeRoom() {
        if (byId.size() < ctx.settings().maxClients()) {
            return;
        }
        if (!unconfirmedByAge.isEmpty()) {
            remove(unconfirmedByAge.iterator().next());
            return;
        }
        throw new Nfs4Exception(NFS4ERR_DELAY, "client table full (" + byId.size() + ")");
    }

    /** The record of a client id: NFS4ERR_STALE_CLIENTID if this server never issued it or has dropped it. */
    Client get(long clientId) {
        reapExpired();
        Client c = byId.get(clientId);
        if (c == null) {
            throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "unknown client id " + Long.toHexString(clientId));
        }
        return c;
    }

    /**
     * Confirms a record at its first CREATE_SESSION: any other record of the same owner (the
     * client's previous incarnation) is dropped with its sessions and state (RFC 8881 §18.35.5).
     */
    void confirm(Client c) {
        if (c.confirmed) {
            return;
        }
        for (Client other : List.copyOf(byOwner.get(ByteBuffer.wrap(c.owner)))) {
            if (other != c) {
                remove(other);
                drop(other);
            }
        }
        unconfirmedByAge.remove(c);
        c.confirmed = true;
    }

    void renew(Client c) {
        c.lastRenewMillis = ctx.now();
    }

    /**
     * DESTROY_CLIENTID (RFC 8881 §18.50): refused while the client has sessions or state; what
     * remains of it (owners without state, which a failed OPEN or a LOCK leaves) goes with it.
     */
    void destroy(long clientId) {
        Client c = get(clientId);
        if (!c.sessions.isEmpty() || ctx.states().hasState(clientId)) {
            throw new Nfs4Exception(NFS4ERR_CLIENTID_BUSY, "client " + Long.toHexString(clientId) + " still has state");
        }
        remove(c);
        ctx.states().dropClient(clientId);
        forgetIfLast(c);
    }

    /** Drops the stable record of {@code c}'s owner unless another record of that owner remains. */
    private void forgetIfLast(Client c) {
        if (!byOwner.containsKey(ByteBuffer.wrap(c.owner))) {
            ctx.records().remove(c.owner);
        }
    }

    /**
     * Drops every client whose lease ran out (RFC 8881 §8.3), with its sessions and state; a
     * client with a COMPOUND in progress is not expired (its SEQUENCE renewed it). At most once
     * per {@link #REAP_INTERVAL_MILLIS}: it is asked at every SEQUENCE and walks every client, so
     * one client's requests would otherwise each cost work in proportion to all the others. A
     * lease may so run up to that much longer, which RFC 8881 allows (a server may keep an
     * expired client's state until it conflicts, §8.4.3).
     */
    void reapExpired() {
        long now = ctx.now();
        if (reapedAtMillis != NEVER && now - reapedAtMillis < REAP_INTERVAL_MILLIS) {
            return;
        }
        reapedAtMillis = now;
        reaps++;
        long lease = ctx.settings().leaseSeconds() * 1000L;
        for (Iterator<Client> it = byId.values().iterator(); it.hasNext(); ) {
            Client c = it.next();
            if (now - c.lastRenewMillis > lease && c.sessions.stream().noneMatch(SessionTable.Session::busy)) {
                it.remove();
                unindex(c);
                long held = expiryLog.admit();
                if (held >= 0) {
                    log.info("NFSv4 client {} expired after {} s without renewal{}", Long.toHexString(c.clientId),
                            (now - c.lastRenewMillis) / 1000,
                            held == 0 ? "" : " (" + held + " more expired and not logged since the last message)");
                }
                drop(c);
                forgetIfLast(c);
            }
        }
    }

    private void drop(Client c) {
        for (SessionTable.Session s : List.copyOf(c.sessions)) {
            ctx.sessions().remove(s);
        }
        ctx.states().dropClient(c.clientId);
    }

    int size() {
        return byId.size();
    }

    /** Records made from {@code from}'s IP address now (a test seam). */
    int recordsOf(SocketAddress from) {
        return byHost.getOrDefault(hostOf(from), 0);
    }

    long reaps() {
        return reaps;
    }

    /** Expiry lines held back since the start. */
    long expiryLinesHeld() {
        return expiryLog.heldTotal();
    }
}
