package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.v4.Stateid4;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Owners, stateids and byte-range locks are capped on the server as well as per client
 * (Nfs4Settings.maxOwners, maxStates, maxLocks): the per-client caps times the clients allowed
 * would let the clients together make the server keep gigabytes. Past a server cap OPEN and LOCK
 * answer NFS4ERR_NOSPC, as past a client's; a client that goes gives its share back. Here the
 * per-client caps are the defaults, far above the server's.
 */
class Nfs4ServerTablesTest {

    @TempDir
    Path dir;

    private static Reply open(Nfs4Harness h, String owner, String name) {
        Reply o = h.sequenced(putrootfh(), Nfs4Harness.open(owner, name, OPEN4_SHARE_ACCESS_BOTH, 0, true));
        o.skipSequence();
        o.op(OP_PUTROOTFH);
        return o;
    }

    @Test
    void ownersPastTheServersCapAreNospcAndComeBackWhenTheClientGoes() throws Exception {
        try (Nfs4Harness h = new Nfs4Harness(dir, Nfs4Settings.defaults().withServerTables(2, 100, 100))) {
            h.session();
            assertThat(open(h, "owner-a", "f").op(OP_OPEN)).isEqualTo(NFS4_OK);
            assertThat(open(h, "owner-b", "f").op(OP_OPEN)).isEqualTo(NFS4_OK);
            assertThat(open(h, "owner-c", "f").op(OP_OPEN)).as("a third owner on the server").isEqualTo(NFS4ERR_NOSPC);

            h.clock.addAndGet(TimeUnit.SECONDS.toMillis(Nfs4Settings.defaults().leaseSeconds() + 2));
            h.session(); // the first client expired with everything it held
            assertThat(h.ctx.clients().size()).isEqualTo(1);
            assertThat(open(h, "owner-c", "f").op(OP_OPEN)).isEqualTo(NFS4_OK);
        }
    }

    @Test
    void stateidsPastTheServersCapAreNospc() throws Exception {
        try (Nfs4Harness h = new Nfs4Harness(dir, Nfs4Settings.defaults().withServerTables(100, 2, 100))) {
            h.session();
            assertThat(open(h, "owner", "f1").op(OP_OPEN)).isEqualTo(NFS4_OK);
            assertThat(open(h, "owner", "f2").op(OP_OPEN)).isEqualTo(NFS4_OK);
            assertThat(open(h, "owner", "f3").op(OP_OPEN)).as("a third stateid on the server").isEqualTo(NFS4ERR_NOSPC);
            assertThat(h.ctx.states().stateCount()).isEqualTo(2);
        }
    }

    @Test
    void locksPastTheServersCapAreNospc() throws Exception {
        try (Nfs4Harness h = new Nfs4Harness(dir, Nfs4Settings.defaults().withServerTables(100, 100, 4))) {
            h.session();
            Reply o = open(h, "owner", "f");
            assertThat(o.op(OP_OPEN)).isEqualTo(NFS4_OK);
            Stateid4 open = o.openBody();
            byte[] fh = h.fhOf("f");
            Reply first = h.sequenced(putfh(fh), lockNew(open, "locker", WRITE_LT, 0, 10));
            first.skipSequence();
            first.op(OP_PUTFH);
            assertThat(first.op(OP_LOCK)).isEqualTo(NFS4_OK);
            Stateid4 lock = first.stateid();
            // One LOCK may add two (it can split one), so it is refused once two more would pass the cap.
            for (int i = 1; i <= 3; i++) {
                Reply r = h.sequenced(putfh(fh), lockExisting(lock, WRITE_LT, 20L * i, 10));
                r.skipSequence();
                r.op(OP_PUTFH);
                int status = r.op(OP_LOCK);
                if (i < 3) {
                    assertThat(status).as("lock %d", i + 1).isEqualTo(NFS4_OK);
                    lock = r.stateid();
                } else {
                    assertThat(status).as("a fourth lock with three held and a cap of four").isEqualTo(NFS4ERR_NOSPC);
                }
            }
            assertThat(h.ctx.states().locksHeld()).isEqualTo(3);
        }
    }
    /**
     * A file's locks are capped (Nfs4Settings.maxLocksPerFile), as a LOCK on it tests the other
     * owners' locks there for conflicts: past the cap LOCK is NFS4ERR_NOSPC on that file and only
     * there; a client's expiry takes its locks off the file through its own lock states.
     */
    @Test
    void locksPastTheFilesCapAreNospcOnThatFileAlone() throws Exception {
        try (Nfs4Harness h = new Nfs4Harness(dir, Nfs4Settings.defaults().withLocksPerFile(4))) {
            h.session();
            Reply of = open(h, "owner", "f");
            assertThat(of.op(OP_OPEN)).isEqualTo(NFS4_OK);
            Stateid4 openF = of.openBody();
            Reply og = open(h, "owner", "g");
            assertThat(og.op(OP_OPEN)).isEqualTo(NFS4_OK);
            Stateid4 openG = og.openBody();
            byte[] f = h.fhOf("f");
            Stateid4 first = null;
            for (int i = 0; i < 4; i++) {
                Reply r = h.sequenced(putfh(f), lockNew(openF, "locker-" + i, READ_LT, 10L * i, 5));
                r.skipSequence();
                r.op(OP_PUTFH);
                int status = r.op(OP_LOCK);
                if (i < 3) {
                    assertThat(status).as("lock owner %d", i).isEqualTo(NFS4_OK);
                    if (i == 0) {
                        first = r.stateid();
                    }
                } else {
                    assertThat(status).as("three held, a cap of four: one more may add two").isEqualTo(NFS4ERR_NOSPC);
                }
            }
            // LOCKU in the middle of a lock leaves two: allowed up to the cap, then NFS4ERR_LOCK_RANGE.
            Reply split = h.sequenced(putfh(f), locku(first, 1, 1));
            split.skipSequence();
            split.op(OP_PUTFH);
            assertThat(split.op(OP_LOCKU)).as("the fourth lock of the file").isEqualTo(NFS4_OK);
            Stateid4 afterSplit = split.stateid();
            Reply again = h.sequenced(putfh(f), locku(afterSplit, 3, 1));
            again.skipSequence();
            again.op(OP_PUTFH);
            assertThat(again.op(OP_LOCKU)).as("a fifth by splitting").isEqualTo(NFS4ERR_LOCK_RANGE);
            Reply whole = h.sequenced(putfh(f), locku(afterSplit, 0, 5));
            whole.skipSequence();
            whole.op(OP_PUTFH);
            assertThat(whole.op(OP_LOCKU)).as("releasing whole locks never passes a cap").isEqualTo(NFS4_OK);
            assertThat(h.ctx.states().locksHeld()).isEqualTo(2);

            byte[] g = h.fhOf("g");
            Reply other = h.sequenced(putfh(g), lockNew(openG, "locker-g", WRITE_LT, 0, 5));
            other.skipSequence();
            other.op(OP_PUTFH);
            assertThat(other.op(OP_LOCK)).as("another file").isEqualTo(NFS4_OK);
            assertThat(h.ctx.states().locksHeld()).isEqualTo(3);

            h.clock.addAndGet(TimeUnit.SECONDS.toMillis(Nfs4Settings.defaults().leaseSeconds() + 2));
            h.session(); // the first client expired with its locks
            assertThat(h.ctx.states().locksHeld()).isZero();
            assertThat(h.ctx.states().fileCount()).as("no file entry left behind").isZero();
        }
    }

    /**
     * The slots' cached replies are budgeted on the server (Nfs4Settings.maxReplyCacheOctets): a
     * CREATE_SESSION reserves its slots times its ca_maxresponsesize_cached, gets fewer slots than
     * it asked for once the budget runs short and NFS4ERR_DELAY when not even one slot fits; a
     * session that goes, destroyed or expired, gives its share back. Without the budget, the
     * sessions allowed times their slots times 8 KiB came to 512 MiB of heap.
     */
    @Test
    void slotsPastTheReplyCacheBudgetAreFewerAndComeBackWhenASessionGoes() throws Exception {
        // the harness's sessions ask for 16 slots of 4 KiB cached replies; room for 24 of them
        try (Nfs4Harness h = new Nfs4Harness(dir, Nfs4Settings.defaults().withReplyCache(24 * 4096))) {
            Exchanged x = h.exchange("client-1");
            long id = x.clientId();
            int seq = x.seq();
            Granted first = granted(h.compound(createSession(id, seq++)));
            assertThat(first.slots()).isEqualTo(16);
            assertThat(granted(h.compound(createSession(id, seq++))).slots()).as("what is left").isEqualTo(8);
            assertThat(h.compound(createSession(id, seq)).op(OP_CREATE_SESSION)).as("not one slot left")
                    .isEqualTo(NFS4ERR_DELAY);

            assertThat(h.compound(destroySession(first.sessionId())).op(OP_DESTROY_SESSION)).isEqualTo(NFS4_OK);
            assertThat(granted(h.compound(createSession(id, seq++))).slots()).as("after DESTROY_SESSION")
                    .isEqualTo(16);

            h.clock.addAndGet(TimeUnit.SECONDS.toMillis(Nfs4Settings.defaults().leaseSeconds() + 2));
            Exchanged y = h.exchange("client-2");
            assertThat(granted(h.compound(createSession(y.clientId(), y.seq()))).slots())
                    .as("after the first client expired").isEqualTo(16);
            assertThat(granted(h.compound(createSession(y.clientId(), y.seq() + 1))).slots()).isEqualTo(8);
        }
    }

    /** What a CREATE_SESSION granted: its session id and fore channel ca_maxrequests. */
    private record Granted(byte[] sessionId, int slots) {
    }

    private static Granted granted(Reply r) {
        assertThat(r.op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        byte[] id = r.in.readFixedOpaque(16);
        r.in.skip(4 + 4 + 5 * 4); // sequenceid, flags, and the fore channel's attributes before ca_maxrequests
        return new Granted(id, r.in.readInt());
    }
}
