package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The opens and byte-range locks held on one file (RFC 8881 §9.7 share reservations, §9.1 locks).
 * Opens are kept by owner with a count of the opens holding each share access and deny bit, so
 * that whether an OPEN conflicts with the others, or a share reservation denies an I/O with a
 * special stateid, is a few counters, not a walk of the file's opens. Locks are kept by owner: an
 * owner's LOCK and LOCKU split and merge its own locks only; a conflict test walks the locks of the
 * others, at most {@link Nfs4Settings#maxLocksPerFile()} (Linux's own lock manager walks a file's
 * POSIX locks the same way). Callers hold {@link Nfs4Context#lock()}.
 */
final class FileState {

    private final Map<StateTable.Owner, StateTable.State> opens = new HashMap<>();
    /** Opens holding share access bit 1 (READ) and 2 (WRITE), by bit. */
    private final int[] accessCounts = new int[3];
    /** Opens holding share deny bit 1 (READ) and 2 (WRITE), by bit. */
    private final int[] denyCounts = new int[3];
    private final Map<StateTable.Owner, List<StateTable.RangeLock>> locks = new HashMap<>();
    private int lockCount;

    /** The open of {@code owner} on this file, or null. */
    StateTable.State openOf(StateTable.Owner owner) {
        return opens.get(owner);
    }

    /**
     * Whether another owner's open denies what {@code access} asks or holds what {@code deny}
     * refuses (RFC 8881 §9.7); {@code mine} (null: none yet) is the asking owner's own open.
     */
    boolean shareConflict(StateTable.State mine, int access, int deny) {
        for (int bit = 1; bit <= 2; bit++) {
            int mineAccess = mine != null && (mine.access & bit) != 0 ? 1 : 0;
            int mineDeny = mine != null && (mine.deny & bit) != 0 ? 1 : 0;
            if ((access & bit) != 0 && denyCounts[bit] - mineDeny > 0) {
                return true;
            }
            if ((deny & bit) != 0 && accessCounts[bit] - mineAccess > 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether some open denies the access of the deny bit {@code denyBit} (OPEN4_SHARE_DENY_READ or _WRITE). */
    boolean denies(int denyBit) {
        return denyCounts[denyBit] > 0;
    }

    /** Adds a new open (access and deny still 0). */
    void addOpen(StateTable.State open) {
        opens.put(open.owner, open);
    }

    /** Sets an open's share access and deny, keeping the counts. */
    void share(StateTable.State open, int access, int deny) {
        count(open, -1);
        open.access = access;
        open.deny = deny;
        count(open, 1);
    }

    void removeOpen(StateTable.State open) {
        if (opens.remove(open.owner, open)) {
            count(open, -1);
        }
    }

    private void count(StateTable.State open, int delta) {
        for (int bit = 1; bit <= 2; bit++) {
            if ((open.access & bit) != 0) {
                accessCounts[bit] += delta;
            }
            if ((open.deny & bit) != 0) {
                denyCounts[bit] += delta;
            }
        }
    }

    boolean isEmpty() {
        return opens.isEmpty() && locks.isEmpty();
    }

    int lockCount() {
        return lockCount;
    }

    boolean holdsLocks(StateTable.Owner owner) {
        return locks.containsKey(owner);
    }

    /** A lock of another owner than {@code owner} (null: none of the caller's) the range and type conflict with, or null. */
    StateTable.RangeLock conflict(StateTable.Owner owner, int type, long offset, long last) {
        boolean write = type == WRITE_LT || type == WRITEW_LT;
        for (Map.Entry<StateTable.Owner, List<StateTable.RangeLock>> e : locks.entrySet()) {
            if (e.getKey() == owner) {
                continue;
            }
            for (StateTable.RangeLock l : e.getValue()) {
                if (l.overlaps(offset, last) && (write || l.isWrite())) {
                    return l;
                }
            }
        }
        return null;
    }

    /** Sets {@code owner}'s lock on the range, replacing its own locks there; the change in its lock count. */
    int lock(StateTable.Owner owner, int type, long offset, long last) {
        List<StateTable.RangeLock> mine = locks.computeIfAbsent(owner, o -> new ArrayList<>(2));
        int before = mine.size();
        carve(mine, owner, offset, last);
        mine.add(new StateTable.RangeLock(owner, type, offset, last));
        return counted(owner, mine, before);
    }

    /** Releases the range for {@code owner} (LOCKU); the change in its lock count. */
    int unlock(StateTable.Owner owner, long offset, long last) {
        List<StateTable.RangeLock> mine = locks.get(owner);
        if (mine == null) {
            return 0;
        }
        int before = mine.size();
        carve(mine, owner, offset, last);
        return counted(owner, mine, before);
    }

    /** Whether releasing the range would split one of {@code owner}'s locks in two (one lock more). */
    boolean splits(StateTable.Owner owner, long offset, long last) {
        List<StateTable.RangeLock> mine = locks.get(owner);
        if (mine == null) {
            return false;
        }
        for (StateTable.RangeLock l : mine) {
            if (Long.compareUnsigned(l.offset(), offset) < 0 && Long.compareUnsigned(l.last(), last) > 0) {
                return true;
            }
        }
        return false;
    }

    /** Removes every lock of {@code owner}; how many there were. */
    int dropLocks(StateTable.Owner owner) {
        List<StateTable.RangeLock> mine = locks.remove(owner);
        int n = mine == null ? 0 : mine.size();
        lockCount -= n;
        return n;
    }

    private int counted(StateTable.Owner owner, List<StateTable.RangeLock> mine, int before) {
        if (mine.isEmpty()) {
            locks.remove(owner);
        }
        int added = mine.size() - before;
        lockCount += added;
        return added;
    }

    /** Removes [offset, last] from an owner's locks, splitting those that extend beyond it. */
    private static void carve(List<StateTable.RangeLock> mine, StateTable.Owner owner, long offset, long last) {
        List<StateTable.RangeLock> keep = new ArrayList<>(2);
        for (Iterator<StateTable.RangeLock> it = mine.iterator(); it.hasNext(); ) {
            StateTable.RangeLock l = it.next();
            if (!l.overlaps(offset, last)) {
                continue;
            }
            it.remove();
            if (Long.compareUnsigned(l.offset(), offset) < 0) {
                keep.add(new StateTable.RangeLock(owner, l.type(), l.offset(), offset - 1));
            }
            if (Long.compareUnsigned(l.last(), last) > 0) {
                keep.add(new StateTable.RangeLock(owner, l.type(), last + 1, l.last()));
            }
        }
        mine.addAll(keep);
    }
}
