package org.iwarp4j.nfs.internal.v4;

/**
 * The NFSv4.1 server's timers and the caps on every table a client can make it grow (see
 * docs/limits.md). Every cap holds per client and per server, so that no client — however
 * hostile — nor all of them together make the server keep more than a known amount of state.
 *
 * @param leaseSeconds lease_time (RFC 8881 §8.3): a client that sends nothing for this long loses its state
 * @param graceSeconds the grace period after start (RFC 8881 §8.4.2) during which only reclaims may open or lock
 * @param maxClients client records (confirmed or not) on the server
 * @param maxClientsPerAddress client records made from one IP address, besides the new incarnation
 *        of a client it already has a confirmed record of
 * @param maxSessionsPerClient sessions one client may have
 * @param maxSessions sessions on the server
 * @param maxSlots fore channel slots granted per session (ca_maxrequests)
 * @param maxOperations operations per COMPOUND (ca_maxoperations)
 * @param maxCachedReply octets of one slot's cached reply (ca_maxresponsesize_cached)
 * @param maxReplyCacheOctets octets of cached replies the slots of all sessions together may hold:
 *        each CREATE_SESSION reserves its slots times its ca_maxresponsesize_cached
 * @param maxOwnersPerClient open owners plus lock owners per client
 * @param maxStatesPerClient open and lock stateids per client
 * @param maxLocksPerClient byte-range locks per client
 * @param maxOwners open owners plus lock owners on the server
 * @param maxStates open and lock stateids on the server
 * @param maxLocks byte-range locks on the server
 * @param maxLocksPerFile byte-range locks on one file, of all its clients
 */
public record Nfs4Settings(int leaseSeconds, int graceSeconds, int maxClients, int maxClientsPerAddress,
                           int maxSessionsPerClient, int maxSessions, int maxSlots, int maxOperations, int maxCachedReply,
                           long maxReplyCacheOctets,
                           int maxOwnersPerClient, int maxStatesPerClient, int maxLocksPerClient,
                           int maxOwners, int maxStates, int maxLocks, int maxLocksPerFile) {

    public Nfs4Settings {
        if (leaseSeconds < 1 || graceSeconds < 0 || maxClients < 1 || maxClientsPerAddress < 1
                || maxSessionsPerClient < 1 || maxSessions < 1
                || maxSlots < 1 || maxOperations < 2 || maxCachedReply < 512 || maxReplyCacheOctets < maxCachedReply
                || maxOwnersPerClient < 1
                || maxStatesPerClient < 1 || maxLocksPerClient < 1 || maxOwners < 1 || maxStates < 1
                || maxLocks < 2 || maxLocksPerFile < 2) {
            throw new IllegalArgumentException("NFSv4 settings out of range: " + this);
        }
    }

    /**
     * Defaults: a 90 s lease (knfsd's), no grace period (the server keeps no client records across
     * restarts, so no client can have state to reclaim, RFC 8881 §8.4.2.1), 1024 clients of which
     * 64 from one address (as the connection caps per address: a few hosts behind one NAT address
     * or a host's containers, while one host alone cannot take the table), 4 sessions per client
     * and 1024 in all, 64 slots (Linux asks for 64), 16 operations (Linux's longest COMPOUND has 8), 8 KiB cached per slot
     * and {@link #defaultReplyCacheOctets()} cached on the server, 1024 owners, 4096 stateids and 4096 locks
     * per client, and on the server 65,536 owners, 262,144 stateids and 262,144 locks (an owner's
     * name is at most 1 KiB: at most some 140 MiB of owners, 40 MiB of stateids, 16 MiB of locks,
     * where the per-client caps alone allowed 1024 times the per-client amounts), and 16,384 locks
     * on one file (what a LOCK on it tests for conflicts; four times what one client may hold, so
     * that one client cannot fill a file's locks alone).
     */
    public static Nfs4Settings defaults() {
        return new Nfs4Settings(90, 0, 1024, 64, 4, 1024, 64, 16, 8192, defaultReplyCacheOctets(), 1024, 4096, 4096,
                65_536, 262_144, 262_144, 16_384);
    }

    /**
     * The default budget of cached replies on the server: a sixteenth of the heap, at most 64 MiB
     * (8192 slots of 8 KiB, 128 sessions of the 64 slots Linux asks for). The caps on sessions and
     * slots alone let the slots cache 1024 × 64 × 8 KiB, 512 MiB; knfsd bounds its slots the same
     * way, by a share of memory (nfsd4_get_drc_mem).
     */
    public static long defaultReplyCacheOctets() {
        return Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 16);
    }

    public Nfs4Settings withLease(int seconds) {
        Copy c = new Copy(this);
        c.leaseSeconds = seconds;
        return c.build();
    }

    public Nfs4Settings withGrace(int seconds) {
        Copy c = new Copy(this);
        c.graceSeconds = seconds;
        return c.build();
    }

    public Nfs4Settings withTables(int clients, int sessionsPerClient, int sessions, int slots, int owners,
                                   int states, int locks) {
        Copy c = new Copy(this);
        c.maxClients = clients;
        c.maxSessionsPerClient = sessionsPerClient;
        c.maxSessions = sessions;
        c.maxSlots = slots;
        c.maxOwnersPerClient = owners;
        c.maxStatesPerClient = states;
        c.maxLocksPerClient = locks;
        return c.build();
    }

    /** These settings with the cap on client records made from one address given. */
    public Nfs4Settings withClientsPerAddress(int clients) {
        Copy c = new Copy(this);
        c.maxClientsPerAddress = clients;
        return c.build();
    }

    /** These settings with the cap on locks of one file given. */
    public Nfs4Settings withLocksPerFile(int locksPerFile) {
        Copy c = new Copy(this);
        c.maxLocksPerFile = locksPerFile;
        return c.build();
    }

    /** These settings with the server-wide budget of cached replies given. */
    public Nfs4Settings withReplyCache(long octets) {
        Copy c = new Copy(this);
        c.maxReplyCacheOctets = octets;
        return c.build();
    }

    /** These settings with the server-wide caps on owners, stateids and locks given. */
    public Nfs4Settings withServerTables(int owners, int states, int locks) {
        Copy c = new Copy(this);
        c.maxOwners = owners;
        c.maxStates = states;
        c.maxLocks = locks;
        return c.build();
    }

    /** The fields of settings being changed: each wither names what it changes, not all sixteen. */
    private static final class Copy {
        int leaseSeconds;
        int graceSeconds;
        int maxClients;
        int maxClientsPerAddress;
        int maxSessionsPerClient;
        int maxSessions;
        int maxSlots;
        int maxOperations;
        int maxCachedReply;
        long maxReplyCacheOctets;
        int maxOwnersPerClient;
        int maxStatesPerClient;
        int maxLocksPerClient;
        int maxOwners;
        int maxStates;
        int maxLocks;
        int maxLocksPerFile;

        Copy(Nfs4Settings s) {
            leaseSeconds = s.leaseSeconds;
            graceSeconds = s.graceSeconds;
            maxClients = s.maxClients;
            maxClientsPerAddress = s.maxClientsPerAddress;
            maxSessionsPerClient = s.maxSessionsPerClient;
            maxSessions = s.maxSessions;
            maxSlots = s.maxSlots;
            maxOperations = s.maxOperations;
            maxCachedReply = s.maxCachedReply;
            maxReplyCacheOctets = s.maxReplyCacheOctets;
            maxOwnersPerClient = s.maxOwnersPerClient;
            maxStatesPerClient = s.maxStatesPerClient;
            maxLocksPerClient = s.maxLocksPerClient;
            maxOwners = s.maxOwners;
            maxStates = s.maxStates;
            maxLocks = s.maxLocks;
            maxLocksPerFile = s.maxLocksPerFile;
        }

        Nfs4Settings build() {
            return new Nfs4Settings(leaseSeconds, graceSeconds, maxClients, maxClientsPerAddress, maxSessionsPerClient,
                    maxSessions, maxSlots, maxOperations, maxCachedReply, maxReplyCacheOctets, maxOwnersPerClient,
                    maxStatesPerClient, maxLocksPerClient, maxOwners, maxStates, maxLocks, maxLocksPerFile);
        }
    }
}
