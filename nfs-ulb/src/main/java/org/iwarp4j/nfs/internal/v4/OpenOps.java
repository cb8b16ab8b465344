package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.iwarp4j.nfs.internal.Caller;
import org.iwarp4j.nfs.internal.FileHandles;
import org.iwarp4j.nfs.internal.FileStat;
import org.iwarp4j.nfs.internal.NamespaceOps;
import org.iwarp4j.nfs.internal.Permissions;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.CreateMode3;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrDecoder;

/**
 * OPEN, OPEN_DOWNGRADE, CLOSE, LOCK, LOCKT, LOCKU, TEST_STATEID, FREE_STATEID and DELEGRETURN
 * (RFC 8881 §18.2, §18.10-§18.12, §18.16, §18.18, §18.38, §18.48, §18.6) over the
 * {@link StateTable}. NFSv4.1 semantics: no OPEN_CONFIRM, the owners' seqids are not checked
 * (§8.13: sessions give exactly-once semantics), stateid seqids are. No delegation is ever
 * granted, so DELEGRETURN knows no stateid.
 */
final class OpenOps {

    private static final long ALL_ONES = -1L;

    private final Nfs4Context ctx;

    OpenOps(Nfs4Context ctx) {
        this.ctx = ctx;
    }

    static StateTable.FileKey key(FileStat st) {
        return new StateTable.FileKey(st.dev(), st.ino());
    }

    private long clientOf(CompoundState st) {
        return st.session.client.clientId;
    }

    /**
     * OPEN (RFC 8881 §18.16): CLAIM_NULL (by name in the current directory, creating if asked:
     * UNCHECKED4, GUARDED4, EXCLUSIVE4 and EXCLUSIVE4_1) and CLAIM_FH (the current handle).
     * CLAIM_PREVIOUS reclaims an open of the current handle after a restart (§9.11): allowed in the
     * grace period to a client the previous start recorded that has not done RECLAIM_COMPLETE, else
     * NFS4ERR_NO_GRACE (see {@link Nfs4Context#reclaimRefusal}); the server keeps no per-file state
     * across restarts, so it trusts a recorded client's claim as knfsd does. Delegations are never
     * granted, so none can be reclaimed (CLAIM_DELEGATE_PREV: NFS4ERR_RECLAIM_BAD in the grace
     * period). During the grace period any other OPEN is NFS4ERR_GRACE. The current handle becomes
     * the file, the current stateid the open's.
     */
    Result open(XdrDecoder in, CompoundState st) throws IOException {
        in.readInt(); // seqid: not used in NFSv4.1 (RFC 8881 §18.16.3)
        int access = in.readInt() & ~OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
        int deny = in.readInt();
        in.readHyper(); // clientid: the session's client is the owner's (RFC 8881 §18.16.3)
        byte[] ownerName = in.readOpaque(NFS4_OPAQUE_LIMIT);
        int opentype = in.readEnum();
        int createMode = -1;
        Attributes4.ToSet set = Attributes4.ToSet.NONE;
        long verifier = 0;
        if (opentype == OPEN4_CREATE) {
            createMode = in.readEnum();
            switch (createMode) {
                case UNCHECKED4, GUARDED4 -> set = Attributes4.decodeToSet(in);
                case EXCLUSIVE4 -> verifier = in.readHyper();
                case EXCLUSIVE4_1 -> {
                    verifier = in.readHyper();
                    set = Attributes4.decodeToSet(in);
                }
                default -> throw new Nfs4Exception(NFS4ERR_INVAL, "createmode4 " + createMode);
            }
        } else if (opentype != OPEN4_NOCREATE) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "opentype4 " + opentype);
        }
        int claim = in.readEnum();
        String name = null;
        switch (claim) {
            case CLAIM_NULL, CLAIM_DELEGATE_PREV -> name = FileOps.component(in);
            case CLAIM_PREVIOUS -> in.readEnum();
            case CLAIM_DELEGATE_CUR -> {
                Stateid4.decode(in);
                name = FileOps.component(in);
            }
            case CLAIM_DELEG_CUR_FH -> Stateid4.decode(in);
            case CLAIM_FH, CLAIM_DELEG_PREV_FH -> { }
            default -> throw new Nfs4Exception(NFS4ERR_INVAL, "open_claim_type4 " + claim);
        }
        if (access < OPEN4_SHARE_ACCESS_READ || access > OPEN4_SHARE_ACCESS_BOTH || deny < 0 || deny > OPEN4_SHARE_DENY_BOTH) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "share access " + access + " deny " + deny);
        }
        synchronized (ctx.lock()) {
            switch (claim) {
                case CLAIM_PREVIOUS -> {
                    int refusal = ctx.reclaimRefusal(st.session.client);
                    if (refusal != 0) {
                        throw new Nfs4Exception(refusal, "OPEN reclaim refused");
                    }
                }
                case CLAIM_DELEGATE_PREV, CLAIM_DELEG_PREV_FH -> throw new Nfs4Exception(
                        ctx.inGrace() ? NFS4ERR_RECLAIM_BAD : NFS4ERR_NO_GRACE, "no delegation was granted");
                case CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH -> throw new Nfs4Exception(NFS4ERR_BAD_STATEID,
                        "no delegation was granted");
                default -> {
                    if (ctx.inGrace()) {
                        throw new Nfs4Exception(NFS4ERR_GRACE, "grace period");
                    }
                }
            }
        }
        Path path;
        NfsFh3 fh = null;
        long before = 0;
        long after = 0;
        boolean created = false;
        Bitmap4 attrset = Bitmap4.EMPTY;
        if (claim == CLAIM_FH || claim == CLAIM_PREVIOUS) {
            if (opentype == OPEN4_CREATE) {
                throw new Nfs4Exception(NFS4ERR_INVAL, "CLAIM_FH or CLAIM_PREVIOUS with OPEN4_CREATE");
            }
            FileHandles.Resolved r = st.current();
            fh = st.currentFh();
            path = r.path();
        } else {
            FileHandles.Resolved dir = st.currentDirectory();
            before = Attributes4.change(dir.stat());
            DirOpArgs3 where = new DirOpArgs3(st.currentFh(), name);
            path = dir.path().resolve(name);
            if (createMode == EXCLUSIVE4_1 && !set.given().andNot(Attributes4.EXCLUSIVE_CREATE).isEmpty()) {
                throw new Nfs4Exception(NFS4ERR_INVAL, "EXCLUSIVE4_1 with " + set.given());
            }
            // a name that exists is opened, which needs the search permission LOOKUP checks; only a
            // new name needs write permission on the directory, as open(2) with O_CREAT and knfsd
            // check: Linux sends OPEN4_CREATE for open(O_CREAT) of a name it has not looked up,
            // such as an append to a writable file in a read-only directory
            Lookup3Res found = ctx.names3().lookup(where, st.caller);
            if (opentype == OPEN4_CREATE && found.status() == Nfs3Status.NFS3ERR_NOENT) {
                fh = create(where, createMode, set, verifier, st.caller);
                if (fh == null) { // a local process made the name meanwhile: UNCHECKED4 opens it
                    found = ctx.names3().lookup(where, st.caller);
                }
            }
            if (fh != null) {
                created = true;
                if (createMode == EXCLUSIVE4_1 && !set.given().isEmpty()) {
                    Sattr3 s = set.sattr();
                    ctx.attributes3().apply(new FileHandles.Resolved(path, FileStat.of(path)),
                            new Sattr3(s.mode(), s.uid(), s.gid(), s.size(), s.atime(), s.mtime()), st.caller, true);
                }
                attrset = set.setOnCreation(st.caller);
            } else if (found.status().isOk()) {
                fh = found.object();
            } else {
                throw new Nfs4Exception(Nfs4Errors.of(found.status()), "open " + name);
            }
            after = Attributes4.change(FileStat.of(dir.path()));
        }
        FileHandles.Resolved file = ctx.base().resolve(fh, st.caller);
        FileStat stat = file.stat();
        boolean truncate = opentype == OPEN4_CREATE && !created && openExisting(createMode, verifier, set, stat);
        checkOpenable(stat);
        if (!created) {
            if ((access & OPEN4_SHARE_ACCESS_READ) != 0) {
                Permissions.requireRead(st.caller, stat, path);
            }
            if ((access & OPEN4_SHARE_ACCESS_WRITE) != 0 || (deny & OPEN4_SHARE_DENY_READ) != 0) {
                // knfsd's do_open_permission asks write permission of an open that denies
                // reading too: such a reservation shuts every other NFSv4 reader out of the file,
                // which only those who may change it may do, else any reader could
                ctx.base().requireWritable();
                Permissions.requireOrOwner(st.caller, stat, Permissions.WRITE, path);
            }
        }
        if (truncate) {
            truncate(st, file, access, deny, ownerName);
            attrset = Bitmap4.of(FATTR4_SIZE);
        }
        StateTable.State state;
        synchronized (ctx.lock()) {
            StateTable.Owner owner = ctx.states().owner(clientOf(st), ownerName, false);
            state = ctx.states().open(owner, key(stat), access, deny);
            ctx.records().add(st.session.client.owner); // a client with state can reclaim it after a restart
        }
        Stateid4 stateid = state.stateid();
        st.setCurrent(fh);
        st.currentStateid = stateid;
        long b = before;
        long a = after;
        Bitmap4 as = attrset;
        return Result.ok(out -> {
            stateid.encode(out);
            FileOps.changeInfo(out, b, a);
            out.writeInt(OPEN4_RESULT_LOCKTYPE_POSIX);
            as.encode(out);
            out.writeEnum(OPEN_DELEGATE_NONE);
        });
    }

    /**
     * Makes the file of a name LOOKUP did not find, with the createattrs (EXCLUSIVE4 with none: its
     * times hold the verifier); null if a local process made the name meanwhile and UNCHECKED4 is
     * to open it. UNCHECKED4 creates as GUARDED, so that an existing file is never changed here.
     */
    private NfsFh3 create(DirOpArgs3 where, int createMode, Attributes4.ToSet set, long verifier, Caller caller) {
        boolean exclusive = createMode == EXCLUSIVE4 || createMode == EXCLUSIVE4_1;
        Create3Res r = ctx.names3().create(new Create3Args(where, exclusive ? CreateMode3.EXCLUSIVE : CreateMode3.GUARDED,
                exclusive ? Sattr3.NONE : set.sattr(), verifier), caller);
        if (r.status() == Nfs3Status.NFS3ERR_EXIST && createMode == UNCHECKED4) {
            return null;
        }
        if (!r.status().isOk()) {
            throw new Nfs4Exception(Nfs4Errors.of(r.status()), "create " + where.name());
        }
        return r.obj();
    }

    /**
     * OPEN4_CREATE of a name that exists (RFC 8881 §18.16.3): GUARDED4 and EXCLUSIVE4(_1)
     * NFS4ERR_EXIST, unless an exclusive create is a retransmission of the one that made the
     * file; UNCHECKED4 opens the file and uses none of the createattrs but a size of 0, which
     * truncates. Whether to truncate.
     */
    private static boolean openExisting(int createMode, long verifier, Attributes4.ToSet set, FileStat stat) {
        switch (createMode) {
            case GUARDED4 -> throw new Nfs4Exception(NFS4ERR_EXIST, "GUARDED4 of an existing name");
            case EXCLUSIVE4, EXCLUSIVE4_1 -> {
                if (!NamespaceOps.madeExclusively(stat, verifier)) {
                    throw new Nfs4Exception(NFS4ERR_EXIST, "exclusive create of an existing name");
                }
                return false;
            }
            default -> {
                Long size = set.sattr().size();
                return size != null && size == 0;
            }
        }
    }

    /**
     * UNCHECKED4's truncation of an existing file: as knfsd, only once the share reservations
     * admit the open (a DENY_WRITE holder's data stays), and only for an open with write access —
     * NFS4ERR_INVAL otherwise (nfsd4_truncate). OPENs hold the namespace lock exclusively, so no
     * other open can take a share reservation between this check and the open that follows.
     */
    private void truncate(CompoundState st, FileHandles.Resolved file, int access, int deny, byte[] ownerName)
            throws IOException {
        synchronized (ctx.lock()) {
            ctx.states().checkShare(ctx.states().existingOwner(clientOf(st), ownerName, false), key(file.stat()),
                    access, deny);
        }
        if ((access & OPEN4_SHARE_ACCESS_WRITE) == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "truncation by an open without write access");
        }
        ctx.attributes3().apply(file, Sattr3.size(0), st.caller, false);
        ctx.base().metadata().changed(file.path());
    }

    private static void checkOpenable(FileStat stat) {
        if (stat.type() == Ftype3.NF3DIR) {
            throw new Nfs4Exception(NFS4ERR_ISDIR, "OPEN of a directory");
        }
        if (stat.type() == Ftype3.NF3LNK) {
            throw new Nfs4Exception(NFS4ERR_SYMLINK, "OPEN of a symbolic link");
        }
        if (stat.type() != Ftype3.NF3REG) {
            throw new Nfs4Exception(NFS4ERR_WRONG_TYPE, "OPEN of a special file");
        }
    }

    /** The state a stateid argument names, on the current file (NFS4ERR_BAD_STATEID for another file's). */
    private StateTable.State state(CompoundState st, Stateid4 arg) {
        Stateid4 id = st.resolveStateid(arg);
        FileHandles.Resolved r = st.current();
        StateTable.State s = ctx.states().find(id, clientOf(st));
        if (!s.file.equals(key(r.stat()))) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "stateid of another file");
        }
        return s;
    }

    Result close(XdrDecoder in, CompoundState st) {
        in.readInt();
        Stateid4 id = Stateid4.decode(in);
        synchronized (ctx.lock()) {
            ctx.states().close(state(st, id));
        }
        st.currentStateid = null;
        return Result.ok(Stateid4.INVALID::encode);
    }

    Result openDowngrade(XdrDecoder in, CompoundState st) {
        Stateid4 id = Stateid4.decode(in);
        in.readInt();
        int access = in.readInt() & ~OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
        int deny = in.readInt();
        Stateid4 result;
        synchronized (ctx.lock()) {
            StateTable.State s = state(st, id);
            ctx.states().downgrade(s, access, deny);
            result = s.stateid();
        }
        st.currentStateid = result;
        return Result.ok(result::encode);
    }

    /** offset and length to the last octet (RFC 8881 §18.10.3: length 0, or a range past 2^64, is NFS4ERR_INVAL). */
    private static long last(long offset, long length) {
        if (length == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "lock of length 0");
        }
        if (length == ALL_ONES) {
            return ALL_ONES;
        }
        if (Long.compareUnsigned(length - 1, ALL_ONES - offset) > 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "lock range beyond 2^64");
        }
        return offset + length - 1;
    }

    private static void checkLockType(int type) {
        if (type < READ_LT || type > WRITEW_LT) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "nfs_lock_type4 " + type);
        }
    }

    /** LOCK4denied: the conflicting lock and its owner (RFC 8881 §18.10.2). */
    private static Result denied(StateTable.RangeLock l) {
        return new Result(NFS4ERR_DENIED, out -> {
            out.writeHyper(l.offset()).writeHyper(l.length()).writeEnum(l.isWrite() ? WRITE_LT : READ_LT);
            out.writeHyper(l.owner().clientId).writeOpaque(l.owner().owner, NFS4_OPAQUE_LIMIT);
        });
    }

    /**
     * LOCK (RFC 8881 §18.10): a new lock owner comes with the open it locks under. A reclaim is
     * allowed as an OPEN with CLAIM_PREVIOUS is; during the grace period any other LOCK is NFS4ERR_GRACE.
     */
    Result lock(XdrDecoder in, CompoundState st) {
        int type = in.readEnum();
        boolean reclaim = in.readBoolean();
        long offset = in.readHyper();
        long length = in.readHyper();
        boolean newOwner = in.readBoolean();
        Stateid4 openId = null;
        Stateid4 lockId = null;
        byte[] ownerName = null;
        if (newOwner) {
            in.readInt();
            openId = Stateid4.decode(in);
            in.readInt();
            in.readHyper();
            ownerName = in.readOpaque(NFS4_OPAQUE_LIMIT);
        } else {
            lockId = Stateid4.decode(in);
            in.readInt();
        }
        checkLockType(type);
        long last = last(offset, length);
        synchronized (ctx.lock()) {
            if (reclaim) {
                int refusal = ctx.reclaimRefusal(st.session.client);
                if (refusal != 0) {
                    throw new Nfs4Exception(refusal, "LOCK reclaim refused");
                }
            } else if (ctx.inGrace()) {
                throw new Nfs4Exception(NFS4ERR_GRACE, "grace period");
            }
            StateTable.State lockState;
            if (newOwner) {
                StateTable.State open = state(st, openId);
                if (open.isLock()) {
                    throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "lock stateid where the open's was expected");
                }
                StateTable.Owner owner = ctx.states().owner(clientOf(st), ownerName, true);
                lockState = ctx.states().lockState(owner, open);
            } else {
                lockState = state(st, lockId);
                if (!lockState.isLock()) {
                    throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "open stateid where a lock stateid was expected");
                }
            }
            boolean write = type == WRITE_LT || type == WRITEW_LT;
            if (write && (lockState.open.access & OPEN4_SHARE_ACCESS_WRITE) == 0) {
                throw new Nfs4Exception(NFS4ERR_OPENMODE, "write lock on a file not open for writing");
            }
            StateTable.RangeLock conflict = ctx.states().conflict(lockState.file, lockState.owner, type, offset, last);
            if (conflict != null) {
                return denied(conflict);
            }
            ctx.states().lock(lockState.file, lockState.owner, type, offset, last);
            if (lockState.used) {
                lockState.bump(); // a new lock state starts at seqid 1 with its first lock (RFC 8881 §8.2.2)
            }
            lockState.used = true;
            Stateid4 result = lockState.stateid();
            st.currentStateid = result;
            return Result.ok(result::encode);
        }
    }

    /** LOCKT (RFC 8881 §18.11): whether the lock could be set; the owner's own locks never conflict. */
    Result lockt(XdrDecoder in, CompoundState st) {
        int type = in.readEnum();
        long offset = in.readHyper();
        long length = in.readHyper();
        in.readHyper();
        byte[] ownerName = in.readOpaque(NFS4_OPAQUE_LIMIT);
        checkLockType(type);
        long last = last(offset, length);
        FileHandles.Resolved r = st.current();
        if (r.isDirectory()) {
            throw new Nfs4Exception(NFS4ERR_ISDIR, "LOCKT on a directory");
        }
        synchronized (ctx.lock()) {
            StateTable.Owner owner = ctx.states().existingOwner(clientOf(st), ownerName, true);
            StateTable.RangeLock conflict = ctx.states().conflict(key(r.stat()), owner, type, offset, last);
            return conflict == null ? Result.ok() : denied(conflict);
        }
    }

    /** LOCKU (RFC 8881 §18.12). */
    Result locku(XdrDecoder in, CompoundState st) {
        int type = in.readEnum();
        in.readInt();
        Stateid4 id = Stateid4.decode(in);
        long offset = in.readHyper();
        long length = in.readHyper();
        checkLockType(type);
        long last = last(offset, length);
        synchronized (ctx.lock()) {
            StateTable.State s = state(st, id);
            if (!s.isLock()) {
                throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "open stateid given to LOCKU");
            }
            ctx.states().unlock(s.file, s.owner, offset, last);
            s.bump();
            Stateid4 result = s.stateid();
            st.currentStateid = result;
            return Result.ok(result::encode);
        }
    }

    /** TEST_STATEID (RFC 8881 §18.48): one status per stateid, at most 1024 stateids. */
    Result testStateid(XdrDecoder in, CompoundState st) {
        List<Stateid4> ids = in.readArray(1024, Stateid4::decode);
        int[] status = new int[ids.size()];
        synchronized (ctx.lock()) {
            for (int i = 0; i < status.length; i++) {
                status[i] = ctx.states().test(ids.get(i), clientOf(st));
            }
        }
        return Result.ok(out -> out.writeIntArray(status, status.length));
    }

    /** FREE_STATEID (RFC 8881 §18.38). */
    Result freeStateid(XdrDecoder in, CompoundState st) {
        Stateid4 id = st.resolveStateid(Stateid4.decode(in));
        synchronized (ctx.lock()) {
            ctx.states().free(ctx.states().find(id, clientOf(st)));
        }
        return Result.ok();
    }

    /** DELEGRETURN (RFC 8881 §18.6): the server grants no delegations, so no stateid is one. */
    Result delegreturn(XdrDecoder in, CompoundState st) {
        Stateid4 id = Stateid4.decode(in);
        st.currentFh();
        throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "no delegation " + id);
    }

    /**
     * The stateid of a READ, WRITE or SETATTR of size (RFC 8881 §8.2.2, §9.1.2): the anonymous and
     * READ-bypass stateids are allowed unless a share reservation denies the access
     * (NFS4ERR_LOCKED); a real one must name an open or lock state of this file, open for writing
     * if it writes (NFS4ERR_OPENMODE). During the grace period a special stateid gets
     * NFS4ERR_GRACE, except the READ-bypass one for a READ (§8.4.2: whether a share reservation
     * denies it depends on opens not reclaimed yet; knfsd's check_special_stateids does the same);
     * a real stateid names an open that was reclaimed, so its I/O and truncation go on.
     */
    void checkIo(CompoundState st, Stateid4 id, FileHandles.Resolved file, boolean write) {
        StateTable.FileKey key = key(file.stat());
        synchronized (ctx.lock()) {
            if (id.isAnonymous() || id.isReadBypass()) {
                if ((write || id.isAnonymous()) && ctx.inGrace()) {
                    throw new Nfs4Exception(NFS4ERR_GRACE, "special stateid in the grace period");
                }
                int denyBit = write ? OPEN4_SHARE_DENY_WRITE : OPEN4_SHARE_DENY_READ;
                if (ctx.states().shareDenies(key, denyBit)) {
                    throw new Nfs4Exception(NFS4ERR_LOCKED, "share reservation denies anonymous access");
                }
                return;
            }
            StateTable.State s = ctx.states().find(id, clientOf(st));
            if (!s.file.equals(key)) {
                throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "stateid of another file");
            }
            StateTable.State open = s.isLock() ? s.open : s;
            if (write && (open.access & OPEN4_SHARE_ACCESS_WRITE) == 0) {
                throw new Nfs4Exception(NFS4ERR_OPENMODE, "file not open for writing");
            }
        }
    }

}
