package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.nfs.internal.Caller;
import org.iwarp4j.nfs.internal.MetadataCommits;
import org.iwarp4j.nfs.internal.NamespaceLock;
import org.iwarp4j.nfs.v4.Compound4Header;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallContext;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.oncrpc.XdrMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The COMPOUND procedure (RFC 8881 §16.2): runs the operations in order until one fails, and
 * answers the status of the last one run, the tag, and each operation's result.
 *
 * <p>The rules around sessions (§2.10.6, §18.46.3): in minor versions 1 and 2 every COMPOUND
 * starts with SEQUENCE (else NFS4ERR_OP_NOT_IN_SESSION), except one that is EXCHANGE_ID,
 * CREATE_SESSION, BIND_CONN_TO_SESSION, DESTROY_CLIENTID or DESTROY_SESSION alone (with more
 * operations NFS4ERR_NOT_ONLY_OP); SEQUENCE anywhere else is NFS4ERR_SEQUENCE_POS.
 * BIND_CONN_TO_SESSION is always alone (§18.34.3) and DESTROY_SESSION of the COMPOUND's own
 * session last (§18.37.3), else NFS4ERR_NOT_ONLY_OP. The reply of a sequenced COMPOUND whose
 * SEQUENCE set sa_cachethis is kept in its slot, so that a retransmission gets the very same
 * octets; a retransmission of any other gets NFS4ERR_RETRY_UNCACHED_REP (RFC 8881 §2.10.6.1.3).
 *
 * <p>Reply size (§2.10.6.1.3, §18.46.3, as knfsd does it): a sequenced reply is bounded by
 * ca_maxresponsesize_cached when sa_cachethis is set, else by ca_maxresponsesize (RPC reply header
 * included). The operation whose result would pass the bound gets NFS4ERR_REP_TOO_BIG_TO_CACHE,
 * resp. NFS4ERR_REP_TOO_BIG, in place of its result, and the COMPOUND ends there — so a kept reply
 * always fits its slot. Operations that change state are checked before they run, against the
 * largest result they can have; READ shortens its data and READDIR its maxcount to the room left. Minor version 0 and unknown minor versions get
 * NFS4ERR_MINOR_VERS_MISMATCH with no results (§16.2.3) and a log line naming the version.
 */
public final class CompoundProcessor {

    private static final Logger log = LoggerFactory.getLogger(CompoundProcessor.class);

    /** Operations that may start a COMPOUND without SEQUENCE (RFC 8881 §18.35.3, §18.36.3, §18.34.3, §18.50.3, §18.37.3). */
    private static final Set<Integer> SESSIONLESS = Set.of(OP_EXCHANGE_ID, OP_CREATE_SESSION,
            OP_BIND_CONN_TO_SESSION, OP_DESTROY_CLIENTID, OP_DESTROY_SESSION);
    /** Operations of NFSv4.0 that NFSv4.1 made "MNI" (must not implement): NFS4ERR_NOTSUPP (RFC 8881 §18). */
    private static final Set<Integer> V40_ONLY = Set.of(OP_OPEN_CONFIRM, OP_RENEW, OP_SETCLIENTID,
            OP_SETCLIENTID_CONFIRM, OP_RELEASE_LOCKOWNER);

    /**
     * Octets of an accepted RPC reply header before the procedure's results (RFC 5531 §9: xid,
     * REPLY, MSG_ACCEPTED, an AUTH_NONE verifier, SUCCESS), which the session's reply limits count.
     */
    static final int RPC_REPLY_HEADER = 24;
    /** Octets of an RPC call header before its credential (RFC 5531 §9: xid, CALL, rpcvers, prog, vers, proc). */
    static final int RPC_CALL_HEADER = 24;
    /** Room kept for the next operation's error result (knfsd's COMPOUND_ERR_SLACK_SPACE). */
    static final int ERROR_SLACK = 16;
    /**
     * The operations that change state, with the most their result can take (opcode and status
     * included). In a session they run only if that fits the reply limit: one run whose answer is
     * then replaced by NFS4ERR_REP_TOO_BIG(_TO_CACHE) would have changed something the client
     * believes did not happen, and a retry would do it twice (RFC 8881 §2.10.6.1.3; knfsd checks
     * OP_MODIFIES_SOMETHING operations the same way before running them).
     */
    private static final Map<Integer, Integer> MODIFYING = Map.ofEntries(
            Map.entry(OP_OPEN, 8 + 16 + 20 + 4 + 16 + 8 + 64),         // stateid, cinfo, rflags, attrset, delegation
            Map.entry(OP_CLOSE, 8 + 16), Map.entry(OP_OPEN_DOWNGRADE, 8 + 16), Map.entry(OP_LOCKU, 8 + 16),
            Map.entry(OP_LOCK, 8 + 8 + 8 + 4 + 8 + 4 + NFS4_OPAQUE_LIMIT), // LOCK4denied with the longest owner
            Map.entry(OP_WRITE, 8 + 16), Map.entry(OP_COMMIT, 8 + 8),
            Map.entry(OP_CREATE, 8 + 20 + 16), Map.entry(OP_SETATTR, 8 + 16),
            Map.entry(OP_REMOVE, 8 + 20), Map.entry(OP_LINK, 8 + 20), Map.entry(OP_RENAME, 8 + 40),
            Map.entry(OP_FREE_STATEID, 8), Map.entry(OP_DELEGRETURN, 8), Map.entry(OP_RECLAIM_COMPLETE, 8),
            Map.entry(OP_DESTROY_SESSION, 8), Map.entry(OP_BACKCHANNEL_CTL, 8));

    /**
     * Operations that add, remove or move names, run holding the namespace lock exclusively
     * ({@link NamespaceLock}); OPEN, which may create its file, among them.
     */
    private static final Set<Integer> CHANGING_NAMES = Set.of(OP_CREATE, OP_LINK, OP_OPEN, OP_REMOVE, OP_RENAME);
    /**
     * Operations that run without the namespace lock: those that act on no path (sessions, client
     * and lock state) and READ, WRITE and COMMIT, which hold it only to open their channel
     * ({@link org.iwarp4j.nfs.internal.OpenFiles}), so that their I/O holds up no change of a name.
     * Every other operation holds it shared.
     */
    private static final Set<Integer> NOT_ON_PATHS = Set.of(OP_SEQUENCE, OP_EXCHANGE_ID, OP_CREATE_SESSION,
            OP_DESTROY_SESSION, OP_DESTROY_CLIENTID, OP_BIND_CONN_TO_SESSION, OP_BACKCHANNEL_CTL,
            OP_RECLAIM_COMPLETE, OP_FREE_STATEID, OP_TEST_STATEID, OP_CLOSE, OP_OPEN_DOWNGRADE, OP_DELEGRETURN,
            OP_LOCK, OP_LOCKT, OP_LOCKU, OP_READ, OP_WRITE, OP_COMMIT);
    private static final NamespaceLock.Hold NO_HOLD = () -> { };

    private final Nfs4Context ctx;
    private final Map<Integer, Operation> operations = new HashMap<>();
    private final java.util.concurrent.atomic.AtomicLong lastMismatchLog = new java.util.concurrent.atomic.AtomicLong();
    /** NFS4ERR_SERVERFAULT is a bug the client may find and repeat: its stack trace is logged a few times per interval. */
    private final org.iwarp4j.oncrpc.internal.LogRateLimit serverFaultLog;

    /** SERVERFAULT warnings held back since the start. */
    long serverFaultWarningsHeld() {
        return serverFaultLog.heldTotal();
    }

    public CompoundProcessor(Nfs4Context ctx) {
        this.ctx = ctx;
        this.serverFaultLog = ctx.warningLimit();
        Attributes4 attributes = new Attributes4(ctx);
        SessionOps sessions = new SessionOps(ctx);
        FileOps files = new FileOps(ctx, attributes);
        OpenOps opens = new OpenOps(ctx);
        DataOps4 data = new DataOps4(ctx, opens);
        operations.put(OP_EXCHANGE_ID, sessions::exchangeId);
        operations.put(OP_CREATE_SESSION, sessions::createSession);
        operations.put(OP_SEQUENCE, sessions::sequence);
        operations.put(OP_DESTROY_SESSION, sessions::destroySession);
        operations.put(OP_DESTROY_CLIENTID, sessions::destroyClientId);
        operations.put(OP_RECLAIM_COMPLETE, sessions::reclaimComplete);
        operations.put(OP_BIND_CONN_TO_SESSION, sessions::bindConnToSession);
        operations.put(OP_BACKCHANNEL_CTL, sessions::backchannelCtl);
        operations.put(OP_PUTROOTFH, files::putrootfh);
        operations.put(OP_PUTPUBFH, files::putrootfh);
        operations.put(OP_PUTFH, files::putfh);
        operations.put(OP_GETFH, files::getfh);
        operations.put(OP_SAVEFH, files::savefh);
        operations.put(OP_RESTOREFH, files::restorefh);
        operations.put(OP_LOOKUP, files::lookup);
        operations.put(OP_LOOKUPP, files::lookupp);
        operations.put(OP_ACCESS, files::access);
        operations.put(OP_GETATTR, files::getattr);
        operations.put(OP_SETATTR, (in, st) -> files.setattr(in, st, opens));
        operations.put(OP_CREATE, files::create);
        operations.put(OP_REMOVE, files::remove);
        operations.put(OP_RENAME, files::rename);
        operations.put(OP_LINK, files::link);
        operations.put(OP_READLINK, files::readlink);
        operations.put(OP_READDIR, files::readdir);
        operations.put(OP_SECINFO, files::secinfo);
        operations.put(OP_SECINFO_NO_NAME, files::secinfoNoName);
        operations.put(OP_OPEN, opens::open);
        operations.put(OP_CLOSE, opens::close);
        operations.put(OP_OPEN_DOWNGRADE, opens::openDowngrade);
        operations.put(OP_LOCK, opens::lock);
        operations.put(OP_LOCKT, opens::lockt);
        operations.put(OP_LOCKU, opens::locku);
        operations.put(OP_TEST_STATEID, opens::testStateid);
        operations.put(OP_FREE_STATEID, opens::freeStateid);
        operations.put(OP_DELEGRETURN, opens::delegreturn);
        operations.put(OP_READ, data::read);
        operations.put(OP_WRITE, data::write);
        operations.put(OP_COMMIT, data::commit);
        operations.put(OP_SEEK, data::seek);
    }

    /** Whether the server implements the operation (for the documentation and tests). */
    public boolean implemented(int opcode) {
        return operations.containsKey(opcode);
    }

    /** Serves one COMPOUND: decodes its header, runs it, and returns COMPOUND4res. */
    public XdrMessage compound(RpcCallContext rpc, XdrDecoder in) {
        // What ca_maxrequestsize bounds: the whole call but its transport framing (RFC 8881
        // §18.36.3). Over RPC-over-RDMA the arguments hold the data of the call's Read chunks too,
        // put back in place before the call is dispatched, so a WRITE's data counts whether it came
        // inline or in a chunk, as in knfsd (rq_arg).
        long requestLength = RPC_CALL_HEADER + authLength(rpc.credential()) + authLength(rpc.verifier())
                + in.remaining();
        Compound4Header args = Compound4Header.decodeArgs(in);
        byte[] tag = args.tag();
        long minor = args.minorVersion();
        long numops = args.count();
        if (minor != 1 && minor != 2) {
            long now = System.nanoTime();
            long last = lastMismatchLog.get();
            if ((last == 0 || now - last >= 60_000_000_000L) && lastMismatchLog.compareAndSet(last, now)) {
                // at most once a minute: a client retrying in a loop cannot flood the log
                log.info("NFSv4 COMPOUND of minor version {} from {}: NFS4ERR_MINOR_VERS_MISMATCH (this server "
                        + "serves 4.1 and 4.2)", minor, rpc.transport().remoteAddress());
            }
            return reply(rpc, NFS4ERR_MINOR_VERS_MISMATCH, tag, 0, null);
        }
        Caller caller = ctx.base().caller(rpc);
        CompoundState st = new CompoundState(ctx, rpc, caller, (int) minor);
        st.operationCount = numops;
        st.requestLength = requestLength;
        XdrEncoder results = rpc.newEncoder();
        int head = RPC_REPLY_HEADER + 12 + tag.length + XdrMessage.padding(tag.length);
        int status = NFS4_OK;
        int done = 0;
        try {
            for (long i = 0; i < numops; i++) {
                int opcode;
                try {
                    opcode = in.readInt();
                } catch (XdrException e) {
                    results.writeInt(OP_ILLEGAL).writeInt(NFS4ERR_BADXDR);
                    status = NFS4ERR_BADXDR;
                    done++;
                    break;
                }
                int resop = known(opcode, st.minorVersion) ? opcode : OP_ILLEGAL;
                int slack = i + 1 < numops ? ERROR_SLACK : 0;
                st.replyLength = head + results.length();
                st.operation = i;
                Integer estimate = st.session == null ? null : MODIFYING.get(opcode);
                Result r;
                if (estimate != null && (long) st.replyLength + estimate + slack > st.replyLimit()) {
                    // not run: it changes something, and its answer might not fit (RFC 8881 §18.46.3)
                    r = Result.status(st.tooBig());
                } else {
                    r = run(i, numops, opcode, in, st);
                }
                if (st.replay != null) {
                    results.discard();
                    results = null;
                    ByteBuf cached = rpc.transport().alloc().buffer(st.replay.length).writeBytes(st.replay);
                    return XdrMessage.of(cached);
                }
                int opStatus = st.session == null ? encode(results, resop, r)
                        : encodeBounded(rpc, results, head, resop, r, r.status() == NFS4_OK ? slack : 0, st);
                done++;
                if (opStatus != NFS4_OK) {
                    status = opStatus;
                    break;
                }
            }
            XdrMessage reply = reply(rpc, status, tag, done, results);
            results = null;
            // Before the reply is kept for a retransmission or leaves, outside the state lock: the
            // client records this COMPOUND changed (a first OPEN, RECLAIM_COMPLETE, clients it
            // found expired) reach the disk.
            ctx.records().commit();
            keep(st, reply);
            return reply;
        } finally {
            if (results != null) {
                results.discard();
            }
            ctx.records().commit(); // nothing left unless an operation failed on the way
            release(st);
        }
    }

    /** Octets of an opaque_auth as it travelled: flavor, length and the padded body (RFC 5531 §8.2). */
    private static int authLength(OpaqueAuth auth) {
        return 8 + auth.length() + XdrMessage.padding(auth.length());
    }

    private boolean known(int opcode, int minor) {
        return opcode >= OP_ACCESS && opcode <= (minor >= 2 ? OP_CLONE : OP_RECLAIM_COMPLETE);
    }

    private Result run(long index, long numops, int opcode, XdrDecoder in, CompoundState st) {
        if (!known(opcode, st.minorVersion)) {
            return Result.status(NFS4ERR_OP_ILLEGAL);
        }
        if (index == 0 && opcode != OP_SEQUENCE) {
            if (!SESSIONLESS.contains(opcode)) {
                return Result.status(NFS4ERR_OP_NOT_IN_SESSION);
            }
            // DESTROY_SESSION too (§18.37.3): the operations after it would run in no session, so
            // under none of the session's limits on the reply.
            if (numops > 1) {
                return Result.status(NFS4ERR_NOT_ONLY_OP);
            }
        }
        if (index > 0 && opcode == OP_SEQUENCE) {
            return Result.status(NFS4ERR_SEQUENCE_POS);
        }
        if (index > 0 && opcode == OP_BIND_CONN_TO_SESSION) {
            return Result.status(NFS4ERR_NOT_ONLY_OP); // alone in its COMPOUND, not even after SEQUENCE (§18.34.3)
        }
        if (V40_ONLY.contains(opcode)) {
            return Result.status(NFS4ERR_NOTSUPP);
        }
        Operation op = operations.get(opcode);
        if (op == null) {
            return Result.status(NFS4ERR_NOTSUPP);
        }
        // What the operation changed is made stable after it let go of the namespace lock and
        // before its result is answered (MetadataCommits); a failure to is NFS4ERR_IO. Operations
        // on no path (READ, WRITE, sessions, state) change no name or attribute: no scope for them.
        boolean onPaths = !NOT_ON_PATHS.contains(opcode);
        try (MetadataCommits.Scope changes = onPaths ? ctx.base().metadata().begin() : null) {
            Result result;
            try (NamespaceLock.Hold names = namespaceHold(opcode)) {
                result = op.run(in, st);
            }
            if (changes != null) {
                changes.commit();
            }
            return result;
        } catch (Exception e) {
            int status = Nfs4Errors.statusOf(e);
            long held = status == NFS4ERR_SERVERFAULT ? serverFaultLog.admit() : -1;
            if (held >= 0) {
                log.warn("NFSv4 operation {} failed: NFS4ERR_SERVERFAULT{}", opcode,
                        held == 0 ? "" : " (" + held + " more not warned of since the last message)", e);
            } else {
                log.debug("NFSv4 operation {}: {} ({})", opcode, status, e.getMessage());
            }
            return Result.status(status);
        }
    }

    private NamespaceLock.Hold namespaceHold(int opcode) {
        NamespaceLock namespace = ctx.base().namespace();
        return CHANGING_NAMES.contains(opcode) ? namespace.exclusive()
                : NOT_ON_PATHS.contains(opcode) ? NO_HOLD : namespace.shared();
    }

    private static int encode(XdrEncoder results, int resop, Result r) {
        results.writeInt(resop).writeInt(r.status());
        r.body().accept(results);
        return r.status();
    }

    /**
     * Encodes an operation's result in a session, where the reply is bounded by
     * {@link CompoundState#replyLimit()}: a result that would pass it — or, when it succeeded and
     * more operations follow, leave less than {@code slack} octets for the next one's error — is
     * replaced by NFS4ERR_REP_TOO_BIG_TO_CACHE (sa_cachethis) or NFS4ERR_REP_TOO_BIG, and the
     * COMPOUND stops there (RFC 8881 §2.10.6.1.3, §18.46.3; knfsd's nfsd4_check_resp_size).
     */
    private static int encodeBounded(RpcCallContext rpc, XdrEncoder results, int head, int resop, Result r,
            int slack, CompoundState st) {
        XdrEncoder one = rpc.newEncoder();
        try {
            encode(one, resop, r);
        } catch (RuntimeException e) {
            one.discard();
            throw e;
        }
        if ((long) head + results.length() + one.length() + slack > st.replyLimit()) {
            one.discard();
            results.writeInt(resop).writeInt(st.tooBig());
            return st.tooBig();
        }
        results.writeMessage(one.toMessage());
        return r.status();
    }

    private static XdrMessage reply(RpcCallContext rpc, int status, byte[] tag, int count, XdrEncoder results) {
        XdrEncoder head = rpc.newEncoder();
        new Compound4Header(status, tag, -1, count).encodeRes(head);
        XdrMessage h = head.toMessage();
        return results == null ? h : XdrMessage.concat(h, results.toMessage());
    }

    /**
     * Keeps a sequenced COMPOUND's reply in its slot if the client asked (sa_cachethis) and it fits
     * ca_maxresponsesize_cached (RFC 8881 §2.10.6.1.3).
     */
    private void keep(CompoundState st, XdrMessage reply) {
        if (st.slot == null || !st.cacheThis || reply.readableBytes() > st.session.fore.maxResponseSizeCached()) {
            return;
        }
        ByteBuf s = reply.stream();
        byte[] copy = new byte[s.readableBytes()];
        try {
            s.getBytes(s.readerIndex(), copy);
        } finally {
            s.release();
        }
        synchronized (ctx.lock()) {
            st.slot.cachedReply = copy;
        }
    }

    private void release(CompoundState st) {
        if (st.slot != null) {
            synchronized (ctx.lock()) {
                st.slot.inUse = false;
            }
        }
    }
}
