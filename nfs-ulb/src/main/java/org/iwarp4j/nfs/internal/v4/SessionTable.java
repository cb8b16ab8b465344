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
 * {@link Nfs4Settings#maxCachedReply()} octets. Callers hold {@link Nfs4Context#lock()}.
 */
final class SessionTable {

    private final Nfs4Context ctx;
    private final Map<ByteBuffer, Session> byId = new HashMap<>();

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
     * {@link Nfs4Settings#maxSessionsPerClient()} sessions or the server {@link Nfs4Settings#maxSessions()}.
     */
    Session create(ClientTable.Client client, ChannelAttrs4 fore, ChannelAttrs4 back, int flags, int cbProgram) {
        if (client.sessions.size() >= ctx.settings().maxSessionsPerClient()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "client has " + client.sessions.size() + " sessions");
        }
        if (byId.size() >= ctx.settings().maxSessions()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "server has " + byId.size() + " sessions");
        }
        // the client's id, then 8 random octets: another host cannot guess a session's id from its
        // own (a boot id and a counter could be), so cannot name it in DESTROY_SESSION,
        // BIND_CONN_TO_SESSION or SEQUENCE without having seen it
        byte[] id;
        do {
            id = ByteBuffer.allocate(NFS4_SESSIONID_SIZE).putLong(client.clientId).putLong(ctx.random().nextLong())
                    .array();
        } while (byId.containsKey(ByteBuffer.wrap(id)));
        Session s = new Session(id, client, fore, back, flags, cbProgram);
        byId.put(ByteBuffer.wrap(id), s);
        client.sessions.add(s);
        return s;
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

    void remove(Session s) {
        byId.remove(ByteBuffer.wrap(s.id));
        s.client.sessions.remove(s);
    }

    int size() {
        return byId.size();
    }
}
