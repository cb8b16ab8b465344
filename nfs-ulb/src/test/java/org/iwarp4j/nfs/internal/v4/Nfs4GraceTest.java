package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stable client records and the grace period after a restart (RFC 8881 §8.4.2, §8.4.2.1,
 * §18.51): each test runs a server, "restarts" it (a new server on the same export and state
 * directory, as after a crash) and checks the COMPOUND4res octets: during the grace period only
 * clients the previous start recorded may reclaim (OPEN CLAIM_PREVIOUS, LOCK reclaim), everyone
 * else's OPEN and LOCK is NFS4ERR_GRACE (and REMOVE, RENAME, and I/O under a special stateid), reclaims outside it or from unrecorded clients are
 * NFS4ERR_NO_GRACE, and the period ends after one lease or as soon as every recorded client has
 * done RECLAIM_COMPLETE. The record file stays bounded.
 */
class Nfs4GraceTest {

    @TempDir
    Path export;
    @TempDir
    Path state;
    private final List<Nfs4Harness> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(Nfs4Harness::close);
    }

    private Nfs4Harness start(Nfs4Settings settings, Path stateDirectory) throws Exception {
        Nfs4Harness h = new Nfs4Harness(export, settings, stateDirectory);
        servers.add(h);
        return h;
    }

    private Nfs4Harness start() throws Exception {
        return start(Nfs4Settings.defaults(), state);
    }

    /** One client's session on one server, with its slot 0 sequenceid. */
    private static final class Client {
        final Nfs4Harness h;
        final long clientId;
        final byte[] session;
        int seq;

        Client(Nfs4Harness h, String owner) {
            this.h = h;
            Reply x = h.compound(exchangeId(owner, 7));
            assertThat(x.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
            clientId = x.in.readHyper();
            int s = x.in.readInt();
            Reply c = h.compound(createSession(clientId, s));
            assertThat(c.op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
            session = c.in.readFixedOpaque(16);
        }

        /** Runs SEQUENCE + {@code ops}; the reply is left after SEQUENCE's result. */
        @SafeVarargs
        final Reply run(Consumer<XdrEncoder>... ops) {
            List<Consumer<XdrEncoder>> all = new ArrayList<>();
            all.add(sequence(session, ++seq, 0));
            all.addAll(List.of(ops));
            Reply r = h.compound(1, all);
            assertThat(r.op(OP_SEQUENCE)).isEqualTo(NFS4_OK);
            return r.skipSequence();
        }

        int reclaimComplete() {
            return run(e -> e.writeInt(OP_RECLAIM_COMPLETE).writeBoolean(false)).op(OP_RECLAIM_COMPLETE);
        }

        /** PUTROOTFH, OPEN (create, CLAIM_NULL) of {@code name}: OPEN's status, stateid if OK. */
        Reply open(String name) {
            Reply r = run(putrootfh(), Nfs4Harness.open("o", name, OPEN4_SHARE_ACCESS_BOTH, 0, true));
            r.op(OP_PUTROOTFH);
            return r;
        }

        /** PUTROOTFH, LOOKUP name, OPEN CLAIM_PREVIOUS of the current handle. */
        Reply reclaimOpen(String name) {
            Reply r = run(putrootfh(), lookup(name), e -> e.writeInt(OP_OPEN).writeInt(0)
                    .writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0).writeHyper(0)
                    .writeOpaque("o".getBytes(StandardCharsets.UTF_8), 1024).writeEnum(OPEN4_NOCREATE)
                    .writeEnum(CLAIM_PREVIOUS).writeEnum(OPEN_DELEGATE_NONE));
            r.op(OP_PUTROOTFH);
            assertThat(r.op(OP_LOOKUP)).isEqualTo(NFS4_OK);
            return r;
        }
    }

    private static Consumer<XdrEncoder> lock(Stateid4 open, boolean reclaim, long offset, long length) {
        return e -> {
            e.writeInt(OP_LOCK).writeEnum(WRITE_LT).writeBoolean(reclaim).writeHyper(offset).writeHyper(length)
                    .writeBoolean(true).writeInt(0);
            open.encode(e);
            e.writeInt(0).writeHyper(0).writeOpaque((reclaim ? "reclaimer" : "locker").getBytes(StandardCharsets.UTF_8),
                    1024);
        };
    }

    /** The owners (hex) the log on disk records: its changes replayed. */
    private List<String> recordLines() throws Exception {
        List<String> lines = Files.readAllLines(state.resolve(ClientRecords.FILE_NAME));
        assertThat(lines.get(0)).isEqualTo(ClientRecords.HEADER);
        java.util.Set<String> owners = new java.util.LinkedHashSet<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.startsWith("+")) {
                owners.add(line.substring(1));
            } else {
                assertThat(line).startsWith("-");
                owners.remove(line.substring(1));
            }
        }
        return List.copyOf(owners);
    }

    private static String hex(String owner) {
        return HexFormat.of().formatHex(owner.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A client's first OPEN records it; the record reaches the disk before the reply, and without
     * the server's state lock held (which every other request needs) while the file is forced. The
     * expiry of many recorded clients, found by another client's request, is one force.
     */
    @Test
    void clientRecordsAreForcedOutsideTheStateLockBeforeTheReply() throws Exception {
        Nfs4Harness h = start();
        java.util.concurrent.atomic.AtomicInteger underLock = new java.util.concurrent.atomic.AtomicInteger();
        h.ctx.records().forcing((channel, metaData) -> {
            if (Thread.holdsLock(h.ctx.lock())) {
                underLock.incrementAndGet();
            }
            channel.force(metaData);
        });
        List<Client> clients = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Client c = new Client(h, "client-" + i);
            long forces = h.ctx.records().forces();
            assertThat(c.open("f" + i).op(OP_OPEN)).isEqualTo(NFS4_OK);
            assertThat(h.ctx.records().forces() - forces).as("forced before the reply").isEqualTo(1);
            assertThat(recordLines()).contains(hex("client-" + i));
            clients.add(c);
        }
        h.clock.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toMillis(Nfs4Settings.defaults().leaseSeconds() + 1));
        long forces = h.ctx.records().forces();
        Client late = new Client(h, "late"); // its EXCHANGE_ID finds the five expired
        assertThat(h.ctx.records().forces() - forces).as("five removals, one force").isEqualTo(1);
        assertThat(recordLines()).isEmpty();
        assertThat(late.reclaimComplete()).isEqualTo(NFS4_OK);
        assertThat(recordLines()).containsExactly(hex("late"));
        assertThat(underLock).as("forces under the state lock").hasValue(0);
    }

    /**
     * The record is forced before the reply is kept in the session's slot: a retransmission that
     * arrives while the force is held up finds the slot still in use (NFS4ERR_DELAY), not a
     * cached reply for an OPEN whose record is not on disk; once forced, it gets the cached reply.
     */
    @Test
    void aRetransmissionDuringTheForceIsNotAnsweredFromTheSlot() throws Exception {
        Nfs4Harness h = start();
        Client c = new Client(h, "client-r");
        java.util.concurrent.CountDownLatch forcing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        h.ctx.records().forcing((channel, metaData) -> {
            forcing.countDown();
            try {
                assertThat(release.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            channel.force(metaData);
        });
        List<Consumer<XdrEncoder>> ops = List.of(sequence(c.session, c.seq + 1, 0, true), putrootfh(),
                Nfs4Harness.open("o", "r", OPEN4_SHARE_ACCESS_BOTH, 0, true));
        java.util.concurrent.ExecutorService first = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<Reply> original = first.submit(() -> h.compound(1, ops));
            assertThat(forcing.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(h.compound(1, ops).op(OP_SEQUENCE)).as("the retransmission, during the force")
                    .isEqualTo(NFS4ERR_DELAY);
            release.countDown();
            Reply r = original.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(r.op(OP_SEQUENCE)).isEqualTo(NFS4_OK);
            r.skipSequence();
            r.op(OP_PUTROOTFH);
            assertThat(r.op(OP_OPEN)).isEqualTo(NFS4_OK);
        } finally {
            release.countDown();
            first.shutdownNow();
        }
        assertThat(recordLines()).containsExactly(hex("client-r"));
        assertThat(h.compound(1, ops).op(OP_SEQUENCE)).as("the retransmission, after it").isEqualTo(NFS4_OK);
    }

    @Test
    void aRecordedClientReclaimsItsOpenAndLockWhileOthersWaitUntilItsReclaimComplete() throws Exception {
        Nfs4Harness first = start();
        Client before = new Client(first, "client-a");
        assertThat(before.open("f").op(OP_OPEN)).as("no records yet: no grace period").isEqualTo(NFS4_OK);
        assertThat(before.reclaimComplete()).isEqualTo(NFS4_OK);
        assertThat(recordLines()).containsExactly(hex("client-a"));
        first.close();
        servers.remove(first);

        Nfs4Harness restarted = start();
        Client a = new Client(restarted, "client-a");
        Client b = new Client(restarted, "client-b");
        assertThat(b.open("g").op(OP_OPEN)).as("a new OPEN in the grace period").isEqualTo(NFS4ERR_GRACE);
        assertThat(b.reclaimOpen("f").op(OP_OPEN)).as("a client the previous start did not record")
                .isEqualTo(NFS4ERR_NO_GRACE);

        Reply reclaimed = a.reclaimOpen("f");
        assertThat(reclaimed.op(OP_OPEN)).isEqualTo(NFS4_OK);
        Stateid4 open = reclaimed.openBody();
        Reply newLock = a.run(putrootfh(), lookup("f"), lock(open, false, 0, 10));
        newLock.op(OP_PUTROOTFH);
        newLock.op(OP_LOOKUP);
        assertThat(newLock.op(OP_LOCK)).as("a LOCK that is no reclaim waits for the grace period")
                .isEqualTo(NFS4ERR_GRACE);
        Reply lockReclaim = a.run(putrootfh(), lookup("f"), lock(open, true, 0, 10));
        lockReclaim.op(OP_PUTROOTFH);
        lockReclaim.op(OP_LOOKUP);
        assertThat(lockReclaim.op(OP_LOCK)).isEqualTo(NFS4_OK);

        assertThat(a.reclaimComplete()).as("the last recorded client is done: grace over").isEqualTo(NFS4_OK);
        assertThat(a.reclaimOpen("f").op(OP_OPEN)).as("a reclaim after RECLAIM_COMPLETE").isEqualTo(NFS4ERR_NO_GRACE);
        assertThat(b.open("g").op(OP_OPEN)).as("long before the lease ran out").isEqualTo(NFS4_OK);
        assertThat(recordLines()).containsExactlyInAnyOrder(hex("client-a"), hex("client-b"));
    }

    private static Consumer<XdrEncoder> remove(String name) {
        return e -> e.writeInt(OP_REMOVE).writeString(name, 1024);
    }

    /** RENAME from the saved directory to the current one. */
    private static Consumer<XdrEncoder> rename(String from, String to) {
        return e -> e.writeInt(OP_RENAME).writeString(from, 1024).writeString(to, 1024);
    }

    private static Consumer<XdrEncoder> setattrSize(Stateid4 s, long size) {
        return e -> {
            e.writeInt(OP_SETATTR);
            s.encode(e);
            org.iwarp4j.nfs.v4.Bitmap4.of(FATTR4_SIZE).encode(e);
            e.writeUnsignedInt(8).writeHyper(size);
        };
    }

    private static Consumer<XdrEncoder> setattrMode(int mode) {
        return e -> {
            e.writeInt(OP_SETATTR);
            Stateid4.ANONYMOUS.encode(e);
            org.iwarp4j.nfs.v4.Bitmap4.of(FATTR4_MODE).encode(e);
            e.writeUnsignedInt(4).writeInt(mode);
        };
    }

    /** PUTROOTFH, LOOKUP name, then op: op's status (the rest of its result left unread). */
    private static int onFile(Client c, String name, int opcode, Consumer<XdrEncoder> op) {
        Reply r = c.run(putrootfh(), lookup(name), op);
        r.op(OP_PUTROOTFH);
        assertThat(r.op(OP_LOOKUP)).isEqualTo(NFS4_OK);
        return r.op(opcode);
    }

    /**
     * RFC 8881 §8.4.2, as knfsd: in the grace period REMOVE, RENAME and I/O or truncation under a
     * special stateid (except a READ with the READ-bypass one) get NFS4ERR_GRACE; I/O and
     * truncation under a reclaimed open go on, and so does a SETATTR that does not change the size.
     */
    @Test
    void inTheGracePeriodRemoveRenameAndSpecialStateidIoWait() throws Exception {
        Files.write(export.resolve("keep"), new byte[] {1, 2, 3, 4});
        Nfs4Harness first = start();
        Client before = new Client(first, "client-a");
        assertThat(before.open("f").op(OP_OPEN)).isEqualTo(NFS4_OK);
        assertThat(before.reclaimComplete()).isEqualTo(NFS4_OK);
        first.close();
        servers.remove(first);

        Nfs4Harness restarted = start();
        Client a = new Client(restarted, "client-a");
        Client b = new Client(restarted, "client-b");
        Reply rm = b.run(putrootfh(), remove("keep"));
        rm.op(OP_PUTROOTFH);
        assertThat(rm.op(OP_REMOVE)).isEqualTo(NFS4ERR_GRACE);
        Reply mv = b.run(putrootfh(), op(OP_SAVEFH), rename("keep", "moved"));
        mv.op(OP_PUTROOTFH);
        mv.op(OP_SAVEFH);
        assertThat(mv.op(OP_RENAME)).isEqualTo(NFS4ERR_GRACE);
        assertThat(onFile(b, "keep", OP_WRITE, write(Stateid4.ANONYMOUS, 0, FILE_SYNC4, new byte[] {9})))
                .isEqualTo(NFS4ERR_GRACE);
        assertThat(onFile(b, "keep", OP_SETATTR, setattrSize(Stateid4.ANONYMOUS, 0))).isEqualTo(NFS4ERR_GRACE);
        assertThat(onFile(b, "keep", OP_READ, read(Stateid4.ANONYMOUS, 0, 4))).isEqualTo(NFS4ERR_GRACE);
        assertThat(onFile(b, "keep", OP_READ, read(Stateid4.READ_BYPASS, 0, 4))).as("READ-bypass reads")
                .isEqualTo(NFS4_OK);
        assertThat(onFile(b, "keep", OP_SETATTR, setattrMode(0600))).as("no size change").isEqualTo(NFS4_OK);
        assertThat(Files.readAllBytes(export.resolve("keep"))).containsExactly(1, 2, 3, 4);
        assertThat(Files.exists(export.resolve("moved"))).isFalse();

        Reply reclaimed = a.reclaimOpen("f");
        assertThat(reclaimed.op(OP_OPEN)).isEqualTo(NFS4_OK);
        Stateid4 open = reclaimed.openBody();
        assertThat(onFile(a, "f", OP_WRITE, write(open, 0, FILE_SYNC4, new byte[] {7, 7}))).as("under a reclaimed open")
                .isEqualTo(NFS4_OK);
        assertThat(onFile(a, "f", OP_SETATTR, setattrSize(open, 1))).isEqualTo(NFS4_OK);
        assertThat(Files.readAllBytes(export.resolve("f"))).containsExactly(7);

        assertThat(a.reclaimComplete()).as("grace over").isEqualTo(NFS4_OK);
        Reply mvAfter = b.run(putrootfh(), op(OP_SAVEFH), rename("keep", "moved"));
        mvAfter.op(OP_PUTROOTFH);
        mvAfter.op(OP_SAVEFH);
        assertThat(mvAfter.op(OP_RENAME)).isEqualTo(NFS4_OK);
        assertThat(onFile(b, "moved", OP_WRITE, write(Stateid4.ANONYMOUS, 0, FILE_SYNC4, new byte[] {9})))
                .isEqualTo(NFS4_OK);
        Reply rmAfter = b.run(putrootfh(), remove("moved"));
        rmAfter.op(OP_PUTROOTFH);
        assertThat(rmAfter.op(OP_REMOVE)).isEqualTo(NFS4_OK);
        assertThat(Files.exists(export.resolve("moved"))).isFalse();
    }

    @Test
    void theGracePeriodLastsOneLeaseAndDropsTheRecordsOfClientsThatDidNotReclaim() throws Exception {
        Nfs4Harness first = start();
        assertThat(new Client(first, "client-a").reclaimComplete()).isEqualTo(NFS4_OK);
        assertThat(new Client(first, "client-b").reclaimComplete()).isEqualTo(NFS4_OK);
        first.close();
        servers.remove(first);

        Nfs4Harness restarted = start();
        Client a = new Client(restarted, "client-a");
        assertThat(a.reclaimComplete()).isEqualTo(NFS4_OK);
        assertThat(a.open("f").op(OP_OPEN)).as("client-b may still reclaim").isEqualTo(NFS4ERR_GRACE);
        restarted.clock.addAndGet(89_000);
        assertThat(a.open("f").op(OP_OPEN)).as("within the 90 s lease").isEqualTo(NFS4ERR_GRACE);
        restarted.clock.addAndGet(1_000);
        assertThat(a.open("f").op(OP_OPEN)).as("one lease after the start").isEqualTo(NFS4_OK);
        assertThat(recordLines()).as("client-b's chance is gone").containsExactly(hex("client-a"));
        Client b = new Client(restarted, "client-b");
        assertThat(b.reclaimOpen("f").op(OP_OPEN)).isEqualTo(NFS4ERR_NO_GRACE);
    }

    @Test
    void aRestartDuringTheGracePeriodKeepsTheClientsThatHaveNotReclaimedYet() throws Exception {
        Nfs4Harness first = start();
        assertThat(new Client(first, "client-a").reclaimComplete()).isEqualTo(NFS4_OK);
        first.close();
        servers.remove(first);
        Nfs4Harness second = start();
        new Client(second, "client-b");
        second.close();
        servers.remove(second);

        Files.write(export.resolve("f"), new byte[] {1});
        Nfs4Harness third = start();
        Client a = new Client(third, "client-a");
        assertThat(a.reclaimOpen("f").op(OP_OPEN)).as("recorded two starts ago, never reclaimed since")
                .isEqualTo(NFS4_OK);
        Client b = new Client(third, "client-b");
        assertThat(b.reclaimOpen("f").op(OP_OPEN)).as("had a session, never a record").isEqualTo(NFS4ERR_NO_GRACE);
    }

    @Test
    void withoutAStateDirectoryThereIsNoGraceAndNothingToReclaim() throws Exception {
        Nfs4Harness h = start(Nfs4Settings.defaults(), null);
        Client a = new Client(h, "client-a");
        assertThat(a.reclaimComplete()).isEqualTo(NFS4_OK);
        assertThat(a.open("f").op(OP_OPEN)).isEqualTo(NFS4_OK);
        assertThat(a.reclaimOpen("f").op(OP_OPEN)).isEqualTo(NFS4ERR_NO_GRACE);
        assertThat(state).isEmptyDirectory();
    }

    @Test
    void destroyClientIdForgetsTheRecord() throws Exception {
        Nfs4Harness h = start();
        Client a = new Client(h, "client-a");
        assertThat(a.reclaimComplete()).isEqualTo(NFS4_OK);
        assertThat(recordLines()).hasSize(1);
        assertThat(h.compound(e -> e.writeInt(OP_DESTROY_SESSION).writeFixedOpaque(a.session))
                .op(OP_DESTROY_SESSION)).isEqualTo(NFS4_OK);
        assertThat(h.compound(e -> e.writeInt(OP_DESTROY_CLIENTID).writeHyper(a.clientId))
                .op(OP_DESTROY_CLIENTID)).isEqualTo(NFS4_OK);
        assertThat(recordLines()).isEmpty();
    }

    @Test
    void theRecordsAreCappedAndAFileOfAnotherFormatIsIgnored() throws Exception {
        Nfs4Harness h = start(Nfs4Settings.defaults().withTables(3, 4, 10, 4, 10, 10, 10), state);
        for (String owner : List.of("c1", "c2", "c3")) {
            assertThat(new Client(h, owner).reclaimComplete()).isEqualTo(NFS4_OK);
        }
        assertThat(recordLines()).hasSize(3);
        h.close();
        servers.remove(h);
        Nfs4Harness capped = start(Nfs4Settings.defaults().withTables(2, 4, 10, 4, 10, 10, 10), state);
        assertThat(capped.ctx.records().previous()).as("no more than the cap is loaded").hasSize(2);
        capped.close();
        servers.remove(capped);

        Files.writeString(state.resolve(ClientRecords.FILE_NAME), "something else\n" + hex("c1") + "\n");
        Nfs4Harness ignored = start();
        Client c1 = new Client(ignored, "c1");
        assertThat(c1.open("f").op(OP_OPEN)).as("no records: no grace").isEqualTo(NFS4_OK);
    }
}
