package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.iwarp4j.nfs.v4.ChannelAttrs4;

/**
 * Sessions (RFC 8881 §2.10): made by CREATE_SESSION, each with a fore channel slot table whose
 * slots hold the last sequenceid and, for replay (§2.10.6.1), the last reply of at most
 * ca_maxresponsesize_cached octets ({@link Nfs4Settings#maxCachedReply()} at most). Every session
 * reserves its slots times that from {@link Nfs4Settings#maxReplyCacheOctets()} while it lives.
 * Callers hold {@link Nfs4Context#lock()}.
 */
final class SessionTable {

    private final Nfs4Context ctx;
    private final Map<ByteBuffer, Session> byId = new HashMap<>();
    /** Octets of cached replies the live sessions' slots have reserved. */
    private long replyCacheReserved;

    SessionTable(Nfs4Context ctx) {
        this.ctx = ctx;
    }

    /** One slot of a fore channel (RFC 8881 §2.10.6.1). */
    static final class Slot {
        final int id;
        int seqid;
        boolean inUse;
        /** The whole COMPOUND4res last sent on this slot, or null if it was not kept. */
        byte[] cachedReply;

        Slot(int id) {
            this.id = id;
        }
    }

    /** One session. */
    static final class Session {
        final byte[] id;
        final ClientTable.Client client;
        final ChannelAttrs4 fore;
        final ChannelAttrs4 back;
        final Slot[] slots;
        final int flags;
        int callbackProgram;
        /** The backward direction of the connection the session was made on, if a back channel was granted. */
        org.iwarp4j.oncrpc.RpcClientTransport backchannel;
        /** The minor version of the COMPOUND that made the session: its CB_COMPOUNDs carry the same. */
        int minorVersion = 1;
        /** The AUTH_SYS credential the client asked callbacks to carry, or null for AUTH_NONE. */
        org.iwarp4j.oncrpc.AuthSys callbackCredential;
        /** Whether the back channel has been probed (after the first SEQUENCE, and again after a new one is bound). */
        boolean probed;
        /** Counts the probes begun: a probe that a later one superseded stops instead of retrying. */
        final java.util.concurrent.atomic.AtomicInteger probes = new java.util.concurrent.atomic.AtomicInteger();
        /** The last sequenceid used on back channel slot 0 (RFC 8881 §2.10.6.1; the back channel has one slot). */
        final java.util.concurrent.atomic.AtomicInteger backSlotSeqid = new java.util.concurrent.atomic.AtomicInteger();

        Session(byte[] id, ClientTable.Client client, ChannelAttrs4 fore, ChannelAttrs4 back, int flags,
                int callbackProgram) {
            this.id = id;
            this.client = client;
            this.fore = fore;
            this.back = back;
            this.flags = flags;
            this.callbackProgram = callbackProgram;
            this.slots = new Slot[fore.maxRequests()];
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot(i);
            }
        }

        /**
         * What the slots' cached replies may take together, reserved from the server's budget
         * while the session lives.
         */
        long replyCacheOctets() {
            return (long) slots.length * fore.maxResponseSizeCached();
        }

        boolean busy() {
            for (Slot s : slots) {
                if (s.inUse) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public String toString() {
            return "session " + HexFormat.of().formatHex(id);
        }
    }

    /**
     * A new session for a confirmed client: NFS4ERR_NOSPC if the client has
     * {@link Nfs4Settings#maxSessionsPerClient()} sessions or the server {@link Nfs4Settings#maxSessions()};
     * its fore channel has fewer slots than {@code fore} asks if the reply cache budget is short
     * ({@link #withinReplyCache}), which the session's {@link Session#fore} tells.
     */
    Session create(ClientTable.Client client, ChannelAttrs4 fore, ChannelAttrs4 back, int flags, int cbProgram) {
        if (client.sessions.size() >= ctx.settings().maxSessionsPerClient()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "client has " + client.sessions.size() + " sessions");
        }
        if (byId.size() >= ctx.settings().maxSessions()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "server has " + byId.size() + " sessions");
        }
        ChannelAttrs4 granted = withinReplyCache(fore);
        // the client's id, then 8 random octets: another host cannot guess a session's id from its
        // own (a boot id and a counter could be), so cannot name it in DESTROY_SESSION,
        // BIND_CONN_TO_SESSION or SEQUENCE without having seen it
        byte[] id;
        do {
            id = ByteBuffer.allocate(NFS4_SESSIONID_SIZE).putLong(client.clientId).putLong(ctx.random().nextLong())
                    .array();
        } while (byId.containsKey(ByteBuffer.wrap(id)));
        Session s = new Session(id, client, granted, back, flags, cbProgram);
        byId.put(ByteBuffer.wrap(id), s);
        client.sessions.add(s);
        replyCacheReserved += s.replyCacheOctets();
        return s;
    }

    /**
     * {@code fore} with no more slots than the rest of the reply cache budget holds at its
     * ca_maxresponsesize_cached each: a server may grant fewer than the ca_maxrequests asked for
     * (RFC 8881 §18.36.3), and fewer slots, not smaller ones, is what a client copes with, as
     * knfsd's nfsd4_get_drc_mem chooses. Without room for one slot NFS4ERR_DELAY, as knfsd answered
     * before it began to overdraw by one slot: the room comes back as sessions go.
     */
    private ChannelAttrs4 withinReplyCache(ChannelAttrs4 fore) {
        int perSlot = fore.maxResponseSizeCached();
        if (perSlot == 0) {
            return fore; // nothing is kept
        }
        long fit = (ctx.settings().maxReplyCacheOctets() - replyCacheReserved) / perSlot;
        if (fit >= fore.maxRequests()) {
            return fore;
        }
        if (fit < 1) {
            throw new Nfs4Exception(NFS4ERR_DELAY, "reply cache budget spent (" + replyCacheReserved + " octets)");
        }
        return new ChannelAttrs4(fore.headerPadSize(), fore.maxRequestSize(), fore.maxResponseSize(), perSlot,
                fore.maxOperations(), (int) fit, fore.rdmaIrd());
    }

    /** The session with this id: NFS4ERR_BADSESSION if there is none (never made, destroyed or expired). */
    Session get(byte[] id) {
        ctx.clients().reapExpired();
        Session s = byId.get(ByteBuffer.wrap(id));
        if (s == null) {
            throw new Nfs4Exception(NFS4ERR_BADSESSION, "unknown session " + HexFormat.of().formatHex(id));
        }
        return s;
    }

    /** Removes a session (destroyed, or its client expired or replaced), which gives back its reply cache budget. */
    void remove(Session s) {
        if (byId.remove(ByteBuffer.wrap(s.id)) != null) {
            replyCacheReserved -= s.replyCacheOctets();
        }
        s.client.sessions.remove(s);
    }

    int size() {
        return byId.size();
    }
}
