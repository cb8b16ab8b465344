package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import org.iwarp4j.nfs.internal.Caller;
import org.iwarp4j.nfs.internal.FileHandles;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.RpcCallContext;

/**
 * What the operations of one COMPOUND share (RFC 8881 §16.2.3): the current and saved file
 * handles, the current and saved stateids (§16.2.3.1.2), and, once SEQUENCE has run, the session
 * and slot the COMPOUND holds.
 */
final class CompoundState {

    final Nfs4Context ctx;
    final RpcCallContext rpc;
    final Caller caller;
    final int minorVersion;
    NfsFh3 currentFh;
    NfsFh3 savedFh;
    Stateid4 currentStateid;
    Stateid4 savedStateid;
    SessionTable.Session session;
    SessionTable.Slot slot;
    /** SEQUENCE's sa_cachethis: whether the client asked for the reply to be kept for a replay. */
    boolean cacheThis;
    /** The number of operations the COMPOUND holds (SEQUENCE checks it against ca_maxoperations). */
    long operationCount;
    /**
     * Octets of the whole RPC call, Read chunk data included (SEQUENCE checks it against
     * ca_maxrequestsize, which counts the RPC header, credential and verifier too, RFC 8881 §18.36.3).
     */
    long requestLength;
    /** The cached reply a replayed SEQUENCE found; the COMPOUND answers with it. */
    byte[] replay;
    /**
     * Octets of the reply before the operation now running: the RPC reply header, the
     * COMPOUND4res header and the results of the operations before it (ca_maxresponsesize and
     * ca_maxresponsesize_cached count the whole RPC reply, RFC 8881 §18.36.3).
     */
    int replyLength;
    /** The index of the operation now running in the COMPOUND (0 for the first). */
    long operation;
    /** What {@link #current()} may answer without resolving again, for which handle and since which operation. */
    private FileHandles.Resolved resolved;
    private NfsFh3 resolvedFh;
    private long resolvedAt;
    /** The namespace lock's generation when {@link #resolved} was made: a name changed since makes it stale. */
    private long resolvedGeneration;

    /**
     * The most the reply may hold (RFC 8881 §2.10.6.1.3, §18.46.3): ca_maxresponsesize_cached when
     * SEQUENCE asked for the reply to be kept, ca_maxresponsesize otherwise; unbounded outside a
     * session.
     */
    int replyLimit() {
        if (session == null) {
            return Integer.MAX_VALUE;
        }
        return cacheThis ? session.fore.maxResponseSizeCached() : session.fore.maxResponseSize();
    }

    /** What an operation whose result would pass {@link #replyLimit()} answers instead. */
    int tooBig() {
        return cacheThis ? NFS4ERR_REP_TOO_BIG_TO_CACHE : NFS4ERR_REP_TOO_BIG;
    }

    /** Octets left for the running operation's result after its opcode and status (READ shortens itself to fit). */
    long replyRoom() {
        return session == null ? Long.MAX_VALUE : (long) replyLimit() - replyLength - 8;
    }

    CompoundState(Nfs4Context ctx, RpcCallContext rpc, Caller caller, int minorVersion) {
        this.ctx = ctx;
        this.rpc = rpc;
        this.caller = caller;
        this.minorVersion = minorVersion;
    }

    /** The current file handle, NFS4ERR_NOFILEHANDLE if none is set. */
    NfsFh3 currentFh() {
        if (currentFh == null) {
            throw new Nfs4Exception(NFS4ERR_NOFILEHANDLE, "no current file handle");
        }
        return currentFh;
    }

    /**
     * The object of the current file handle, resolved for this caller. The resolution PUTFH made
     * ({@link #setCurrent(NfsFh3, FileHandles.Resolved)}) serves the operation right after it, the
     * READ or WRITE of a client's SEQUENCE, PUTFH, READ: nothing ran in between that could have
     * changed the file, so it is as fresh as an NFSv3 READ's single resolution. Any later
     * operation resolves again, since one before it (a WRITE, a SETATTR) may have changed what
     * the stat says; and none is used once a name changed since it was made (the path it holds may
     * lead elsewhere now, {@link org.iwarp4j.nfs.internal.NamespaceLock}).
     */
    FileHandles.Resolved current() {
        NfsFh3 fh = currentFh();
        if (resolved != null && resolvedFh == fh && operation <= resolvedAt + 1
                && resolvedGeneration == ctx.base().namespace().generation()) {
            return resolved;
        }
        return ctx.base().resolve(fh, caller);
    }

    /** The current handle, which must be a directory (NFS4ERR_NOTDIR). */
    FileHandles.Resolved currentDirectory() {
        FileHandles.Resolved r = current();
        if (!r.isDirectory()) {
            throw new Nfs4Exception(r.stat().type() == org.iwarp4j.nfs.v3.Ftype3.NF3LNK ? NFS4ERR_SYMLINK
                    : NFS4ERR_NOTDIR, "not a directory: " + r.path());
        }
        return r;
    }

    /** A stateid argument with the current stateid (seqid 1, other 0) replaced (RFC 8881 §16.2.3.1.2). */
    Stateid4 resolveStateid(Stateid4 s) {
        if (s.isCurrent()) {
            if (currentStateid == null) {
                throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "no current stateid");
            }
            return currentStateid;
        }
        return s;
    }

    void setCurrent(NfsFh3 fh) {
        setCurrent(fh, null);
    }

    /** Makes {@code fh} current, with {@code resolution} the running operation just made of it (or null). */
    void setCurrent(NfsFh3 fh, FileHandles.Resolved resolution) {
        currentFh = fh;
        currentStateid = null;
        resolved = resolution;
        resolvedFh = fh;
        resolvedAt = operation;
        resolvedGeneration = ctx.base().namespace().generation();
    }
}
