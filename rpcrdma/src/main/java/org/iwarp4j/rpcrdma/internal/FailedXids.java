package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Calls whose RDMA Read or Write against the Requester's memory failed and killed the connection,
 * so that when the same Requester reconnects and retransmits one of them the Responder answers
 * ERR_CHUNK instead of repeating the operation that failed (RFC 8166 §4.5.3, RPC-R-067).
 *
 * <p>The purpose is narrow, and so is what this table does with a Call:
 *
 * <ul>
 *   <li><b>Which client.</b> A retransmission arrives on a new connection, and the Requester's
 *       port is not kept across reconnects (the iWARP connection manager takes a new ephemeral
 *       port, and a Requester that bound a reserved port may still pick another), so the transport
 *       identifies the client no better than by its host address. Several clients share a host,
 *       and each numbers its XIDs on its own, so the XID alone says nothing. What a genuine
 *       retransmission does repeat is the RPC call header (RFC 5531 §9): program, version and
 *       procedure, the credential and the verifier flavor. The entry therefore keeps that
 *       {@link CallShape}, and only a Call from the same host with the same XID <em>and</em> the
 *       same shape is failed. The credential is compared by what names the caller: for AUTH_SYS
 *       the machine name, uid, gid and gids without the stamp (some clients stamp each encoding
 *       with the clock); for RPCSEC_GSS the version, procedure, service and context handle without
 *       the sequence number (RFC 2203 §5.3.3.1 gives every retransmission a new one); for other
 *       flavors the flavor alone. A Long Call's header travels in its Position-Zero Read chunk and
 *       is not known until that chunk is pulled, which may be the very operation that failed: a
 *       failed Long Call is kept as {@link CallShape#LONG_CALL} and only matches another Long Call.
 *   <li><b>Only Calls that ask for RDMA again.</b> The table is consulted only for Calls that
 *       carry chunks (the caller checks): a Call without chunks cannot repeat the failed operation,
 *       so there is no retransmission loop to break and it is always served (RFC 8267 §6.7.2 lets
 *       the client retransmit after a disconnect without an RDMA_ERROR).
 *   <li><b>Once.</b> An entry answers one Call and is gone: a Requester that retransmits once more
 *       is served again (the ERR_CHUNK already completed its RPC, RPC-R-062). A Call from the same
 *       host and XID whose shape differs leaves the entry in place for the real retransmission.
 *   <li><b>Bounded.</b> At most {@code capacity} entries (the oldest go first), each kept
 *       {@code maxAge}: a client reconnects and retransmits within its RPC timeout, after which an
 *       entry can only hit an unrelated Call.
 * </ul>
 *
 * <p>Which Calls are recorded, and when, is {@link ResponderEngine}'s part.
 */
public final class FailedXids {

    /** The table a server keeps: 4096 entries, 5 minutes each. */
    public static FailedXids forServer() {
        return new FailedXids(4096, Duration.ofMinutes(5), System::nanoTime);
    }

    private final int capacity;
    private final long maxAgeNanos;
    private final LongSupplier nanoTime;
    /** In order of recording, so the oldest (and first to expire) come first. */
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>();

    private record Key(InetAddress host, int xid) {
    }

    private record Entry(CallShape shape, long recordedAt) {
    }

    public FailedXids(int capacity, Duration maxAge, LongSupplier nanoTime) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.capacity = capacity;
        this.maxAgeNanos = maxAge.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime);
    }

    /** Records that {@code xid}'s RDMA operation failed on a connection from {@code requester}. */
    synchronized void add(SocketAddress requester, int xid, CallShape shape) {
        Key k = key(requester, xid);
        if (k == null || shape == null) {
            return;
        }
        long now = nanoTime.getAsLong();
        expire(now);
        entries.remove(k); // re-recorded: moves to the young end
        entries.put(k, new Entry(shape, now));
        while (entries.size() > capacity) {
            Iterator<Key> oldest = entries.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    /**
     * {@code true}, once, if this Call is the retransmission of a recorded failed Call: same host,
     * same XID, same shape, recorded less than {@code maxAge} ago. The entry is then gone.
     */
    synchronized boolean takeRetransmission(SocketAddress requester, int xid, CallShape shape) {
        Key k = key(requester, xid);
        if (k == null || shape == null) {
            return false;
        }
        expire(nanoTime.getAsLong());
        Entry e = entries.get(k);
        if (e == null || !e.shape().equals(shape)) {
            return false;
        }
        entries.remove(k);
        return true;
    }

    synchronized int size() {
        expire(nanoTime.getAsLong());
        return entries.size();
    }

    private void expire(long now) {
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            if (now - it.next().recordedAt() < maxAgeNanos) {
                return;
            }
            it.remove();
        }
    }

    private static Key key(SocketAddress requester, int xid) {
        return requester instanceof InetSocketAddress a && a.getAddress() != null ? new Key(a.getAddress(), xid) : null;
    }

    /**
     * What a retransmission of an RPC Call repeats (RFC 5531 §9 call header), to tell it from
     * another client's Call that happens to use the same XID. Immutable.
     */
    public static final class CallShape {

        /** Any Long Call (RDMA_NOMSG): its call header is behind a Read chunk not yet pulled. */
        public static final CallShape LONG_CALL = new CallShape(true, 0, 0, 0, 0, new byte[0], 0);

        private static final int CALL = 0;
        private static final int AUTH_SYS = 1;
        private static final int RPCSEC_GSS = 6;
        private static final int MAX_AUTH_BODY = 400; // RFC 5531 §8.2: opaque_auth body<400>

        private final boolean longCall;
        private final int program;
        private final int version;
        private final int procedure;
        private final int credentialFlavor;
        private final byte[] caller;
        private final int verifierFlavor;

        private CallShape(boolean longCall, int program, int version, int procedure, int credentialFlavor,
                          byte[] caller, int verifierFlavor) {
            this.longCall = longCall;
            this.program = program;
            this.version = version;
            this.procedure = procedure;
            this.credentialFlavor = credentialFlavor;
            this.caller = caller;
            this.verifierFlavor = verifierFlavor;
        }

        /**
         * The shape of the RPC Call at {@code payload}'s reader index (not moved), or {@code null}
         * if it is not a well-formed call header (such a Call is never matched or recorded).
         */
        public static CallShape of(ByteBuf payload) {
            int i = payload.readerIndex();
            int end = payload.writerIndex();
            if (end - i < 32 || payload.getInt(i + 4) != CALL) {
                return null;
            }
            int flavor = payload.getInt(i + 24);
            long length = payload.getUnsignedInt(i + 28);
            int body = i + 32;
            long padded = (length + 3) & ~3L;
            if (length > MAX_AUTH_BODY || body + padded + 4 > end) {
                return null;
            }
            int verifier = payload.getInt(body + (int) padded);
            byte[] caller = callerOf(flavor, payload, body, (int) length);
            return caller == null ? null : new CallShape(false, payload.getInt(i + 12), payload.getInt(i + 16),
                    payload.getInt(i + 20), flavor, caller, verifier);
        }

        /** The part of a credential body that names the caller and survives a retransmission. */
        private static byte[] callerOf(int flavor, ByteBuf payload, int body, int length) {
            if (flavor == AUTH_SYS) {
                // stamp, machinename<255>, uid, gid, gids<16>: all but the stamp.
                return length < 4 ? null : ByteBufUtil.getBytes(payload, body + 4, length - 4);
            }
            if (flavor == RPCSEC_GSS) {
                // version, gss_proc, seq_num, service, handle<>: all but seq_num.
                if (length < 16) {
                    return null;
                }
                byte[] c = new byte[length - 4];
                payload.getBytes(body, c, 0, 8);
                payload.getBytes(body + 12, c, 8, length - 12);
                return c;
            }
            return new byte[0];
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CallShape s && longCall == s.longCall && program == s.program
                    && version == s.version && procedure == s.procedure && credentialFlavor == s.credentialFlavor
                    && verifierFlavor == s.verifierFlavor && Arrays.equals(caller, s.caller);
        }

        @Override
        public int hashCode() {
            return Objects.hash(longCall, program, version, procedure, credentialFlavor, verifierFlavor)
                    * 31 + Arrays.hashCode(caller);
        }

        @Override
        public String toString() {
            return longCall ? "CallShape{Long Call}" : "CallShape{" + program + '/' + version + '/' + procedure
                    + ", cred " + credentialFlavor + " (" + caller.length + " octets), verf " + verifierFlavor + '}';
        }
    }
}
