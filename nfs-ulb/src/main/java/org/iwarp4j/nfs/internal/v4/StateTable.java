package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
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
 * {@link Nfs4Settings#maxStatesPerClient()}, {@link Nfs4Settings#maxLocksPerClient()}); beyond a
 * cap the operation answers NFS4ERR_NOSPC. Callers hold {@link Nfs4Context#lock()}.
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

    /** What one client holds, for its caps. */
    private static final class Held {
        final Map<OwnerKey, Owner> owners = new HashMap<>();
        final Set<State> states = new HashSet<>();
        int locks;
        /** Files it has held locks on: where to look when it goes, instead of every file with locks. */
        final Set<FileKey> lockedFiles = new HashSet<>();
    }

    private final Nfs4Context ctx;
    private final Map<ByteBuffer, State> byOther = new HashMap<>();
    private final Map<FileKey, List<State>> opensByFile = new HashMap<>();
    private final Map<FileKey, List<RangeLock>> locksByFile = new HashMap<>();
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
        } else {
            List<State> opens = opensByFile.get(s.file);
            if (opens != null) {
                opens.remove(s);
                if (opens.isEmpty()) {
                    opensByFile.remove(s.file);
                }
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
     * OPEN's share reservation (RFC 8881 §9.7, §18.16.4): the owner's existing open of the file is
     * upgraded (access and deny are or-ed in, the seqid raised), else a new open state is made. A
     * conflict with another owner's access or deny is NFS4ERR_SHARE_DENIED.
     */
    State open(Owner owner, FileKey file, int access, int deny) {
        List<State> opens = opensByFile.getOrDefault(file, List.of());
        State mine = null;
        for (State s : opens) {
            if (s.owner == owner) {
                mine = s;
            } else if ((s.deny & access) != 0 || (s.access & deny) != 0) {
                throw new Nfs4Exception(NFS4ERR_SHARE_DENIED, "share conflict with another open");
            }
        }
        if (mine == null) {
            mine = newState(owner, file, null);
            opensByFile.computeIfAbsent(file, f -> new ArrayList<>()).add(mine);
        } else {
            mine.bump();
        }
        mine.access |= access;
        mine.deny |= deny;
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
        s.access = access;
        s.deny = deny;
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
        for (RangeLock l : locksByFile.getOrDefault(lockState.file, List.of())) {
            if (l.owner == lockState.owner) {
                return true;
            }
        }
        return false;
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
        for (State s : held(lockOwner.clientId).states) {
            if (s.owner == lockOwner && s.file.equals(open.file)) {
                return s;
            }
        }
        return newState(lockOwner, open.file, open);
    }

    /** The first lock of another owner that conflicts with this range, or null. */
    /** A lock of another owner than {@code owner} (null: no owner of the caller's) that the range and type conflict with. */
    RangeLock conflict(FileKey file, Owner owner, int type, long offset, long last) {
        boolean write = type == WRITE_LT || type == WRITEW_LT;
        for (RangeLock l : locksByFile.getOrDefault(file, List.of())) {
            if (l.owner != owner && l.overlaps(offset, last) && (write || l.isWrite())) {
                return l;
            }
        }
        return null;
    }

    /**
     * Sets a lock for {@code owner}: its own locks in the range are replaced (POSIX semantics).
     * Setting one lock adds at most two (the new one and the far part of a lock it splits), so the
     * cap is checked against that before anything changes.
     */
    void lock(FileKey file, Owner owner, int type, long offset, long last) {
        Held h = held(owner.clientId);
        if (h.locks + 2 > ctx.settings().maxLocksPerClient()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "client holds " + h.locks + " locks");
        }
        if (locks + 2 > ctx.settings().maxLocks()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "the server holds " + locks + " locks");
        }
        List<RangeLock> fileLocks = locksByFile.computeIfAbsent(file, f -> new ArrayList<>());
        int before = countOf(fileLocks, owner);
        carve(fileLocks, owner, offset, last);
        fileLocks.add(new RangeLock(owner, type, offset, last));
        int added = countOf(fileLocks, owner) - before;
        h.locks += added;
        locks += added;
        h.lockedFiles.add(file);
    }

    /** Releases the range for {@code owner} (LOCKU, RFC 8881 §18.12). */
    void unlock(FileKey file, Owner owner, long offset, long last) {
        List<RangeLock> locks = locksByFile.get(file);
        if (locks == null) {
            return;
        }
        int before = countOf(locks, owner);
        carve(locks, owner, offset, last);
        int added = countOf(locks, owner) - before;
        Held h = held(owner.clientId);
        h.locks += added;
        this.locks += added;
        if (locks.stream().noneMatch(l -> l.owner.clientId == owner.clientId)) {
            h.lockedFiles.remove(file);
        }
        if (locks.isEmpty()) {
            locksByFile.remove(file);
        }
    }

    private static int countOf(List<RangeLock> locks, Owner owner) {
        int n = 0;
        for (RangeLock l : locks) {
            if (l.owner == owner) {
                n++;
            }
        }
        return n;
    }

    /** Removes [offset, last] from the owner's locks, splitting those that extend beyond it. */
    private static void carve(List<RangeLock> locks, Owner owner, long offset, long last) {
        List<RangeLock> keep = new ArrayList<>();
        for (Iterator<RangeLock> it = locks.iterator(); it.hasNext(); ) {
            RangeLock l = it.next();
            if (l.owner != owner || !l.overlaps(offset, last)) {
                continue;
            }
            it.remove();
            if (Long.compareUnsigned(l.offset, offset) < 0) {
                keep.add(new RangeLock(owner, l.type, l.offset, offset - 1));
            }
            if (Long.compareUnsigned(l.last, last) > 0) {
                keep.add(new RangeLock(owner, l.type, last + 1, l.last));
            }
        }
        locks.addAll(keep);
    }

    /** The opens of a file (for anonymous I/O and REMOVE checks). */
    List<State> opens(FileKey file) {
        return opensByFile.getOrDefault(file, List.of());
    }

    /** Everything a client held goes (lease expiry, a new incarnation confirmed). */
    void dropClient(long clientId) {
        Held h = byClient.remove(clientId);
        if (h == null) {
            return;
        }
        for (State s : List.copyOf(h.states)) {
            removeState(s);
        }
        for (FileKey file : h.lockedFiles) {
            List<RangeLock> fileLocks = locksByFile.get(file);
            if (fileLocks != null) {
                fileLocks.removeIf(l -> l.owner.clientId == clientId);
                if (fileLocks.isEmpty()) {
                    locksByFile.remove(file);
                }
            }
        }
        owners -= h.owners.size();
        locks -= h.locks;
    }

    /** Locks held on the server, for tests. */
    int locksHeld() {
        return locks;
    }

    int stateCount() {
        return byOther.size();
    }
}
