package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import org.junit.jupiter.api.Test;

/**
 * One file's opens and locks: share reservations kept as counts per bit (an OPEN's conflict test
 * and a special stateid's are counters, not a walk of the opens), locks kept per owner.
 */
class FileStateTest {

    private static final StateTable.FileKey FILE = new StateTable.FileKey(1, 2);

    private static StateTable.Owner owner(String name, boolean lock) {
        return new StateTable.Owner(7, name.getBytes(java.nio.charset.StandardCharsets.US_ASCII), lock);
    }

    private static StateTable.State open(FileState f, StateTable.Owner owner, int access, int deny) {
        StateTable.State s = new StateTable.State(new byte[12], owner, FILE, null);
        f.addOpen(s);
        f.share(s, access, deny);
        return s;
    }

    @Test
    void shareReservationsConflictThroughTheCountsOfTheOtherOpens() {
        FileState f = new FileState();
        StateTable.Owner a = owner("a", false);
        StateTable.Owner b = owner("b", false);
        StateTable.State sa = open(f, a, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE);
        assertThat(f.shareConflict(null, OPEN4_SHARE_ACCESS_WRITE, 0)).as("a denies writing").isTrue();
        assertThat(f.shareConflict(null, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_READ)).as("a reads").isTrue();
        assertThat(f.shareConflict(null, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE)).isFalse();
        assertThat(f.shareConflict(sa, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_READ))
                .as("an owner's own open does not conflict with its upgrade").isFalse();
        assertThat(f.denies(OPEN4_SHARE_DENY_WRITE)).isTrue();
        assertThat(f.denies(OPEN4_SHARE_DENY_READ)).isFalse();

        StateTable.State sb = open(f, b, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE);
        assertThat(f.openOf(b)).isSameAs(sb);
        assertThat(f.shareConflict(sa, OPEN4_SHARE_ACCESS_WRITE, 0)).as("b denies writing too").isTrue();
        f.share(sb, OPEN4_SHARE_ACCESS_READ, 0); // OPEN_DOWNGRADE
        assertThat(f.shareConflict(sa, OPEN4_SHARE_ACCESS_WRITE, 0)).isFalse();
        assertThat(f.shareConflict(sa, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_READ)).as("b still reads").isTrue();
        f.removeOpen(sa);
        f.removeOpen(sa); // twice: counted once
        assertThat(f.denies(OPEN4_SHARE_DENY_WRITE)).isFalse();
        f.removeOpen(sb);
        assertThat(f.isEmpty()).isTrue();
        assertThat(f.shareConflict(null, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_BOTH)).isFalse();
    }

    @Test
    void anOwnersLocksSplitAndMergeWhileOthersAreOnlyTested() {
        FileState f = new FileState();
        StateTable.Owner x = owner("x", true);
        StateTable.Owner y = owner("y", true);
        assertThat(f.lock(x, WRITE_LT, 0, 99)).isEqualTo(1);
        assertThat(f.splits(x, 40, 59)).isTrue();
        assertThat(f.splits(x, 0, 59)).as("from its start: no split").isFalse();
        assertThat(f.splits(y, 40, 59)).as("another owner's").isFalse();
        assertThat(f.unlock(x, 40, 59)).as("split in two").isEqualTo(1);
        assertThat(f.lockCount()).isEqualTo(2);
        assertThat(f.conflict(y, READ_LT, 45, 50)).as("the hole").isNull();
        assertThat(f.conflict(y, READ_LT, 30, 45)).isNotNull();
        assertThat(f.conflict(x, WRITE_LT, 0, 99)).as("its own locks never conflict").isNull();
        assertThat(f.lock(y, READ_LT, 45, 50)).isEqualTo(1);
        assertThat(f.conflict(x, READ_LT, 45, 50)).as("read with read").isNull();
        assertThat(f.conflict(x, WRITE_LT, 45, 50)).isNotNull();
        assertThat(f.lock(x, READ_LT, 0, 99)).as("replaces both of x's: one lock").isEqualTo(-1);
        assertThat(f.holdsLocks(x)).isTrue();
        assertThat(f.dropLocks(x)).isEqualTo(1);
        assertThat(f.holdsLocks(x)).isFalse();
        assertThat(f.unlock(y, 0, -1L)).isEqualTo(-1);
        assertThat(f.lockCount()).isZero();
        assertThat(f.isEmpty()).isTrue();
    }
}
