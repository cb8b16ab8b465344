package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.nfs.internal.Caller;
import org.iwarp4j.nfs.v4.Compound4Header;
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
 * operations NFS4ERR_NOT_ONLY_OP); SEQUENCE anywhere else is NFS4ERR_SEQUENCE_POS. The reply of a
 * sequenced COMPOUND whose SEQUENCE set sa_cachethis is kept in its slot, up to the session's
 * ca_maxresponsesize_cached, so that a retransmission gets the very same octets; a retransmission
 * of any other gets NFS4ERR_RETRY_UNCACHED_REP (RFC 8881 §2.10.6.1.3). Minor version 0 and unknown minor versions get
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

    private final Nfs4Context ctx;
    private final Map<Integer, Operation> operations = new HashMap<>();
    private final java.util.concurrent.atomic.AtomicLong lastMismatchLog = new java.util.concurrent.atomic.AtomicLong();

    public CompoundProcessor(Nfs4Context ctx) {
        this.ctx = ctx;
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
        XdrEncoder results = rpc.newEncoder();
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
                Result r = run(i, numops, opcode, in, st);
                if (st.replay != null) {
                    results.discard();
                    results = null;
                    ByteBuf cached = rpc.transport().alloc().buffer(st.replay.length).writeBytes(st.replay);
                    return XdrMessage.of(cached);
                }
                results.writeInt(known(opcode, st.minorVersion) ? opcode : OP_ILLEGAL).writeInt(r.status());
                r.body().accept(results);
                done++;
                if (r.status() != NFS4_OK) {
                    status = r.status();
                    break;
                }
            }
            XdrMessage reply = reply(rpc, status, tag, done, results);
            results = null;
            keep(st, reply);
            return reply;
        } finally {
            if (results != null) {
                results.discard();
            }
            release(st);
        }
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
            if (numops > 1 && opcode != OP_DESTROY_SESSION) {
                return Result.status(NFS4ERR_NOT_ONLY_OP);
            }
        }
        if (index > 0 && opcode == OP_SEQUENCE) {
            return Result.status(NFS4ERR_SEQUENCE_POS);
        }
        if (V40_ONLY.contains(opcode)) {
            return Result.status(NFS4ERR_NOTSUPP);
        }
        Operation op = operations.get(opcode);
        if (op == null) {
            return Result.status(NFS4ERR_NOTSUPP);
        }
        try {
            return op.run(in, st);
        } catch (Exception e) {
            int status = Nfs4Errors.statusOf(e);
            if (status == NFS4ERR_SERVERFAULT) {
                log.warn("NFSv4 operation {} failed", opcode, e);
            } else {
                log.debug("NFSv4 operation {}: {} ({})", opcode, status, e.getMessage());
            }
            return Result.status(status);
        }
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
