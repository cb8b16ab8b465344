package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * COMPOUND and session rules of RFC 8881 (§2.10, §16.2, §18.35, §18.36, §18.46), checked on the
 * octets of COMPOUND4res: minor versions, SEQUENCE placement, slot sequencing and the reply cache,
 * lease expiry, the grace period and the caps of the tables.
 */
class Nfs4SessionTest {

    @TempDir
    Path dir;
    Nfs4Harness h;

    @BeforeEach
    void start() throws Exception {
        h = new Nfs4Harness(dir);
    }

    @AfterEach
    void stop() {
        h.close();
    }

    @Test
    void minorVersionZeroAndThreeAreMismatchWithNoResults() {
        for (int minor : new int[] {0, 3}) {
            Reply r = h.compound(minor, List.of(putrootfh()));
            assertThat(r.status).isEqualTo(NFS4ERR_MINOR_VERS_MISMATCH);
            assertThat(r.tag).isEqualTo("t");
            assertThat(r.count).isZero();
            assertThat(r.in.isEmpty()).isTrue();
        }
    }

    @Test
    void minorVersionsOneAndTwoAreServed() {
        h.session();
        for (int minor : new int[] {1, 2}) {
            Reply r = h.compound(minor, List.of(sequence(h.sessionId, minor, 0), putrootfh()));
            assertThat(r.status).isEqualTo(NFS4_OK);
            assertThat(r.count).isEqualTo(2);
        }
    }

    @Test
    void operationsOutsideASessionAreRefused() {
        Reply r = h.compound(putrootfh());
        assertThat(r.status).isEqualTo(NFS4ERR_OP_NOT_IN_SESSION);
        assertThat(r.op(OP_PUTROOTFH)).isEqualTo(NFS4ERR_OP_NOT_IN_SESSION);

        Reply notOnly = h.compound(exchangeId("c", 1), putrootfh());
        assertThat(notOnly.count).isEqualTo(1);
        assertThat(notOnly.op(OP_EXCHANGE_ID)).isEqualTo(NFS4ERR_NOT_ONLY_OP);
    }

    /**
     * Another principal that names a client owner with state gets NFS4ERR_CLID_INUSE, whatever
     * verifier it sends (RFC 8881 §18.35.5 case 3): with a new verifier it would otherwise get an
     * unconfirmed record whose CREATE_SESSION dropped the client's record, sessions and state. The
     * client keeps its session.
     */
    @Test
    void anotherPrincipalCannotTakeOverAClientOwnerWithState() {
        h.session();
        h.uid = 1000;
        Reply newVerifier = h.compound(exchangeId("client-1", 2));
        assertThat(newVerifier.op(OP_EXCHANGE_ID)).as("a new verifier").isEqualTo(NFS4ERR_CLID_INUSE);
        Reply sameVerifier = h.compound(exchangeId("client-1", 1));
        assertThat(sameVerifier.op(OP_EXCHANGE_ID)).as("the same verifier").isEqualTo(NFS4ERR_CLID_INUSE);
        h.uid = 0;
        assertThat(h.sequenced(putrootfh()).status).as("the client's session").isEqualTo(NFS4_OK);
    }

    /**
     * Every SEQUENCE asks for expired clients to be dropped, which walks the whole client table:
     * it walks at most once per second of the server's clock, so one client's requests do not
     * each cost work in proportion to every other client; an expired client still goes.
     */
    @Test
    void sequencesWalkTheClientTableAtMostOncePerInterval() {
        h.session();
        for (int i = 0; i < 20; i++) {
            assertThat(h.compound(exchangeId("other-" + i, 1)).op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        }
        long before = h.ctx.clients().reaps();
        for (int i = 0; i < 50; i++) {
            assertThat(h.sequenced(putrootfh()).status).isEqualTo(NFS4_OK);
        }
        assertThat(h.ctx.clients().reaps() - before).as("walks in the same instant").isZero();
        h.clock.addAndGet(ClientTable.REAP_INTERVAL_MILLIS);
        assertThat(h.sequenced(putrootfh()).status).isEqualTo(NFS4_OK);
        assertThat(h.ctx.clients().reaps() - before).isEqualTo(1);

        h.clock.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toMillis(Nfs4Settings.defaults().leaseSeconds()));
        assertThat(h.sequenced(putrootfh()).status).as("this client renews").isEqualTo(NFS4_OK);
        assertThat(h.ctx.clients().size()).as("the 20 that never renewed expired").isEqualTo(1);
    }

    /**
     * A host the export does not admit gets no client ID (NFS4ERR_PERM): it could do nothing with
     * one but fill the client table that admitted clients need.
     */
    @Test
    void aHostTheExportDoesNotAdmitGetsNoClientId() {
        h.from = new java.net.InetSocketAddress("192.0.2.7", 700);
        assertThat(h.compound(exchangeId("stranger", 1)).op(OP_EXCHANGE_ID)).isEqualTo(NFS4ERR_PERM);
        h.from = new java.net.InetSocketAddress("127.0.0.1", 700);
        assertThat(h.compound(exchangeId("stranger", 1)).op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
    }

    /**
     * Only the principal whose EXCHANGE_ID made a record may confirm it with CREATE_SESSION (RFC
     * 8881 §18.36.4), unconfirmed as well as confirmed; the record stays for its own principal.
     */
    @Test
    void createSessionByAnotherPrincipalThanTheExchangeIdsIsClidInuse() {
        Reply x = h.compound(exchangeId("client-2", 1));
        assertThat(x.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        long clientId = x.in.readHyper();
        int seq = x.in.readInt();
        h.uid = 1000;
        assertThat(h.compound(createSession(clientId, seq)).op(OP_CREATE_SESSION)).isEqualTo(NFS4ERR_CLID_INUSE);
        h.uid = 0;
        assertThat(h.compound(createSession(clientId, seq)).op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
    }

    /**
     * A COMPOUND that starts with DESTROY_SESSION rather than SEQUENCE must hold nothing else
     * (RFC 8881 §18.37.3): the operations after it would run in no session, so under none of its
     * limits on the reply (a READ after another without end). The session stays.
     */
    @Test
    void destroySessionOutsideASessionMustBeTheOnlyOperation() {
        h.session();
        Reply r = h.compound(e -> e.writeInt(OP_DESTROY_SESSION).writeFixedOpaque(h.sessionId), putrootfh(),
                op(OP_GETFH));
        assertThat(r.status).isEqualTo(NFS4ERR_NOT_ONLY_OP);
        assertThat(r.count).as("no operation after it ran").isEqualTo(1);
        assertThat(r.op(OP_DESTROY_SESSION)).isEqualTo(NFS4ERR_NOT_ONLY_OP);
        assertThat(h.sequenced(putrootfh()).status).as("the session was not destroyed").isEqualTo(NFS4_OK);
    }

    @Test
    void sequenceAfterTheFirstPositionAndUnknownOperations() {
        h.session();
        Reply r = h.sequenced(sequence(h.sessionId, 9, 1));
        r.skipSequence();
        assertThat(r.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_SEQUENCE_POS);

        Reply illegal = h.sequenced(op(9999));
        illegal.skipSequence();
        assertThat(illegal.op(OP_ILLEGAL)).isEqualTo(NFS4ERR_OP_ILLEGAL);

        Reply seekIn41 = h.sequenced(op(OP_SEEK));
        seekIn41.skipSequence();
        assertThat(seekIn41.op(OP_ILLEGAL)).as("a 4.2 operation in a 4.1 COMPOUND").isEqualTo(NFS4ERR_OP_ILLEGAL);

        Reply layout = h.sequenced(putrootfh(), op(OP_LAYOUTGET));
        layout.skipSequence();
        layout.op(OP_PUTROOTFH);
        assertThat(layout.op(OP_LAYOUTGET)).isEqualTo(NFS4ERR_NOTSUPP);

        Reply old = h.sequenced(op(OP_RENEW));
        old.skipSequence();
        assertThat(old.op(OP_RENEW)).as("NFSv4.0 only").isEqualTo(NFS4ERR_NOTSUPP);
    }

    @Test
    void exchangeIdAnswersTheSameClientForTheSameVerifierAndConfirmsAfterCreateSession() {
        Reply a = h.compound(exchangeId("owner", 7));
        assertThat(a.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        long id = a.in.readHyper();
        int seq = a.in.readInt();
        int flags = a.in.readInt();
        assertThat(flags & EXCHGID4_FLAG_CONFIRMED_R).isZero();
        assertThat(flags & EXCHGID4_FLAG_USE_NON_PNFS).isNotZero();
        assertThat(a.in.readEnum()).isEqualTo(SP4_NONE);

        Reply c = h.compound(createSession(id, seq));
        assertThat(c.op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);

        Reply b = h.compound(exchangeId("owner", 7));
        assertThat(b.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        assertThat(b.in.readHyper()).isEqualTo(id);
        b.in.readInt();
        assertThat(b.in.readInt() & EXCHGID4_FLAG_CONFIRMED_R).isNotZero();

        Reply rebooted = h.compound(exchangeId("owner", 8));
        rebooted.op(OP_EXCHANGE_ID);
        assertThat(rebooted.in.readHyper()).as("a new incarnation gets a new client id").isNotEqualTo(id);
    }

    /**
     * One address makes at most {@code maxClientsPerAddress} client records (here 3 of a table of
     * 10): past it its own oldest unconfirmed record is evicted, and with all of them confirmed
     * EXCHANGE_ID is NFS4ERR_DELAY for it while another host still gets a record; a confirmed
     * client's new incarnation is not refused (it replaces the record at its CREATE_SESSION).
     * Before the cap one host could confirm every record of the table and keep them renewed.
     */
    @Test
    void oneAddressMakesAtMostItsCapOfClientRecords() throws Exception {
        h.close();
        h = new Nfs4Harness(dir, Nfs4Settings.defaults().withTables(10, 1, 10, 4, 2, 100, 100)
                .withClientsPerAddress(3));
        java.net.InetSocketAddress host = new java.net.InetSocketAddress("127.0.0.1", 700);
        java.net.InetSocketAddress otherPort = new java.net.InetSocketAddress("127.0.0.1", 701);
        long[] ids = new long[4];
        int[] seqs = new int[4];
        for (int i = 0; i < 4; i++) {
            h.from = i % 2 == 0 ? host : otherPort; // the port does not matter: one host
            Reply x = h.compound(exchangeId("host-" + i, 1));
            assertThat(x.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
            ids[i] = x.in.readHyper();
            seqs[i] = x.in.readInt();
        }
        synchronized (h.ctx.lock()) {
            assertThat(h.ctx.clients().recordsOf(host)).isEqualTo(3);
        }
        assertThat(h.compound(createSession(ids[0], seqs[0])).op(OP_CREATE_SESSION))
                .as("its oldest unconfirmed record, evicted for its fourth").isEqualTo(NFS4ERR_STALE_CLIENTID);
        for (int i = 1; i < 4; i++) {
            assertThat(h.compound(createSession(ids[i], seqs[i])).op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        }
        assertThat(h.compound(exchangeId("host-4", 1)).op(OP_EXCHANGE_ID)).as("three confirmed: no room")
                .isEqualTo(NFS4ERR_DELAY);

        Reply rebooted = h.compound(exchangeId("host-3", 2));
        assertThat(rebooted.op(OP_EXCHANGE_ID)).as("a new incarnation of its own client").isEqualTo(NFS4_OK);
        long newId = rebooted.in.readHyper();
        assertThat(h.compound(createSession(newId, rebooted.in.readInt())).op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        synchronized (h.ctx.lock()) {
            assertThat(h.ctx.clients().recordsOf(host)).as("the old incarnation dropped").isEqualTo(3);
        }

        h.from = new java.net.InetSocketAddress("127.0.0.2", 700);
        Reply elsewhere = h.compound(exchangeId("elsewhere", 1));
        assertThat(elsewhere.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        assertThat(h.compound(createSession(elsewhere.in.readHyper(), elsewhere.in.readInt())).op(OP_CREATE_SESSION))
                .isEqualTo(NFS4_OK);
        h.from = host;
        assertThat(h.compound(exchangeId("elsewhere", 2)).op(OP_EXCHANGE_ID))
                .as("another host's client's name is no way past the cap").isEqualTo(NFS4ERR_DELAY);

        h.from = host;
        h.clock.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toMillis(Nfs4Settings.defaults().leaseSeconds() + 1));
        assertThat(h.compound(exchangeId("host-4", 1)).op(OP_EXCHANGE_ID)).as("its records expired: room again")
                .isEqualTo(NFS4_OK);
        synchronized (h.ctx.lock()) {
            assertThat(h.ctx.clients().recordsOf(host)).isEqualTo(1);
        }
    }

    /**
     * A full table evicts its oldest unconfirmed record; each owner's records are found by owner
     * through evictions and through a new incarnation's confirmation, which drops the old one.
     */
    @Test
    void aFullTableEvictsTheOldestUnconfirmedRecordAndOwnersStayFoundThroughEveryChange() throws Exception {
        h.close();
        h = new Nfs4Harness(dir, Nfs4Settings.defaults().withTables(3, 1, 10, 4, 2, 100, 100));
        h.session(); // confirmed: never evicted
        long[] ids = new long[3];
        int[] seqs = new int[3];
        for (int i = 0; i < 3; i++) {
            Reply x = h.compound(exchangeId("waiting-" + i, 1));
            assertThat(x.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
            ids[i] = x.in.readHyper();
            seqs[i] = x.in.readInt();
        }
        assertThat(h.compound(createSession(ids[0], seqs[0])).op(OP_CREATE_SESSION)).as("the oldest, evicted")
                .isEqualTo(NFS4ERR_STALE_CLIENTID);
        assertThat(h.compound(createSession(ids[2], seqs[2])).op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);

        Reply same = h.compound(exchangeId("waiting-2", 1));
        assertThat(same.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        assertThat(same.in.readHyper()).as("found by its owner once confirmed").isEqualTo(ids[2]);

        Reply rebooted = h.compound(exchangeId("waiting-2", 2));
        assertThat(rebooted.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        long newId = rebooted.in.readHyper();
        int newSeq = rebooted.in.readInt();
        assertThat(newId).isNotEqualTo(ids[2]);
        assertThat(h.compound(createSession(ids[1], seqs[1])).op(OP_CREATE_SESSION))
                .as("evicted for the new incarnation, not the confirmed record").isEqualTo(NFS4ERR_STALE_CLIENTID);
        assertThat(h.compound(createSession(newId, newSeq)).op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        synchronized (h.ctx.lock()) {
            assertThat(h.ctx.clients().size()).as("the old incarnation dropped").isEqualTo(2);
        }

        Reply old = h.compound(exchangeId("waiting-2", 1));
        assertThat(old.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        long oldAgain = old.in.readHyper();
        old.in.readInt();
        assertThat(oldAgain).as("the dropped incarnation is not found").isNotIn(ids[2], newId);
        assertThat(old.in.readInt() & EXCHGID4_FLAG_CONFIRMED_R).isZero();
        Reply current = h.compound(exchangeId("waiting-2", 2));
        assertThat(current.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        assertThat(current.in.readHyper()).isEqualTo(newId);
    }

    @Test
    void createSessionIsSequencedAndItsReplayGetsTheSameReply() {
        Reply a = h.compound(exchangeId("owner", 1));
        a.op(OP_EXCHANGE_ID);
        long id = a.in.readHyper();
        int seq = a.in.readInt();
        Reply first = h.compound(createSession(id, seq));
        assertThat(first.op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        Reply replay = h.compound(createSession(id, seq));
        assertThat(replay.bytes()).isEqualTo(first.bytes());
        Reply skipped = h.compound(createSession(id, seq + 5));
        assertThat(skipped.op(OP_CREATE_SESSION)).isEqualTo(NFS4ERR_SEQ_MISORDERED);
        Reply unknown = h.compound(createSession(id ^ 0x1234, 1));
        assertThat(unknown.op(OP_CREATE_SESSION)).isEqualTo(NFS4ERR_STALE_CLIENTID);
    }

    @Test
    void createSessionClampsTheChannelAttributes() {
        Reply a = h.compound(exchangeId("owner", 1));
        a.op(OP_EXCHANGE_ID);
        long id = a.in.readHyper();
        int seq = a.in.readInt();
        Consumer<XdrEncoder> cs = e -> {
            e.writeInt(OP_CREATE_SESSION).writeHyper(id).writeInt(seq).writeInt(0);
            channel(64 << 20, 64 << 20, 1 << 20, 1000, 100000).accept(e);
            channel(4096, 4096, 0, 2, 1).accept(e);
            e.writeInt(0x40000000).writeUnsignedInt(0);
        };
        Reply r = h.compound(cs);
        assertThat(r.op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        r.in.readFixedOpaque(16);
        r.in.readInt();
        assertThat(r.in.readInt() & CREATE_SESSION4_FLAG_CONN_BACK_CHAN).as("no back channel granted").isZero();
        r.in.readInt();
        assertThat(r.in.readInt()).as("maxrequestsize").isEqualTo((1 << 20) + 8192);
        assertThat(r.in.readInt()).as("maxresponsesize").isEqualTo((1 << 20) + 8192);
        assertThat(r.in.readInt()).as("maxresponsesize_cached").isEqualTo(8192);
        assertThat(r.in.readInt()).as("maxoperations").isEqualTo(16);
        assertThat(r.in.readInt()).as("maxrequests").isEqualTo(64);
    }

    @Test
    void sequenceRunsTheNextSeqidReplaysTheSameAndRefusesOthers() {
        h.session();
        List<Consumer<XdrEncoder>> ops = List.of(sequence(h.sessionId, 1, 3, true), putrootfh(), op(OP_GETFH));
        Reply first = h.compound(1, ops);
        assertThat(first.status).isEqualTo(NFS4_OK);
        Reply replay = h.compound(1, ops);
        assertThat(replay.bytes()).as("the slot's cached reply").isEqualTo(first.bytes());

        Reply ahead = h.compound(1, List.of(sequence(h.sessionId, 3, 3)));
        assertThat(ahead.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_SEQ_MISORDERED);
        Reply behind = h.compound(1, List.of(sequence(h.sessionId, 0, 3)));
        assertThat(behind.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_SEQ_MISORDERED);
        Reply next = h.compound(1, List.of(sequence(h.sessionId, 2, 3)));
        assertThat(next.op(OP_SEQUENCE)).isEqualTo(NFS4_OK);
        next.in.readFixedOpaque(16);
        assertThat(next.in.readInt()).isEqualTo(2);
        assertThat(next.in.readInt()).isEqualTo(3);
        assertThat(next.in.readInt()).as("highest slot").isEqualTo(15);

        Reply badSlot = h.compound(1, List.of(sequence(h.sessionId, 1, 16)));
        assertThat(badSlot.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_BADSLOT);
        Reply badSession = h.compound(1, List.of(sequence(new byte[16], 1, 0)));
        assertThat(badSession.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_BADSESSION);
    }

    /** RFC 8881 §2.10.6.1.3: without sa_cachethis the reply is not kept, and its replay is refused. */
    @Test
    void aReplyIsKeptOnlyWhenSaCachethisAsks() throws Exception {
        h.session();
        Files.write(dir.resolve("f"), new byte[] {1, 2, 3});
        List<Consumer<XdrEncoder>> uncached = List.of(sequence(h.sessionId, 1, 2, false), putrootfh(), lookup("f"),
                op(OP_GETFH));
        Reply first = h.compound(1, uncached);
        assertThat(first.status).isEqualTo(NFS4_OK);
        Reply replay = h.compound(1, uncached);
        assertThat(replay.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_RETRY_UNCACHED_REP);
        assertThat(replay.count).as("nothing after the refused SEQUENCE runs").isEqualTo(1);

        // the slot goes on; the next request asks for its reply to be kept, and its replay gets it
        List<Consumer<XdrEncoder>> cached = List.of(sequence(h.sessionId, 2, 2, true), putrootfh(), lookup("f"),
                op(OP_GETFH));
        Reply second = h.compound(1, cached);
        assertThat(second.status).isEqualTo(NFS4_OK);
        assertThat(h.compound(1, cached).bytes()).isEqualTo(second.bytes());
        // a later uncached request replaces the kept reply: its replay is refused again
        List<Consumer<XdrEncoder>> third = List.of(sequence(h.sessionId, 3, 2, false), putrootfh());
        assertThat(h.compound(1, third).status).isEqualTo(NFS4_OK);
        assertThat(h.compound(1, third).op(OP_SEQUENCE)).isEqualTo(NFS4ERR_RETRY_UNCACHED_REP);
    }

    @Test
    void moreOperationsThanTheSessionAllowsIsTooManyOps() {
        h.session();
        List<Consumer<XdrEncoder>> ops = new ArrayList<>();
        ops.add(sequence(h.sessionId, 1, 0));
        for (int i = 0; i < 8; i++) {
            ops.add(putrootfh());
        }
        Reply r = h.compound(1, ops);
        assertThat(r.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_TOO_MANY_OPS);
        assertThat(r.count).isEqualTo(1);
    }

    @Test
    void anExpiredLeaseLosesTheSessionAndTheClient() {
        h.session();
        h.clock.addAndGet(60_000);
        assertThat(h.sequenced().status).as("renewed within the lease").isEqualTo(NFS4_OK);
        h.clock.addAndGet(91_000);
        Reply r = h.compound(1, List.of(sequence(h.sessionId, 2, 0)));
        assertThat(r.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_BADSESSION);
        Reply c = h.compound(createSession(h.clientId, 2));
        assertThat(c.op(OP_CREATE_SESSION)).isEqualTo(NFS4ERR_STALE_CLIENTID);
    }

    @Test
    void destroySessionThenDestroyClientId() {
        h.session();
        Reply busy = h.compound(e -> e.writeInt(OP_DESTROY_CLIENTID).writeHyper(h.clientId));
        assertThat(busy.op(OP_DESTROY_CLIENTID)).isEqualTo(NFS4ERR_CLIENTID_BUSY);
        Reply ds = h.compound(e -> e.writeInt(OP_DESTROY_SESSION).writeFixedOpaque(h.sessionId));
        assertThat(ds.op(OP_DESTROY_SESSION)).isEqualTo(NFS4_OK);
        Reply gone = h.compound(1, List.of(sequence(h.sessionId, 1, 0)));
        assertThat(gone.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_BADSESSION);
        Reply dc = h.compound(e -> e.writeInt(OP_DESTROY_CLIENTID).writeHyper(h.clientId));
        assertThat(dc.op(OP_DESTROY_CLIENTID)).isEqualTo(NFS4_OK);
        Reply again = h.compound(e -> e.writeInt(OP_DESTROY_CLIENTID).writeHyper(h.clientId));
        assertThat(again.op(OP_DESTROY_CLIENTID)).isEqualTo(NFS4ERR_STALE_CLIENTID);
    }

    @Test
    void reclaimCompleteOnceAndBindConnToSession() {
        h.session();
        Reply rc = h.sequenced(e -> e.writeInt(OP_RECLAIM_COMPLETE).writeBoolean(false));
        rc.skipSequence();
        assertThat(rc.op(OP_RECLAIM_COMPLETE)).isEqualTo(NFS4_OK);
        Reply again = h.sequenced(e -> e.writeInt(OP_RECLAIM_COMPLETE).writeBoolean(false));
        again.skipSequence();
        assertThat(again.op(OP_RECLAIM_COMPLETE)).isEqualTo(NFS4ERR_COMPLETE_ALREADY);

        Reply bind = h.compound(e -> e.writeInt(OP_BIND_CONN_TO_SESSION).writeFixedOpaque(h.sessionId)
                .writeEnum(CDFC4_FORE_OR_BOTH).writeBoolean(false));
        assertThat(bind.op(OP_BIND_CONN_TO_SESSION)).isEqualTo(NFS4_OK);
        assertThat(bind.in.readFixedOpaque(16)).isEqualTo(h.sessionId);
        assertThat(bind.in.readEnum()).isEqualTo(CDFS4_FORE);
    }

    @Test
    void inTheGracePeriodOnlyReclaimsMayOpenAndAnUnrecordedClientCannotReclaim() throws Exception {
        h.close();
        h = new Nfs4Harness(dir, Nfs4Settings.defaults().withGrace(10));
        h.session();
        Reply inGrace = h.sequenced(putrootfh(), open("o", "f", OPEN4_SHARE_ACCESS_BOTH, 0, true));
        inGrace.skipSequence();
        inGrace.op(OP_PUTROOTFH);
        assertThat(inGrace.op(OP_OPEN)).isEqualTo(NFS4ERR_GRACE);
        Reply reclaim = h.sequenced(putrootfh(), reclaimOpen());
        reclaim.skipSequence();
        reclaim.op(OP_PUTROOTFH);
        assertThat(reclaim.op(OP_OPEN)).as("no stable records: nobody can reclaim").isEqualTo(NFS4ERR_NO_GRACE);

        h.clock.addAndGet(10_001);
        Reply after = h.sequenced(putrootfh(), open("o", "f", OPEN4_SHARE_ACCESS_BOTH, 0, true));
        after.skipSequence();
        after.op(OP_PUTROOTFH);
        assertThat(after.op(OP_OPEN)).isEqualTo(NFS4_OK);
        Reply late = h.sequenced(putrootfh(), reclaimOpen());
        late.skipSequence();
        late.op(OP_PUTROOTFH);
        assertThat(late.op(OP_OPEN)).isEqualTo(NFS4ERR_NO_GRACE);
    }

    private static Consumer<XdrEncoder> reclaimOpen() {
        return e -> e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_READ).writeInt(0).writeHyper(0)
                .writeOpaque(new byte[] {1}, 1024).writeEnum(OPEN4_NOCREATE).writeEnum(CLAIM_PREVIOUS)
                .writeEnum(OPEN_DELEGATE_NONE);
    }

    @Test
    void tablesAreCapped() throws Exception {
        h.close();
        h = new Nfs4Harness(dir, Nfs4Settings.defaults().withTables(2, 1, 10, 4, 2, 100, 100));
        h.session();
        Reply second = h.compound(createSession(h.clientId, 2));
        assertThat(second.op(OP_CREATE_SESSION)).as("one session per client").isEqualTo(NFS4ERR_NOSPC);

        // unconfirmed clients make room for each other; a confirmed one is never evicted
        for (int i = 0; i < 5; i++) {
            assertThat(h.compound(exchangeId("other-" + i, 1)).op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        }
        synchronized (h.ctx.lock()) {
            assertThat(h.ctx.clients().size()).isEqualTo(2);
        }
        assertThat(h.sequenced().status).isEqualTo(NFS4_OK);

        Reply o1 = h.sequenced(putrootfh(), open("owner-1", "a", OPEN4_SHARE_ACCESS_BOTH, 0, true));
        assertThat(o1.status).isEqualTo(NFS4_OK);
        Reply o2 = h.sequenced(putrootfh(), open("owner-2", "a", OPEN4_SHARE_ACCESS_BOTH, 0, true));
        assertThat(o2.status).isEqualTo(NFS4_OK);
        Reply o3 = h.sequenced(putrootfh(), open("owner-3", "a", OPEN4_SHARE_ACCESS_BOTH, 0, true));
        o3.skipSequence();
        o3.op(OP_PUTROOTFH);
        assertThat(o3.op(OP_OPEN)).as("two owners per client").isEqualTo(NFS4ERR_NOSPC);
    }

    /**
     * A session id is the client's id and 8 random octets: another host, which learns the boot
     * id from its own client id, cannot work out a session's id (the boot id and a counter, as
     * before, could be) and so cannot name it in DESTROY_SESSION or BIND_CONN_TO_SESSION.
     */
    @Test
    void sessionIdsAreTheClientIdAndRandomOctets() {
        h.session();
        byte[] first = h.sessionId;
        h.session();
        byte[] second = h.sessionId;
        java.util.Set<Long> tails = new java.util.HashSet<>();
        for (byte[] id : List.of(first, second)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(id);
            assertThat(b.getLong()).isEqualTo(h.clientId);
            long tail = b.getLong();
            assertThat((int) (tail >>> 32)).as("not the boot id and a counter").isNotEqualTo(h.ctx.bootId());
            tails.add(tail);
        }
        assertThat(tails).as("two sessions of one client").hasSize(2);
    }

    /**
     * CREATE_SESSION belongs to the principal and the host whose EXCHANGE_ID made the client
     * record (RFC 8881 §18.36.4), its replay as much as a new one: the replay answers the cached
     * reply, which holds the session id, and a new one makes a session; either way another host
     * that guessed a client id (and sequenceid 1 or 2) could act as that client.
     */
    @Test
    void createSessionAndItsReplayBelongToTheHostAndPrincipalOfTheExchangeId() {
        h.session();
        long victim = h.clientId;
        byte[] victimSession = h.sessionId;
        h.uid = 1000;
        h.from = new java.net.InetSocketAddress("127.0.0.2", 700);
        assertThat(h.compound(exchangeId("intruder", 1)).op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        for (int uid : new int[] {1000, 0}) {
            h.uid = uid;
            Reply replay = h.compound(createSession(victim, 1));
            assertThat(replay.op(OP_CREATE_SESSION)).as("the replay, uid %d from another host", uid)
                    .isEqualTo(NFS4ERR_CLID_INUSE);
            assertThat(indexOf(replay.bytes(), victimSession)).as("the session id").isEqualTo(-1);
            assertThat(h.compound(createSession(victim, 2)).op(OP_CREATE_SESSION))
                    .as("a new session, uid %d from another host", uid).isEqualTo(NFS4ERR_CLID_INUSE);
        }
        h.from = new java.net.InetSocketAddress("127.0.0.1", 701); // its own host, another port
        assertThat(indexOf(h.compound(createSession(victim, 1)).bytes(), victimSession))
                .as("the replay for the client itself").isNotEqualTo(-1);
        synchronized (h.ctx.lock()) {
            assertThat(h.ctx.sessions().size()).as("no session made for the intruder").isEqualTo(1);
        }
        assertThat(h.sequenced(putrootfh()).status).isEqualTo(NFS4_OK);
    }

    /**
     * The low word of a client id is random (the high word is the boot id, which makes the ids
     * of an earlier start stale): with a counter there, another host read the ids of the clients
     * made just before and after its own off its own.
     */
    @Test
    void clientIdsAreTheBootIdAndARandomLowWord() {
        java.util.Set<Long> ids = new java.util.LinkedHashSet<>();
        for (int i = 0; i < 32; i++) {
            Reply x = h.compound(exchangeId("many-" + i, 1));
            assertThat(x.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
            long id = x.in.readHyper();
            assertThat((int) (id >>> 32)).as("the boot id").isEqualTo(h.ctx.bootId());
            ids.add(id);
        }
        assertThat(ids).hasSize(32);
        Long[] inOrder = ids.toArray(new Long[0]);
        int steps = 0;
        for (int i = 1; i < inOrder.length; i++) {
            if (inOrder[i] - inOrder[i - 1] == 1) {
                steps++;
            }
        }
        assertThat(steps).as("ids one apart, of 31").isLessThan(31);
    }

    /**
     * A SEQUENCE that fails leaves its slot as it was (RFC 8881 §18.46.3), NFS4ERR_TOO_MANY_OPS as
     * well: the same sequenceid then runs a shorter COMPOUND, where a slot that had advanced would
     * answer it as a replay of the refused one.
     */
    @Test
    void tooManyOperationsLeavesTheSlotAsItWas() {
        h.session();
        List<Consumer<XdrEncoder>> ops = new ArrayList<>();
        ops.add(sequence(h.sessionId, 1, 1, true));
        for (int i = 0; i < 8; i++) {
            ops.add(putrootfh());
        }
        assertThat(h.compound(1, ops).op(OP_SEQUENCE)).isEqualTo(NFS4ERR_TOO_MANY_OPS);
        Reply shorter = h.compound(1, List.of(sequence(h.sessionId, 1, 1, true), putrootfh()));
        assertThat(shorter.status).isEqualTo(NFS4_OK);
        assertThat(shorter.count).as("run, not a replay").isEqualTo(2);
    }

    /**
     * A COMPOUND larger than the session's ca_maxrequestsize — the whole RPC call, its header and
     * credential included (RFC 8881 §18.36.3) — gets NFS4ERR_REQ_TOO_BIG from SEQUENCE and its slot
     * does not advance (§18.46.3); one of exactly that size runs.
     */
    @Test
    void aRequestLargerThanCaMaxrequestsizeIsReqTooBig() {
        Exchanged x = h.exchange("small-requests");
        int limit = 512;
        Reply cs = h.compound(createSession(x.clientId(), x.seq(), channel(limit, 1 << 20, 4096, 8, 4)));
        assertThat(cs.op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        byte[] sid = cs.in.readFixedOpaque(16);
        cs.in.skip(8 + 4);
        assertThat(cs.in.readInt()).as("ca_maxrequestsize granted").isEqualTo(limit);

        int rpcHeader = 40; // xid, CALL, rpcvers, program, version, procedure, AUTH_NONE credential and verifier
        int withoutName = rpcHeader + callOctets(List.of(sequence(sid, 1, 0), putrootfh(), lookup("")));
        String atTheLimit = "n".repeat(limit - withoutName);
        assertThat(rpcHeader + callOctets(List.of(sequence(sid, 1, 0), putrootfh(), lookup(atTheLimit))))
                .isEqualTo(limit);

        Reply tooBig = h.compound(1, List.of(sequence(sid, 1, 0), putrootfh(), lookup(atTheLimit + "nnnn")));
        assertThat(tooBig.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_REQ_TOO_BIG);
        assertThat(tooBig.count).isEqualTo(1);
        Reply fits = h.compound(1, List.of(sequence(sid, 1, 0), putrootfh(), lookup(atTheLimit)));
        assertThat(fits.op(OP_SEQUENCE)).as("the same sequenceid: the slot did not advance").isEqualTo(NFS4_OK);
    }

    private static int callOctets(List<Consumer<XdrEncoder>> ops) {
        io.netty.buffer.ByteBuf b = Nfs4Harness.args(1, "t", ops);
        try {
            return b.readableBytes();
        } finally {
            b.release();
        }
    }

    /**
     * DESTROY_SESSION of the session SEQUENCE named must be the COMPOUND's last operation (RFC
     * 8881 §18.37.3), else NFS4ERR_NOT_ONLY_OP as knfsd answers: the operations after it would run
     * in a session that no longer is. Last, it destroys the session.
     */
    @Test
    void destroySessionOfTheCurrentSessionMustBeTheLastOperation() {
        h.session();
        Reply notLast = h.sequenced(destroySession(h.sessionId), putrootfh());
        notLast.skipSequence();
        assertThat(notLast.op(OP_DESTROY_SESSION)).isEqualTo(NFS4ERR_NOT_ONLY_OP);
        assertThat(notLast.count).as("nothing after it ran").isEqualTo(2);
        assertThat(h.sequenced(putrootfh()).status).as("the session stays").isEqualTo(NFS4_OK);

        Reply last = h.sequenced(putrootfh(), destroySession(h.sessionId));
        assertThat(last.status).isEqualTo(NFS4_OK);
        assertThat(h.compound(1, List.of(sequence(h.sessionId, 9, 0))).op(OP_SEQUENCE)).isEqualTo(NFS4ERR_BADSESSION);
    }

    /** DESTROY_SESSION of another session than SEQUENCE's may stand anywhere after SEQUENCE (RFC 8881 §18.37.3). */
    @Test
    void destroySessionOfAnotherSessionMayStandAnywhereAfterSequence() {
        h.session();
        byte[] first = h.sessionId;
        h.session();
        Reply r = h.sequenced(destroySession(first), putrootfh());
        assertThat(r.status).isEqualTo(NFS4_OK);
        assertThat(r.count).isEqualTo(3);
        assertThat(h.compound(1, List.of(sequence(first, 1, 0))).op(OP_SEQUENCE)).isEqualTo(NFS4ERR_BADSESSION);
    }

    /** BIND_CONN_TO_SESSION is the only operation of its COMPOUND (RFC 8881 §18.34.3), not even after SEQUENCE. */
    @Test
    void bindConnToSessionMustBeTheOnlyOperation() {
        h.session();
        Reply r = h.sequenced(bindConnToSession(h.sessionId, CDFC4_FORE));
        r.skipSequence();
        assertThat(r.op(OP_BIND_CONN_TO_SESSION)).isEqualTo(NFS4ERR_NOT_ONLY_OP);
        assertThat(r.status).isEqualTo(NFS4ERR_NOT_ONLY_OP);
    }

    private static int indexOf(byte[] in, byte[] what) {
        for (int i = 0; i + what.length <= in.length; i++) {
            if (java.util.Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
                return i;
            }
        }
        return -1;
    }
}
