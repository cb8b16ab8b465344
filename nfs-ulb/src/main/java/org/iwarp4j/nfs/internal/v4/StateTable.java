package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.nfs.v4.Stateid4;

/**
 * Open and lock state (RFC 8881 §8, §9): open owners and lock owners, the stateids the server
 * hands out for them (§8.2: 12 octets of "other" — this start's boot id and a counter — and a
 * seqid raised by every change, §8.2.2), share reservations (§9.7) and byte-range locks (§9.1,
 * POSIX semantics: an owner's locks merge and split, locks of different owners conflict if they
 * overlap and either is a write lock). The server is the lock manager for its clients; locks are
 * advisory towards local processes, as with knfsd on Linux.
 *
 * <p>Every table is bounded per client ({@link Nfs4Settings#maxOwnersPerClient()},
 * {@link Nfs4Settings#maxStatesPerClient()}, {@link Nfs4Settings#maxLocksPerClient()}), per server,
 * and a file's locks per file ({@link Nfs4Settings#maxLocksPerFile()}); beyond a cap the operation
 * answers NFS4ERR_NOSPC. What one file holds is a {@link FileState}; an operation on a file costs
 * the caller's own opens and locks there and, to test a lock for conflicts, the file's other locks
 * (at most the per-file cap), never a walk of every open or lock the server holds. Callers hold
 * {@link Nfs4Context#lock()}.
 */
final class StateTable {

    /** The object state is held on. */
    record FileKey(long dev, long ino) {
    }

    private record OwnerKey(long clientId, ByteBuffer owner, boolean lock) {
    }

    /** An open owner or a lock owner (RFC 8881 §8.1.5, §8.1.6). */
    static final class Owner {
        final long clientId;
        final byte[] owner;
        final boolean lock;

        Owner(long clientId, byte[] owner, boolean lock) {
            this.clientId = clientId;
            this.owner = owner;
            this.lock = lock;
        }
    }

    /** The state one stateid names: an open (share access and deny) or a lock owner's locks on a file. */
    static final class State {
        final byte[] other;
        final Owner owner;
        final FileKey file;
        /** For a lock state, the open it was made from. */
        final State open;
        /** For an open, the lock states made from it: CLOSE looks at these, not at every stateid. */
        final List<State> lockStates = new ArrayList<>(0);
        int seqid = 1;
        int access;
        int deny;
        /** Whether a lock state has had its first LOCK. */
        boolean used;

        State(byte[] other, Owner owner, FileKey file, State open) {
            this.other = other;
            this.owner = owner;
            this.file = file;
            this.open = open;
        }

        boolean isLock() {
            return open != null;
        }

        Stateid4 stateid() {
            return new Stateid4(seqid, other);
        }

        void bump() {
            seqid = seqid == -1 ? 1 : seqid + 1; // 0 is reserved (RFC 8881 §8.2.2)
        }
    }

    /** A byte-range lock; {@code last} is the last octet locked (unsigned; all ones: to the end). */
    record RangeLock(Owner owner, int type, long offset, long last) {
        boolean overlaps(long o, long l) {
            return Long.compareUnsigned(offset, l) <= 0 && Long.compareUnsigned(o, last) <= 0;
        }

        boolean isWrite() {
            return type == WRITE_LT || type == WRITEW_LT;
        }

        long length() {
            return last == -1L ? -1L : last - offset + 1;
        }
    }

    /** A lock owner's lock state on one file: there is at most one (RFC 8881 §8.2.1). */
    private record LockStateKey(Owner owner, FileKey file) {
    }

    /** What one client holds, for its caps. */
    private static final class Held {
        final Map<OwnerKey, Owner> owners = new HashMap<>();
        final Set<State> states = new HashSet<>();
        /** Its lock states by owner and file (LOCK finds its own without a walk). */
        final Map<LockStateKey, State> lockStates = new HashMap<>();
        int locks;
    }

    private final Nfs4Context ctx;
    private final Map<ByteBuffer, State> byOther = new HashMap<>();
    /** The opens and locks of every file that has any. */
    private final Map<FileKey, FileState> files = new HashMap<>();
    private final Map<Long, Held> byClient = new HashMap<>();
    private long counter;
    /** Owners and locks held by all clients (the stateids are {@link #byOther}'s size). */
    private int owners;
    private int locks;

    StateTable(Nfs4Context ctx) {
        this.ctx = ctx;
    }

    /** Owners held for every client, for tests. */
    int ownersHeld() {
        return byClient.values().stream().mapToInt(h -> h.owners.size()).sum();
    }

    boolean hasState(long clientId) {
        Held h = byClient.get(clientId);
        return h != null && !h.states.isEmpty();
    }

    private Held held(long clientId) {
        return byClient.computeIfAbsent(clientId, c -> new Held());
    }

    private FileState file(FileKey key) {
        return files.computeIfAbsent(key, k -> new FileState());
    }

    /** Forgets a file's entry once nothing is held on it. */
    private void tidy(FileKey key, FileState f) {
        if (f.isEmpty()) {
            files.remove(key);
        }
    }

    /**
     * The owner of that name if the client has made it, else null: for LOCKT, which tests without
     * taking anything (RFC 8881 §18.11) and so must not leave an owner behind either.
     */
    Owner existingOwner(long clientId, byte[] name, boolean lock) {
        Held h = byClient.get(clientId);
        return h == null ? null : h.owners.get(new OwnerKey(clientId, ByteBuffer.wrap(name), lock));
    }

    Owner owner(long clientId, byte[] name, boolean lock) {
        Held h = held(clientId);
        OwnerKey key = new OwnerKey(clientId, ByteBuffer.wrap(name.clone()), lock);
        Owner o = h.owners.get(key);
        if (o == null) {
            if (h.owners.size() >= ctx.settings().maxOwnersPerClient()) {
                throw new Nfs4Exception(NFS4ERR_NOSPC, "client has " + h.owners.size() + " owners");
            }
            if (owners >= ctx.settings().maxOwners()) {
                throw new Nfs4Exception(NFS4ERR_NOSPC, "the server holds " + owners + " owners");
            }
            o = new Owner(clientId, name.clone(), lock);
            h.owners.put(key, o);
            owners++;
        }
        return o;
    }

    private State newState(Owner owner, FileKey file, State open) {
        Held h = held(owner.clientId);
        if (h.states.size() >= ctx.settings().maxStatesPerClient()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "client has " + h.states.size() + " stateids");
        }
        if (byOther.size() >= ctx.settings().maxStates()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "the server holds " + byOther.size() + " stateids");
        }
        byte[] other = ByteBuffer.allocate(NFS4_OTHER_SIZE).putInt(ctx.bootId()).putLong(++counter).array();
        State s = new State(other, owner, file, open);
        byOther.put(ByteBuffer.wrap(other), s);
        if (open != null) {
            open.lockStates.add(s);
            h.lockStates.put(new LockStateKey(owner, file), s);
        }
        h.states.add(s);
        return s;
    }

    private void removeState(State s) {
        byOther.remove(ByteBuffer.wrap(s.other));
        Held h = byClient.get(s.owner.clientId);
        if (h != null) {
            h.states.remove(s);
        }
        if (s.isLock()) {
            s.open.lockStates.remove(s);
            if (h != null) {
                h.lockStates.remove(new LockStateKey(s.owner, s.file), s);
            }
        } else {
            FileState f = files.get(s.file);
            if (f != null) {
                f.removeOpen(s);
                tidy(s.file, f);
            }
        }
    }

    /**
     * The state a stateid names, for a client (RFC 8881 §8.2.2, §8.2.4): another start's stateid
     * is NFS4ERR_STALE_STATEID; an unknown one, or another client's, NFS4ERR_BAD_STATEID; a seqid
     * older than the state's NFS4ERR_OLD_STATEID, a newer one NFS4ERR_BAD_STATEID; seqid 0 means
     * the current one.
     */
    State find(Stateid4 id, long clientId) {
        if (id.isSpecial()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "special stateid where a real one is needed");
        }
        byte[] other = id.other();
        if (ByteBuffer.wrap(other).getInt() != ctx.bootId()) {
            throw new Nfs4Exception(NFS4ERR_STALE_STATEID, "stateid of an earlier start: " + id);
        }
        State s = byOther.get(ByteBuffer.wrap(other));
        if (s == null || s.owner.clientId != clientId) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "unknown stateid " + id);
        }
        if (id.seqid() != 0 && id.seqid() != s.seqid) {
            boolean older = Integer.compareUnsigned(id.seqid(), s.seqid) < 0;
            throw new Nfs4Exception(older ? NFS4ERR_OLD_STATEID : NFS4ERR_BAD_STATEID, "stateid " + id + " but state at "
                    + Integer.toUnsignedString(s.seqid));
        }
        return s;
    }

    /** TEST_STATEID's answer for one stateid (RFC 8881 §18.48). */
    int test(Stateid4 id, long clientId) {
        try {
            find(id, clientId);
            return NFS4_OK;
        } catch (Nfs4Exception e) {
            return e.status();
        }
    }

    /**
     * NFS4ERR_SHARE_DENIED if another owner's open denies {@code access} or holds what {@code deny}
     * refuses (RFC 8881 §9.7); {@code owner} (null: none yet) may upgrade its own open.
     */
    void checkShare(Owner owner, FileKey file, int access, int deny) {
        FileState f = files.get(file);
        if (f != null && f.shareConflict(owner == null ? null : f.openOf(owner), access, deny)) {
            throw new Nfs4Exception(NFS4ERR_SHARE_DENIED, "share conflict with another open");
        }
    }

    /**
     * OPEN's share reservation (RFC 8881 §9.7, §18.16.4): the owner's existing open of the file is
     * upgraded (access and deny are or-ed in, the seqid raised), else a new open state is made. A
     * conflict with another owner's access or deny is NFS4ERR_SHARE_DENIED.
     */
    State open(Owner owner, FileKey file, int access, int deny) {
        checkShare(owner, file, access, deny);
        FileState f = files.get(file);
        State mine = f == null ? null : f.openOf(owner);
        if (mine == null) {
            mine = newState(owner, file, null);
            f = file(file);
            f.addOpen(mine);
        } else {
            mine.bump();
        }
        f.share(mine, mine.access | access, mine.deny | deny);
        return mine;
    }

    /** OPEN_DOWNGRADE (RFC 8881 §18.18): only to a subset of what the open has (NFS4ERR_INVAL otherwise). */
    void downgrade(State s, int access, int deny) {
        if (s.isLock()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "lock stateid given to OPEN_DOWNGRADE");
        }
        if ((access & ~s.access) != 0 || (deny & ~s.deny) != 0 || access == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "downgrade is no subset");
        }
        files.get(s.file).share(s, access, deny);
        s.bump();
    }

    /** CLOSE (RFC 8881 §18.2): NFS4ERR_LOCKS_HELD while the open's lock owners hold locks on the file. */
    void close(State open) {
        if (open.isLock()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "lock stateid given to CLOSE");
        }
        for (State s : open.lockStates) {
            if (holdsLocks(s)) {
                throw new Nfs4Exception(NFS4ERR_LOCKS_HELD, "locks held on the file");
            }
        }
        List.copyOf(open.lockStates).forEach(this::removeState);
        removeState(open);
    }

    private boolean holdsLocks(State lockState) {
        FileState f = files.get(lockState.file);
        return f != null && f.holdsLocks(lockState.owner);
    }

    /** FREE_STATEID (RFC 8881 §18.38): a lock state without locks; anything else is NFS4ERR_LOCKS_HELD. */
    void free(State s) {
        if (!s.isLock() || holdsLocks(s)) {
            throw new Nfs4Exception(NFS4ERR_LOCKS_HELD, "state still in use");
        }
        removeState(s);
    }

    /** The lock state of a lock owner on the file of {@code open}, made if needed. */
    State lockState(Owner lockOwner, State open) {
        State s = held(lockOwner.clientId).lockStates.get(new LockStateKey(lockOwner, open.file));
        return s != null ? s : newState(lockOwner, open.file, open);
    }

    /** A lock of another owner than {@code owner} (null: no owner of the caller's) that the range and type conflict with. */
    RangeLock conflict(FileKey file, Owner owner, int type, long offset, long last) {
        FileState f = files.get(file);
        return f == null ? null : f.conflict(owner, type, offset, last);
    }

    /** Whether a share reservation on the file denies the access of {@code denyBit} (I/O with a special stateid). */
    boolean shareDenies(FileKey file, int denyBit) {
        FileState f = files.get(file);
        return f != null && f.denies(denyBit);
    }

    /**
     * Sets a lock for {@code owner}: its own locks in the range are replaced (POSIX semantics).
     * Setting one lock adds at most two (the new one and the far part of a lock it splits), so the
     * caps (the client's, the file's, the server's) are checked against that before anything changes.
     */
    void lock(FileKey file, Owner owner, int type, long offset, long last) {
        Held h = held(owner.clientId);
        if (h.locks + 2 > ctx.settings().maxLocksPerClient()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "client holds " + h.locks + " locks");
        }
        if (locks + 2 > ctx.settings().maxLocks()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "the server holds " + locks + " locks");
        }
        FileState f = file(file);
        if (f.lockCount() + 2 > ctx.settings().maxLocksPerFile()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "the file has " + f.lockCount() + " locks");
        }
        int added = f.lock(owner, type, offset, last);
        h.locks += added;
        locks += added;
    }

    /**
     * Releases the range for {@code owner} (LOCKU, RFC 8881 §18.12). A release in the middle of a
     * lock leaves two, one lock more: past a cap (the client's, the file's, the server's) it is
     * NFS4ERR_LOCK_RANGE, the error LOCKU has for a range the server cannot release, so that
     * LOCKUs cannot grow the locks where LOCKs may not.
     */
    void unlock(FileKey file, Owner owner, long offset, long last) {
        FileState f = files.get(file);
        if (f == null) {
            return;
        }
        if (f.splits(owner, offset, last)) {
            Held h = held(owner.clientId);
            if (h.locks + 1 > ctx.settings().maxLocksPerClient() || locks + 1 > ctx.settings().maxLocks()
                    || f.lockCount() + 1 > ctx.settings().maxLocksPerFile()) {
                throw new Nfs4Exception(NFS4ERR_LOCK_RANGE, "releasing the middle of a lock would pass a lock cap");
            }
        }
        int added = f.unlock(owner, offset, last);
        held(owner.clientId).locks += added;
        locks += added;
        tidy(file, f);
    }

    /**
     * Everything a client held goes (lease expiry, a new incarnation confirmed): its locks through
     * its lock states (every owner with locks on a file has its one lock state there), so the cost
     * is what the client held, not what others hold on the same files.
     */
    void dropClient(long clientId) {
        Held h = byClient.remove(clientId);
        if (h == null) {
            return;
        }
        for (State s : h.lockStates.values()) {
            FileState f = files.get(s.file);
            if (f != null) {
                locks -= f.dropLocks(s.owner);
                tidy(s.file, f);
            }
        }
        for (State s : List.copyOf(h.states)) {
            removeState(s);
        }
        owners -= h.owners.size();
    }

    /** Locks held on the server, for tests. */
    int locksHeld() {
        return locks;
    }

    /** Files with opens or locks held on them, for tests. */
    int fileCount() {
        return files.size();
    }

    int stateCount() {
        return byOther.size();
    }
}
