package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.ChannelAttrs4;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * The session operations of NFSv4.1 (RFC 8881 §18.34-§18.37, §18.46, §18.49-§18.51): EXCHANGE_ID,
 * CREATE_SESSION, SEQUENCE, DESTROY_SESSION, DESTROY_CLIENTID, RECLAIM_COMPLETE,
 * BIND_CONN_TO_SESSION and BACKCHANNEL_CTL. A back channel is granted when asked for on a
 * connection with a backward direction (RPC-over-RDMA, RFC 8167; TCP, where callbacks share the
 * client's connection; see {@link Callbacks}); BIND_CONN_TO_SESSION may move it to another connection.
 */
final class SessionOps {

    private static final byte[] SERVER_SCOPE = "iwarp4j".getBytes(StandardCharsets.UTF_8);
    private static final int KNOWN_EXCHGID_FLAGS = EXCHGID4_FLAG_SUPP_MOVED_REFER | EXCHGID4_FLAG_SUPP_MOVED_MIGR
            | EXCHGID4_FLAG_BIND_PRINC_STATEID | EXCHGID4_FLAG_MASK_PNFS | EXCHGID4_FLAG_UPD_CONFIRMED_REC_A;
    /** Octets of a COMPOUND's RPC and COMPOUND headers beyond the READ or WRITE payload. */
    private static final int HEADROOM = 8192;

    private final Nfs4Context ctx;
    private final byte[] serverMajorId;

    SessionOps(Nfs4Context ctx) {
        this.ctx = ctx;
        this.serverMajorId = ("iwarp4j-" + Long.toHexString(ctx.base().export().id())).getBytes(StandardCharsets.UTF_8);
    }

    /** EXCHANGE_ID (RFC 8881 §18.35); state protection SP4_NONE only (SP4_MACH_CRED and SP4_SSV: NFS4ERR_NOTSUPP). */
    Result exchangeId(XdrDecoder in, CompoundState st) {
        byte[] verifier = in.readFixedOpaque(NFS4_VERIFIER_SIZE);
        byte[] owner = in.readOpaque(NFS4_OPAQUE_LIMIT);
        int flags = in.readInt();
        int how = in.readEnum();
        if (how == SP4_MACH_CRED) {
            Bitmap4.decode(in);
            Bitmap4.decode(in);
        }
        if (how != SP4_NONE) {
            throw new Nfs4Exception(NFS4ERR_NOTSUPP, "state protection " + how);
        }
        long impls = in.readUnsignedInt();
        if (impls > 1) {
            throw new Nfs4Exception(NFS4ERR_BADXDR, "eia_client_impl_id<1> of " + impls);
        }
        if (impls == 1) {
            in.readOpaque(NFS4_OPAQUE_LIMIT);
            in.readOpaque(NFS4_OPAQUE_LIMIT);
            in.readHyper();
            in.readInt();
        }
        if ((flags & ~KNOWN_EXCHGID_FLAGS) != 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "EXCHANGE_ID flags 0x" + Integer.toHexString(flags));
        }
        if (owner.length == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "empty client owner");
        }
        if (!st.caller.admitted()) {
            // A host the export does not admit could do nothing with a client ID but take a place
            // in the client table that admitted clients need (and evict their unconfirmed records).
            throw new Nfs4Exception(NFS4ERR_PERM, "client " + st.caller.address() + " is not admitted");
        }
        ClientTable.Exchanged x;
        synchronized (ctx.lock()) {
            x = ctx.clients().exchange(owner, verifier, st.caller.uid(), st.caller.address(),
                    (flags & EXCHGID4_FLAG_UPD_CONFIRMED_REC_A) != 0);
        }
        ClientTable.Client c = x.client();
        int replyFlags = EXCHGID4_FLAG_USE_NON_PNFS | (x.confirmed() ? EXCHGID4_FLAG_CONFIRMED_R : 0);
        int seq = c.nextCreateSessionSeq();
        return Result.ok(out -> {
            out.writeHyper(c.clientId).writeInt(seq).writeInt(replyFlags);
            out.writeEnum(SP4_NONE);
            out.writeHyper(0).writeOpaque(serverMajorId, NFS4_OPAQUE_LIMIT);
            out.writeOpaque(SERVER_SCOPE, NFS4_OPAQUE_LIMIT);
            out.writeUnsignedInt(1);
            out.writeOpaque("iwarp4j.org".getBytes(StandardCharsets.UTF_8), NFS4_OPAQUE_LIMIT);
            out.writeOpaque("iwarp4j NFSv4.1 server".getBytes(StandardCharsets.UTF_8), NFS4_OPAQUE_LIMIT);
            out.writeHyper(ctx.startMillis() / 1000).writeInt(0);
        });
    }

    /**
     * CREATE_SESSION (RFC 8881 §18.36): served only to the principal and the host whose EXCHANGE_ID
     * made the client record (else NFS4ERR_CLID_INUSE); sequenced by the record's own sequenceid (a
     * replay gets the cached reply, anything but the next NFS4ERR_SEQ_MISORDERED); the channel
     * attributes are granted as asked but clamped to the server's limits, the fore channel's slots
     * also to what the reply cache budget holds ({@link SessionTable#create}); confirms the client record.
     */
    Result createSession(XdrDecoder in, CompoundState st) {
        long clientId = in.readHyper();
        int seq = in.readInt();
        int flags = in.readInt();
        ChannelAttrs4 fore = ChannelAttrs4.decode(in);
        ChannelAttrs4 back = ChannelAttrs4.decode(in);
        int cbProgram = in.readInt();
        org.iwarp4j.oncrpc.AuthSys cbCredential = callbackSecParms(in);
        synchronized (ctx.lock()) {
            ClientTable.Client c = ctx.clients().get(clientId);
            // Confirmed or not, and a replay as well as a new one (RFC 8881 §18.36.4): only the
            // principal whose EXCHANGE_ID made the record may create its sessions — the first drops
            // the owner's previous record and its state — and the cached reply of a replay holds a
            // session id, all it takes to act as the client. The host is checked too, since an
            // AUTH_SYS principal is a uid any host may claim.
            if (c.principal != st.caller.uid()) {
                throw new Nfs4Exception(NFS4ERR_CLID_INUSE, "CREATE_SESSION by another principal");
            }
            if (!c.host.equals(ClientTable.hostOf(st.caller.address()))) {
                throw new Nfs4Exception(NFS4ERR_CLID_INUSE, "CREATE_SESSION from another host than " + c.host);
            }
            if (c.createSessionReply != null && seq == c.createSessionSeq) {
                byte[] cached = c.createSessionReply;
                return Result.ok(out -> out.writeFixedOpaque(cached));
            }
            if (seq != c.createSessionSeq + 1) {
                throw new Nfs4Exception(NFS4ERR_SEQ_MISORDERED, "CREATE_SESSION sequenceid " + seq + ", expected "
                        + (c.createSessionSeq + 1));
            }
            ChannelAttrs4 grantedFore = clampFore(fore);
            ChannelAttrs4 grantedBack = new ChannelAttrs4(0, Math.min(back.maxRequestSize(), 4096),
                    Math.min(back.maxResponseSize(), 4096), Math.min(back.maxResponseSizeCached(), 0),
                    Math.min(back.maxOperations(), 2), Math.max(1, Math.min(back.maxRequests(), 1)), -1);
            org.iwarp4j.oncrpc.RpcClientTransport backchannel = (flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0
                    ? ctx.callbacks().channelOf(st.rpc) : null;
            SessionTable.Session s = ctx.sessions().create(c, grantedFore, grantedBack,
                    backchannel != null ? CREATE_SESSION4_FLAG_CONN_BACK_CHAN : 0, cbProgram);
            s.backchannel = backchannel;
            s.callbackCredential = cbCredential;
            s.minorVersion = st.minorVersion;
            ctx.clients().confirm(c);
            ctx.clients().renew(c);
            c.createSessionSeq = seq;
            byte[] body = encode(out -> {
                out.writeFixedOpaque(s.id).writeInt(seq).writeInt(s.flags);
                s.fore.encode(out);
                grantedBack.encode(out);
            });
            c.createSessionReply = body;
            return Result.ok(out -> out.writeFixedOpaque(body));
        }
    }

    private ChannelAttrs4 clampFore(ChannelAttrs4 asked) {
        Nfs4Settings s = ctx.settings();
        int maxReq = ctx.base().limits().maxWrite() + HEADROOM;
        int maxResp = ctx.base().limits().maxRead() + HEADROOM;
        if (asked.maxRequests() < 1 || asked.maxOperations() < 1) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "channel attributes " + asked);
        }
        return new ChannelAttrs4(0, clamp(asked.maxRequestSize(), maxReq), clamp(asked.maxResponseSize(), maxResp),
                clamp(asked.maxResponseSizeCached(), s.maxCachedReply()), clamp(asked.maxOperations(), s.maxOperations()),
                clamp(asked.maxRequests(), s.maxSlots()), -1);
    }

    private static int clamp(int asked, int max) {
        return Integer.compareUnsigned(asked, max) > 0 ? max : asked;
    }

    /**
     * callback_sec_parms4&lt;&gt; (RFC 8881 §18.36.1): the first AUTH_SYS credential the client
     * offers for callbacks, or null if it offers AUTH_NONE only (callbacks then go with AUTH_NONE,
     * which Linux accepts for CB_NULL only). RPCSEC_GSS entries are decoded and skipped.
     */
    static org.iwarp4j.oncrpc.AuthSys callbackSecParms(XdrDecoder in) {
        long n = in.readUnsignedInt();
        if (n > 16) {
            throw new Nfs4Exception(NFS4ERR_BADXDR, n + " callback security parameters");
        }
        org.iwarp4j.oncrpc.AuthSys sys = null;
        for (long i = 0; i < n; i++) {
            int flavor = in.readInt();
            switch (flavor) {
                case AUTH_NONE -> { }
                case AUTH_SYS -> {
                    int stamp = in.readInt();
                    String machine = new String(in.readOpaque(255), StandardCharsets.UTF_8);
                    int uid = in.readInt();
                    int gid = in.readInt();
                    int[] gids = in.readIntArray(16);
                    if (sys == null) {
                        sys = new org.iwarp4j.oncrpc.AuthSys(stamp, machine, uid, gid, gids);
                    }
                }
                case 6 -> {
                    in.readEnum();
                    in.readOpaque(NFS4_OPAQUE_LIMIT);
                    in.readOpaque(NFS4_OPAQUE_LIMIT);
                }
                default -> throw new Nfs4Exception(NFS4ERR_INVAL, "callback flavor " + flavor);
            }
        }
        return sys;
    }

    /**
     * SEQUENCE (RFC 8881 §18.46, §2.10.6.1): the slot's next sequenceid runs the COMPOUND (and
     * renews the lease); the same sequenceid is a replay, answered from the slot's cache (or
     * NFS4ERR_RETRY_UNCACHED_REP if the reply was not kept, NFS4ERR_DELAY while it is still being
     * made); any other is NFS4ERR_SEQ_MISORDERED. The reply is kept only when sa_cachethis asks
     * for it (§2.10.6.1.3: a client leaves it FALSE for idempotent requests, which it may simply
     * send again) and it fits ca_maxresponsesize_cached. A slot beyond the table is NFS4ERR_BADSLOT; a
     * COMPOUND longer than ca_maxoperations NFS4ERR_TOO_MANY_OPS, one larger than ca_maxrequestsize
     * NFS4ERR_REQ_TOO_BIG (§18.46.3; the whole RPC call counts), and the slot stays as it was. If
     * not even SEQUENCE's own result fits the reply limit (ca_maxresponsesize_cached with
     * sa_cachethis, else ca_maxresponsesize), SEQUENCE fails with NFS4ERR_REP_TOO_BIG_TO_CACHE or NFS4ERR_REP_TOO_BIG and the slot does not
     * advance (§18.46.3); later operations are bounded by {@link CompoundProcessor}.
     */
    /** SEQUENCE4resok: session id, sequenceid, slotid, highest and target slotid, status flags. */
    private static final int SEQUENCE_RESOK = NFS4_SESSIONID_SIZE + 5 * 4;

    Result sequence(XdrDecoder in, CompoundState st) {
        byte[] sid = in.readFixedOpaque(NFS4_SESSIONID_SIZE);
        int seq = in.readInt();
        int slotId = in.readInt();
        in.readInt(); // sa_highest_slotid: the client's own view
        boolean cacheThis = in.readBoolean();
        SessionTable.Session s;
        synchronized (ctx.lock()) {
            s = ctx.sessions().get(sid);
            // Before the slot is looked at, as knfsd does: a COMPOUND the session does not take
            // leaves the slot as it was (RFC 8881 §18.46.3), so that the client may send the same
            // sequenceid with fewer operations, and is no replay either.
            if (st.operationCount > s.fore.maxOperations()) {
                throw new Nfs4Exception(NFS4ERR_TOO_MANY_OPS, st.operationCount + " operations");
            }
            if (st.requestLength > s.fore.maxRequestSize()) {
                throw new Nfs4Exception(NFS4ERR_REQ_TOO_BIG, "a request of " + st.requestLength
                        + " octets, past ca_maxrequestsize " + s.fore.maxRequestSize());
            }
            if (Integer.compareUnsigned(slotId, s.slots.length) >= 0) {
                throw new Nfs4Exception(NFS4ERR_BADSLOT, "slot " + Integer.toUnsignedString(slotId) + " of "
                        + s.slots.length);
            }
            SessionTable.Slot slot = s.slots[slotId];
            if (seq == slot.seqid && slot.seqid != 0) {
                if (slot.inUse) {
                    throw new Nfs4Exception(NFS4ERR_DELAY, "slot " + slotId + " request still in progress");
                }
                if (slot.cachedReply == null) {
                    throw new Nfs4Exception(NFS4ERR_RETRY_UNCACHED_REP, "reply of slot " + slotId + " not kept");
                }
                st.replay = slot.cachedReply;
                return Result.ok();
            }
            if (seq != slot.seqid + 1) {
                throw new Nfs4Exception(NFS4ERR_SEQ_MISORDERED, "slot " + slotId + " at " + slot.seqid + ", got " + seq);
            }
            if (slot.inUse) {
                throw new Nfs4Exception(NFS4ERR_DELAY, "slot " + slotId + " busy");
            }
            int limit = cacheThis ? s.fore.maxResponseSizeCached() : s.fore.maxResponseSize();
            long needed = (long) st.replyLength + 8 + SEQUENCE_RESOK
                    + (st.operationCount > 1 ? CompoundProcessor.ERROR_SLACK : 0);
            if (needed > limit) {
                // the slot stays where it was: this request did not run (RFC 8881 §18.46.3)
                throw new Nfs4Exception(cacheThis ? NFS4ERR_REP_TOO_BIG_TO_CACHE : NFS4ERR_REP_TOO_BIG,
                        "even SEQUENCE's result passes the " + (cacheThis ? "cached " : "") + "reply limit " + limit);
            }
            slot.seqid = seq;
            slot.inUse = true;
            slot.cachedReply = null;
            st.slot = slot;
            st.session = s;
            st.cacheThis = cacheThis;
            ctx.clients().renew(s.client);
            if (s.backchannel != null && !s.probed) {
                s.probed = true;
                ctx.callbacks().probe(s); // the client knows the session now that it sequences on it
            }
        }
        int highest = s.slots.length - 1;
        return Result.ok(out -> out.writeFixedOpaque(sid).writeInt(seq).writeInt(slotId).writeInt(highest)
                .writeInt(highest).writeInt(0));
    }

    /**
     * DESTROY_SESSION (RFC 8881 §18.37). Of the session SEQUENCE named it must be the COMPOUND's
     * last operation (§18.37.3; NFS4ERR_NOT_ONLY_OP otherwise, as knfsd answers): the operations
     * after it would run in a session that is gone. Of another session it may stand anywhere.
     */
    Result destroySession(XdrDecoder in, CompoundState st) {
        byte[] sid = in.readFixedOpaque(NFS4_SESSIONID_SIZE);
        boolean own = st.session != null && java.util.Arrays.equals(sid, st.session.id);
        if (own && st.operation + 1 < st.operationCount) {
            throw new Nfs4Exception(NFS4ERR_NOT_ONLY_OP, "DESTROY_SESSION of its own session before the last operation");
        }
        synchronized (ctx.lock()) {
            SessionTable.Session s = ctx.sessions().get(sid);
            if (s != st.session && s.busy()) {
                throw new Nfs4Exception(NFS4ERR_DELAY, "session has requests in progress");
            }
            ctx.sessions().remove(s);
        }
        return Result.ok();
    }

    /** DESTROY_CLIENTID (RFC 8881 §18.50): NFS4ERR_CLIENTID_BUSY while sessions or state remain. */
    Result destroyClientId(XdrDecoder in, CompoundState st) {
        long clientId = in.readHyper();
        synchronized (ctx.lock()) {
            ctx.clients().destroy(clientId);
        }
        return Result.ok();
    }

    /**
     * RECLAIM_COMPLETE (RFC 8881 §18.51): once per client (NFS4ERR_COMPLETE_ALREADY after). The
     * client is recorded on stable storage (it may now get state), its reclaims end, and the grace
     * period ends early once every client of the previous start has done it (§8.4.2.1).
     */
    Result reclaimComplete(XdrDecoder in, CompoundState st) {
        boolean oneFs = in.readBoolean();
        if (oneFs) {
            return Result.ok(); // per file system: the export is one, and the global one follows
        }
        synchronized (ctx.lock()) {
            if (st.session.client.reclaimComplete) {
                throw new Nfs4Exception(NFS4ERR_COMPLETE_ALREADY, "RECLAIM_COMPLETE already done");
            }
            st.session.client.reclaimComplete = true;
            ctx.reclaimComplete(st.session.client);
            ctx.inGrace(); // ends it now if this was the last client to reclaim
        }
        return Result.ok();
    }

    /**
     * BIND_CONN_TO_SESSION (RFC 8881 §18.34): the connection is bound for the fore channel and,
     * when the client asks for the back channel (CDFC4_BACK, CDFC4_FORE_OR_BOTH, CDFC4_BACK_OR_BOTH)
     * and the connection has a backward direction, for the back channel too: callbacks move to it
     * and the back channel is probed again. Without a backward direction CDFC4_BACK is NFS4ERR_INVAL
     * and the *_OR_BOTH forms get the fore channel only.
     */
    Result bindConnToSession(XdrDecoder in, CompoundState st) {
        byte[] sid = in.readFixedOpaque(NFS4_SESSIONID_SIZE);
        int dir = in.readEnum();
        in.readBoolean(); // bctsa_use_conn_in_rdma_mode
        if (dir != CDFC4_FORE && dir != CDFC4_BACK && dir != CDFC4_FORE_OR_BOTH && dir != CDFC4_BACK_OR_BOTH) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "channel_dir_from_client4 " + dir);
        }
        org.iwarp4j.oncrpc.RpcClientTransport backward = dir == CDFC4_FORE ? null : ctx.callbacks().channelOf(st.rpc);
        int granted;
        synchronized (ctx.lock()) {
            SessionTable.Session s = ctx.sessions().get(sid);
            if (dir == CDFC4_BACK && backward == null) {
                throw new Nfs4Exception(NFS4ERR_INVAL, "this connection has no backward direction");
            }
            if (backward != null) {
                if (s.backchannel != backward) {
                    s.backchannel = backward;
                    s.probed = false; // probed at the session's next SEQUENCE
                }
                granted = dir == CDFC4_BACK ? CDFS4_BACK : CDFS4_BOTH;
            } else {
                granted = CDFS4_FORE;
            }
        }
        // RDMA mode means stepping a TCP connection up to RDMA (RFC 8881 §18.34.3), which this server does not offer
        return Result.ok(out -> out.writeFixedOpaque(sid).writeEnum(granted).writeBoolean(false));
    }

    /** BACKCHANNEL_CTL (RFC 8881 §18.33): accepted and remembered; the server makes no callbacks. */
    Result backchannelCtl(XdrDecoder in, CompoundState st) {
        int program = in.readInt();
        org.iwarp4j.oncrpc.AuthSys credential = callbackSecParms(in);
        synchronized (ctx.lock()) {
            st.session.callbackProgram = program;
            st.session.callbackCredential = credential;
        }
        return Result.ok();
    }

    static byte[] encode(java.util.function.Consumer<XdrEncoder> body) {
        XdrEncoder e = XdrEncoder.create(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT);
        body.accept(e);
        return e.toByteArray();
    }

    static ByteBuffer key(byte[] b) {
        return ByteBuffer.wrap(b);
    }
}
