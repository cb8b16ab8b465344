package org.iwarp4j.nfs.internal.client4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.nfs.NfsServer;
import org.iwarp4j.nfs.internal.Export;
import org.iwarp4j.nfs.internal.FileHandles;
import org.iwarp4j.nfs.internal.Nfs3Context;
import org.iwarp4j.nfs.internal.Nfs3Limits;
import org.iwarp4j.nfs.internal.v4.Nfs4Context;
import org.iwarp4j.nfs.internal.v4.Nfs4Program;
import org.iwarp4j.nfs.internal.v4.Nfs4Settings;
import org.iwarp4j.nfs.v4.Nfs4Constants;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.oncrpc.RpcTcpServer;
import org.iwarp4j.oncrpc.RpcTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's session rules against our NfsServer through a record-marking TCP proxy that reads
 * every call's SEQUENCE on the wire and can drop a reply or rewrite a SEQUENCE reply's
 * sr_target_highest_slotid and sr_status_flags (RFC 8881 §18.46): a slot whose call got no reply is
 * retired, not reused (§2.10.6.1, §2.10.6.2); a call whose reply is lost with the connection is
 * answered after the transport sends it again (sent anew if it changes nothing, from the server's
 * reply cache if it asked for sa_cachethis, §2.10.6.1.3); the server's slot target bounds the slots used;
 * revoked-state flags fail the next operation, CB_PATH_DOWN is ignored, RESTART_RECLAIM_NEEDED
 * re-establishes the client ID; a session whose slots are all retired, or that the server calls
 * bad, is replaced; a server restart mid-upload is recovered with a new client ID and a reclaimed
 * open (or the open is lost with a clear error when the server has no grace period); an idle client
 * renews its lease with SEQUENCE alone (§8.3) and keeps its session past two leases, counted on
 * clocks the test sets; the renewal timer waits a third of the lease and stops at close.
 */
class Nfs4ClientSessionTcpTest {

    private static final int OP_SEQUENCE = Nfs4Constants.OP_SEQUENCE;

    @TempDir
    Path dir;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @TempDir
    Path state;

    private NfsServer server(int leaseSeconds) throws Exception {
        return server(leaseSeconds, null);
    }

    private NfsServer server(int leaseSeconds, Path stateDirectory) throws Exception {
        NfsServer s = NfsServer.builder(dir)
                .exportOptions(ExportOptions.builder().readWrite().rootSquash(false).build())
                .nfs4Lease(leaseSeconds, 0).tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2)
                .nfs4StateDirectory(stateDirectory).start();
        toClose.add(s);
        return s;
    }

    private Nfs4Connection connect(Proxy proxy, Duration timeout) throws Exception {
        return connect(proxy, timeout, System::nanoTime, true);
    }

    private Nfs4Connection connect(Proxy proxy, Duration timeout, LongSupplier nanoClock, boolean renewalTimer)
            throws Exception {
        RpcTcpClientTransport t = RpcTcpClientTransport.builder().maxRecordSize(1 << 20)
                .connect(new InetSocketAddress("127.0.0.1", proxy.port())).get(10, TimeUnit.SECONDS);
        RpcClient rpc = RpcClient.builder(t).credential(new AuthSys(0, "test", 0, 0, new int[0]).toOpaqueAuth())
                .timeout(timeout).build();
        Nfs4Connection c = Nfs4Connection.connect(rpc, -1, "", 64 * 1024, 64 * 1024, 8, timeout, nanoClock,
                renewalTimer);
        toClose.add(c);
        return c;
    }

    private Proxy proxy(NfsServer server) throws IOException {
        return proxy(new InetSocketAddress("127.0.0.1", server.tcpPort()));
    }

    private Proxy proxy(InetSocketAddress server) throws IOException {
        Proxy p = new Proxy(server);
        toClose.add(p);
        return p;
    }

    @Test
    void aSlotWhoseCallGotNoReplyIsRetiredNotReusedWithItsSequenceId() throws Exception {
        NfsServer server = server(90);
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(3));
        assertThat(nfs.stat("").isDirectory()).isTrue();

        proxy.dropNextReply();
        assertThatThrownBy(() -> nfs.stat("")).isInstanceOf(RpcTimeoutException.class);
        Call lost = proxy.dropped();
        assertThat(lost).isNotNull();
        assertThat(lost.firstOp).isEqualTo(OP_SEQUENCE);
        assertThat(nfs.retiredSlots()).isEqualTo(1);

        int before = proxy.calls().size();
        for (int i = 0; i < 5; i++) {
            assertThat(nfs.stat("").isDirectory()).as("the server answered the later calls normally").isTrue();
        }
        List<Call> later = proxy.calls().subList(before, proxy.calls().size());
        assertThat(later).hasSize(5).allSatisfy(c -> {
            assertThat(c.firstOp).isEqualTo(OP_SEQUENCE);
            assertThat(c.slot).as("the retired slot %d is never used again", lost.slot).isNotEqualTo(lost.slot);
            assertThat(c.highestSlot).as("sa_highest_slotid still covers the retired slot")
                    .isGreaterThanOrEqualTo(lost.slot);
        });
    }

    /** {@code c} is {@code lost} sent again by the transport: the same xid, slot and sequence id. */
    private static void assertSentAgain(Call c, Call lost) {
        assertThat(c.xid).isEqualTo(lost.xid);
        assertThat(c.slot).isEqualTo(lost.slot);
        assertThat(c.sequenceId).isEqualTo(lost.sequenceId);
    }

    /**
     * The reply to a GETATTR is lost with the connection after the server ran it: the transport
     * connects again and sends the call again (same xid, slot and sequence id); the server ran it
     * and kept no reply (cachethis false), so it answers NFS4ERR_RETRY_UNCACHED_REP; a GETATTR may
     * run twice, so the client sends it again on the slot's next sequence id, and the caller sees
     * only the answer.
     */
    @Test
    void anIdempotentCallWhoseReplyWasLostWithTheConnectionIsAnsweredAfterTheReconnect() throws Exception {
        NfsServer server = server(90);
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));
        assertThat(nfs.stat("").isDirectory()).isTrue();

        proxy.cutAtNextReply();
        assertThat(nfs.stat("").isDirectory()).isTrue();
        Call lost = proxy.cut();
        assertThat(lost).isNotNull();
        List<Call> calls = proxy.calls();
        List<Call> after = calls.subList(calls.indexOf(lost) + 1, calls.size());
        assertThat(after).hasSizeGreaterThanOrEqualTo(2);
        assertThat(after.get(0)).as("sent again by the transport").satisfies(c -> assertSentAgain(c, lost));
        assertThat(after.get(1)).as("sent anew by the client on the slot's next sequence id").satisfies(c -> {
            assertThat(c.xid).isNotEqualTo(lost.xid);
            assertThat(c.slot).isEqualTo(lost.slot);
            assertThat(c.sequenceId).isEqualTo(lost.sequenceId + 1);
        });
        assertThat(proxy.connections()).isEqualTo(2);
        assertThat(nfs.retiredSlots()).isZero();
        assertThat(nfs.stat("").isDirectory()).as("and the session goes on").isTrue();
        assertThat(calls.subList(calls.indexOf(lost), calls.size())).as("a GETATTR asks for no cached reply")
                .allSatisfy(c -> assertThat(c.cacheThis).isFalse());
    }

    /**
     * The reply to a REMOVE is lost with the connection after the server ran it. The client sent it
     * with sa_cachethis (RFC 8881 §2.10.6.1.3), since running it twice would fail (NFS4ERR_NOENT):
     * the transport's retransmission (same xid, slot and sequence id) is answered from the server's
     * reply cache, and the caller sees the first execution's success; nothing else is sent.
     */
    @Test
    void aRemoveWhoseReplyWasLostWithTheConnectionGetsItsCachedReplyAfterTheReconnect() throws Exception {
        NfsServer server = server(90);
        java.nio.file.Files.writeString(dir.resolve("gone"), "x");
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));

        proxy.cutAtNextReply();
        nfs.remove("gone");
        List<Call> calls = proxy.calls();
        Call lost = proxy.cut();
        assertThat(lost).isNotNull();
        assertThat(lost.cacheThis).as("sa_cachethis").isTrue();
        List<Call> after = calls.subList(calls.indexOf(lost) + 1, calls.size());
        assertThat(after).as("only the transport's retransmission").singleElement().satisfies(c -> {
            assertSentAgain(c, lost);
            assertThat(c.cacheThis).isTrue();
        });
        assertThat(proxy.connections()).isEqualTo(2);
        assertThat(dir.resolve("gone")).doesNotExist();
        assertThat(nfs.retiredSlots()).isZero();
        assertThat(nfs.list("")).as("and the session goes on").isEmpty();
    }

    @Test
    void theServersTargetHighestSlotIdBoundsTheSlotsUsed() throws Exception {
        NfsServer server = server(90);
        Files.createDirectory(dir.resolve("d"));
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));
        assertThat(nfs.usableSlots()).isGreaterThan(2);

        proxy.targetHighestSlot = 1;
        nfs.stat("");
        assertThat(nfs.usableSlots()).isEqualTo(2);
        int before = proxy.calls().size();
        byte[] data = new byte[16 * 64 * 1024 + 5];
        new Random(7).nextBytes(data);
        assertThat(nfs.upload(new ByteArrayInputStream(data), "d/f")).isEqualTo(data.length);
        assertThat(Files.readAllBytes(dir.resolve("d/f"))).isEqualTo(data);
        List<Call> during = proxy.calls().subList(before, proxy.calls().size());
        assertThat(during).hasSizeGreaterThan(16).allSatisfy(c -> assertThat(c.slot).isLessThanOrEqualTo(1));

        proxy.targetHighestSlot = -1;
        nfs.stat("");
        assertThat(nfs.usableSlots()).as("the table grows again when the server's target does").isGreaterThan(2);
    }

    @Test
    void sequenceStatusFlags() throws Exception {
        NfsServer server = server(90);
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));

        proxy.flagsNext.set(Nfs4Connection.SEQ4_STATUS_CB_PATH_DOWN);
        nfs.stat("");
        assertThat(nfs.stat("").isDirectory()).as("CB_PATH_DOWN ignored: no back channel was asked for").isTrue();

        proxy.flagsNext.set(Nfs4Connection.SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED);
        nfs.stat("");
        int before = proxy.calls().size();
        assertThatThrownBy(() -> nfs.stat("")).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Constants.NFS4ERR_EXPIRED));
        assertThat(proxy.calls()).as("the report fails the operation before it is sent").hasSize(before);
        assertThat(nfs.stat("").isDirectory()).as("reported once").isTrue();

        proxy.flagsNext.set(Nfs4Connection.SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
        nfs.stat("");
        assertThatThrownBy(() -> nfs.stat("")).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Constants.NFS4ERR_ADMIN_REVOKED));

        assertThat(nfs.restartReclaimNeeded()).isFalse();
        proxy.flagsNext.set(Nfs4Connection.SEQ4_STATUS_RESTART_RECLAIM_NEEDED);
        nfs.stat("");
        assertThat(nfs.restartReclaimNeeded()).isTrue();
        int beforeReclaim = proxy.calls().size();
        assertThat(nfs.stat("").isDirectory()).isTrue();
        assertThat(firstOps(proxy.calls().subList(beforeReclaim, proxy.calls().size())))
                .as("the client ID re-established (the server knows the same owner), RECLAIM_COMPLETE, the call")
                .containsExactly(Nfs4Constants.OP_EXCHANGE_ID, Nfs4Constants.OP_CREATE_SESSION,
                        Nfs4Constants.OP_DESTROY_SESSION, OP_SEQUENCE, OP_SEQUENCE);
        assertThat(nfs.newClientIds()).isEqualTo(1);
    }

    private static List<Integer> firstOps(List<Call> calls) {
        return calls.stream().map(Call::firstOp).toList();
    }

    /** RFC 8881 §2.10.6.1: with every usable slot retired the client creates a new session on its client ID. */
    @Test
    void whenEverySlotIsRetiredTheClientCreatesANewSession() throws Exception {
        NfsServer server = server(90);
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(3));
        proxy.targetHighestSlot = 0;
        nfs.stat("");
        assertThat(nfs.usableSlots()).isEqualTo(1);
        proxy.dropNextReply();
        assertThatThrownBy(() -> nfs.stat("")).isInstanceOf(RpcTimeoutException.class);
        Call lost = proxy.dropped();
        assertThat(nfs.retiredSlots()).isEqualTo(1);
        proxy.targetHighestSlot = -1;

        int before = proxy.calls().size();
        assertThat(nfs.stat("").isDirectory()).isTrue();
        List<Call> after = proxy.calls().subList(before, proxy.calls().size());
        assertThat(firstOps(after)).as("a new session on the same client ID, the old one destroyed, the call")
                .containsExactly(Nfs4Constants.OP_CREATE_SESSION, Nfs4Constants.OP_DESTROY_SESSION, OP_SEQUENCE);
        Call sent = after.get(2);
        assertThat(sent.sessionId()).isNotEqualTo(lost.sessionId());
        assertThat(sent.slot() + ":" + sent.sequenceId()).as("the new table starts afresh").isEqualTo("0:1");
        assertThat(nfs.retiredSlots()).isZero();
        assertThat(nfs.newSessions()).isEqualTo(1);
        assertThat(nfs.newClientIds()).isZero();
    }

    /** RFC 8881 §18.46.3: NFS4ERR_BADSESSION — a new session, and the call sent again on it. */
    @Test
    void aBadSessionIsReplacedAndTheCallSentAgain() throws Exception {
        NfsServer server = server(90);
        Files.write(dir.resolve("f"), new byte[] {1, 2, 3});
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));
        int before = proxy.calls().size();
        proxy.corruptNextSession();
        assertThat(nfs.stat("f").size()).isEqualTo(3);
        List<Call> after = proxy.calls().subList(before, proxy.calls().size());
        assertThat(firstOps(after)).containsExactly(OP_SEQUENCE, Nfs4Constants.OP_CREATE_SESSION,
                Nfs4Constants.OP_DESTROY_SESSION, OP_SEQUENCE);
        assertThat(after.get(3).count()).as("the same operations again").isEqualTo(after.get(0).count());
        assertThat(after.get(3).sessionId()).isNotEqualTo(after.get(0).sessionId());
        assertThat(nfs.newSessions()).isEqualTo(1);
        assertThat(nfs.newClientIds()).isZero();
    }

    /** An InputStream of {@code data} that stops at {@code gate} octets until opened. */
    private static final class GatedInput extends java.io.InputStream {
        final byte[] data;
        final int gate;
        final java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
        int pos;

        GatedInput(byte[] data, int gate) {
            this.data = data;
            this.gate = gate;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (pos == gate && open.getCount() > 0) {
                reached.countDown();
                try {
                    if (!open.await(60, TimeUnit.SECONDS)) {
                        throw new IOException("gate not opened");
                    }
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
            }
            int end = pos < gate ? gate : data.length;
            if (pos >= data.length) {
                return -1;
            }
            int n = Math.min(len, end - pos);
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    /**
     * Uploads through a server restart: the upload stops half way, the server restarts on the
     * same export ({@code stateDirectory} or none), and the upload goes on. The client's next
     * WRITE gets NFS4ERR_BADSESSION, its CREATE_SESSION NFS4ERR_STALE_CLIENTID, so it sends
     * EXCHANGE_ID and CREATE_SESSION and reclaims its open (OPEN CLAIM_PREVIOUS).
     */
    private Object uploadAcrossARestart(Path stateDirectory, byte[] data, Nfs4Connection[] client) throws Exception {
        Files.createDirectories(dir.resolve("d"));
        NfsServer first = server(90, stateDirectory);
        Proxy proxy = proxy(first);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));
        client[0] = nfs;
        GatedInput in = new GatedInput(data, 4 * 64 * 1024);
        int before = proxy.calls().size();
        java.util.concurrent.ExecutorService uploader = java.util.concurrent.Executors.newSingleThreadExecutor();
        toClose.add(uploader::shutdownNow);
        java.util.concurrent.Future<Long> upload = uploader.submit(() -> nfs.upload(in, "d/f"));
        assertThat(in.reached.await(30, TimeUnit.SECONDS)).isTrue();
        // the parent's lookup, OPEN, and the four WRITEs before the gate, all answered
        proxy.awaitQuiet(before + 6, Duration.ofSeconds(30));
        first.close();
        NfsServer restarted = server(90, stateDirectory);
        // Closed before the restarted server (closeAll goes backwards): its DESTROY_SESSION then
        // gets an answer instead of waiting out the call timeout.
        toClose.add(nfs);
        proxy.retarget(new InetSocketAddress("127.0.0.1", restarted.tcpPort()));
        in.open.countDown();
        try {
            return upload.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
    }

    /**
     * RFC 8881 §18.32.3: a WRITE's count may be less than the octets it carried; the client writes
     * the rest. A count of 0 fails the upload instead of having it send the same octets for ever.
     */
    @Test
    void aShortWriteIsFollowedByAWriteOfTheRestAndAWriteOfNothingFailsTheUpload() throws Exception {
        NfsServer server = server(90);
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));
        byte[] data = new byte[3 * 64 * 1024];
        new Random(5).nextBytes(data);

        proxy.nextWriteCount.set(count -> count / 2);
        assertThat(nfs.upload(new ByteArrayInputStream(data), "f")).isEqualTo(data.length);
        assertThat(proxy.writeCalls()).as("three chunks and the rest of the one answered short").isEqualTo(4);
        assertThat(Files.readAllBytes(dir.resolve("f"))).isEqualTo(data);

        proxy.nextWriteCount.set(count -> 0);
        assertThatThrownBy(() -> nfs.upload(new ByteArrayInputStream(data), "g"))
                .isInstanceOfSatisfying(Nfs4StatusException.class,
                        e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Constants.NFS4ERR_IO))
                .hasMessageContaining("WRITE g (a WRITE of 65536 octets at offset ").hasMessageContaining("count 0)");
    }

    /** RFC 8881 §8.4.2.1, §9.11: after a server restart the client gets a new client ID and reclaims its open. */
    @Test
    void aServerRestartMidUploadIsRecoveredByReclaimingTheOpen() throws Exception {
        byte[] data = new byte[10 * 64 * 1024 + 5];
        new Random(11).nextBytes(data);
        Nfs4Connection[] nfs = new Nfs4Connection[1];
        Object result = uploadAcrossARestart(state, data, nfs);
        assertThat(result).as("the upload finished").isEqualTo((long) data.length);
        assertThat(Files.readAllBytes(dir.resolve("d/f"))).isEqualTo(data);
        assertThat(nfs[0].newClientIds()).isEqualTo(1);
        assertThat(nfs[0].stat("d/f").size()).isEqualTo(data.length);
    }

    /** Without a grace period the reclaim is refused: the open is lost and the upload fails saying so. */
    @Test
    void anOpenWhoseReclaimIsRefusedFailsWithAClearError() throws Exception {
        byte[] data = new byte[10 * 64 * 1024 + 5];
        Nfs4Connection[] nfs = new Nfs4Connection[1];
        Object result = uploadAcrossARestart(null, data, nfs);
        assertThat(result).isInstanceOfSatisfying(Nfs4StatusException.class, e -> {
            assertThat(e.nfs4Status()).isEqualTo(Nfs4Constants.NFS4ERR_NO_GRACE);
            assertThat(e.getMessage()).contains("d/f").contains("lost when the server restarted");
        });
        assertThat(nfs[0].newClientIds()).isEqualTo(1);
        assertThat(nfs[0].stat("d").isDirectory()).as("the client itself goes on").isTrue();
    }

    /**
     * RFC 8881 §8.3: an idle client's SEQUENCE-only COMPOUNDs keep its lease past two lease periods.
     * Both clocks are the test's, and the test runs the client's renewal checks itself: what the
     * server and the client see of time is what the test set, however late a thread runs.
     */
    @Test
    void anIdleClientRenewsItsLeaseWithSequenceAlone() throws Exception {
        AtomicLong serverMillis = new AtomicLong(1_000_000);
        AtomicLong clientNanos = new AtomicLong();
        Proxy proxy = proxy(serverOnClock(2, serverMillis::get));
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10), clientNanos::get, false);
        assertThat(nfs.leaseSeconds()).as("lease_time from the server's GETATTR").isEqualTo(2);
        assertThat(nfs.renewalPeriodMillis()).as("a third of the lease").isEqualTo(666);
        int before = proxy.calls().size();
        for (int i = 1; i <= 7; i++) {
            advance(665, serverMillis, clientNanos);
            assertThat(nfs.renewIfIdle()).as("idle 665 ms before renewal %d: nothing sent yet", i).isNull();
            advance(1, serverMillis, clientNanos);
            CompletableFuture<CompoundResult> renewal = nfs.renewIfIdle();
            assertThat(renewal).as("idle a third of the lease: renewal %d sent", i).isNotNull();
            assertThat(renewal.get(10, TimeUnit.SECONDS).status).as("renewal %d", i).isEqualTo(Nfs4Constants.NFS4_OK);
        }
        List<Call> idle = proxy.calls().subList(before, proxy.calls().size());
        assertThat(idle).as("nothing but renewals while idle: COMPOUNDs of SEQUENCE alone").hasSize(7)
                .allSatisfy(c -> assertThat(c.count * 1000 + c.firstOp).isEqualTo(1000 + OP_SEQUENCE));
        assertThat(idle).as("each renewal a new request: its slot's next sequence id")
                .extracting(c -> c.slot + ":" + c.sequenceId).doesNotHaveDuplicates();
        assertThat(nfs.renewals()).isEqualTo(7);
        assertThat(serverMillis.get() - 1_000_000).as("idle for more than two leases of the server's clock")
                .isGreaterThan(4000);
        assertThat(nfs.stat("").isDirectory()).isTrue();
        assertThat(nfs.newSessions() + nfs.newClientIds()).as("the server did not expire the client").isZero();

        // The same server expires a client that lets a lease pass unrenewed: the renewals above were needed.
        advance(2001, serverMillis, clientNanos);
        assertThat(nfs.stat("").isDirectory()).isTrue();
        assertThat(nfs.newClientIds()).as("expired: the client had to establish a new client ID").isEqualTo(1);
    }

    /**
     * The timer that runs the renewal checks, on the real clock, against a server whose own clock
     * stands still (so it expires no one, however late the timer runs): it renews an idle client only
     * after a third of the lease without a call, and stops at close.
     */
    @Test
    void theRenewalTimerRenewsAnIdleClientAndStopsAtClose() throws Exception {
        Proxy proxy = proxy(serverOnClock(2, () -> 1_000_000));
        // Read before the connect: its last call is sent after this, the first renewal at least a
        // third of the lease (666 ms) after that call and the second as far after the first.
        long idleSince = System.nanoTime();
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));
        Predicate<Call> renewal = c -> c.count == 1 && c.firstOp == OP_SEQUENCE;
        List<Call> renewals = proxy.awaitCalls(renewal, 2, Duration.ofSeconds(60));
        assertThat(System.nanoTime() - idleSince).as("two renewals take two thirds of the lease at least")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(2 * 666));
        assertThat(proxy.calls().stream().filter(renewal.negate()).count())
                .as("nothing but renewals while idle").isEqualTo(proxy.callsBefore(renewals.get(0)));
        assertThat(nfs.renewals()).isGreaterThanOrEqualTo(2);
        nfs.close();
        assertThat(nfs.awaitRenewalStopped(Duration.ofSeconds(10))).as("the timer stops at close").isTrue();
    }

    private static void advance(long millis, AtomicLong serverMillis, AtomicLong clientNanos) {
        serverMillis.addAndGet(millis);
        clientNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    /**
     * An NFSv4 server as {@link NfsServer} makes one (the same contexts, program and TCP server), but
     * whose leases run on {@code clockMillis}; closed after the test.
     */
    private InetSocketAddress serverOnClock(int leaseSeconds, LongSupplier clockMillis) throws IOException {
        Export export = new Export(dir, "/export");
        Nfs3Context base = new Nfs3Context(export, ExportOptions.builder().readWrite().rootSquash(false).build(),
                Nfs3Limits.defaults(), new FileHandles(export));
        toClose.add(base);
        ExecutorService workers = Executors.newFixedThreadPool(2);
        toClose.add(workers::shutdownNow);
        Nfs4Context nfs4 = new Nfs4Context(base, Nfs4Settings.defaults().withLease(leaseSeconds), clockMillis);
        RpcTcpServer tcp = RpcTcpServer.builder(new RpcDispatcher().register(new Nfs4Program(nfs4, workers)
                .toRpcProgram())).maxRecordSize(2 << 20).bind(new InetSocketAddress("127.0.0.1", 0));
        toClose.add(tcp);
        return (InetSocketAddress) tcp.localAddress();
    }

    /** owner and owner_group (RFC 8881 §5.8.2.26/27) in GETATTR and READDIR; READLINK (§18.24). */
    @Test
    void ownersAndSymbolicLinkTargets() throws Exception {
        NfsServer server = server(90);
        Files.write(dir.resolve("f"), new byte[] {1});
        Files.createSymbolicLink(dir.resolve("l"), Path.of("some/where"));
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));
        String uid = Files.getAttribute(dir.resolve("f"), "unix:uid").toString();
        String gid = Files.getAttribute(dir.resolve("f"), "unix:gid").toString();
        var a = nfs.stat("f");
        assertThat(a.owner()).as("our server names owners by number").isEqualTo(uid);
        assertThat(a.ownerGroup()).isEqualTo(gid);
        assertThat(nfs.list("")).filteredOn(e -> e.name().equals("f")).singleElement()
                .satisfies(e -> assertThat(e.attributes().owner()).isEqualTo(uid));
        assertThat(nfs.stat("l").type()).isEqualTo(Nfs4Constants.NF4LNK);
        assertThat(nfs.readlink("l")).isEqualTo("some/where");
        assertThat(proxy.calls().get(proxy.calls().size() - 1).count).as("SEQUENCE, PUTFH, LOOKUP, READLINK")
                .isEqualTo(4);
    }

    @Test
    void slotTableLimitsAndRetires() throws Exception {
        SlotTable t = new SlotTable(4);
        t.limit(3, 1);
        assertThat(t.usable()).isEqualTo(2);
        int a = t.acquire(Duration.ofSeconds(1));
        int b = t.acquire(Duration.ofSeconds(1));
        assertThat(List.of(a, b)).containsExactly(0, 1);
        assertThatThrownBy(() -> t.acquire(Duration.ofMillis(50))).isInstanceOf(RpcTimeoutException.class)
                .hasMessageContaining("no free session slot");
        t.release(a, SlotTable.Outcome.UNKNOWN);
        t.release(b, SlotTable.Outcome.ADVANCED);
        assertThat(t.nextSequenceId(1)).isEqualTo(2);
        assertThat(t.highestInUse()).as("the retired slot may still be busy on the server").isEqualTo(0);
        assertThat(t.acquire(Duration.ofSeconds(1))).isEqualTo(1);
        t.release(1, SlotTable.Outcome.NOT_EXECUTED);
        assertThat(t.nextSequenceId(1)).isEqualTo(2);
        t.limit(0, 0);
        assertThatThrownBy(() -> t.acquire(Duration.ofSeconds(1))).isInstanceOf(RpcTimeoutException.class)
                .hasMessageContaining("retired");
        t.limit(0xffff_ffff, 7);
        assertThat(t.usable()).isEqualTo(4);
    }

    /** A call as the proxy saw it: the COMPOUND's operation count and first operation, SEQUENCE's arguments. */
    record Call(int xid, int count, int firstOp, byte[] sessionId, int sequenceId, int slot, int highestSlot,
                boolean cacheThis) {
    }

    /**
     * A one-connection record-marking proxy (RFC 5531 §11) between the client and the server. Each
     * record is forwarded as one last fragment.
     */
    static final class Proxy implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        private volatile InetSocketAddress server;
        private Socket clientSide;
        private Socket upstream;
        private int replies;
        private boolean corruptNextSession;
        private final List<Call> calls = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private final List<Socket> sockets = new ArrayList<>();
        volatile int targetHighestSlot = -1;
        final AtomicInteger flagsNext = new AtomicInteger();
        /** Rewrites the count of the next successful WRITE result (SEQUENCE, PUTFH, WRITE), once. */
        final AtomicReference<IntUnaryOperator> nextWriteCount = new AtomicReference<>();
        private int writeCalls;
        private boolean dropNext;
        private Integer dropXid;
        private Call dropped;
        private int connections;
        private boolean cutNext;
        private Integer cutXid;
        private Call cut;

        Proxy(InetSocketAddress server) throws IOException {
            this.server = server;
            Thread acceptor = new Thread(this::accept, "proxy-accept");
            acceptor.setDaemon(true);
            threads.add(acceptor);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        synchronized void dropNextReply() {
            dropNext = true;
        }

        /** Makes the next SEQUENCE name a session the server does not know (one octet of its id flipped). */
        synchronized void corruptNextSession() {
            corruptNextSession = true;
        }

        /**
         * Points the proxy at another server (a restarted one): the connection to the old one is
         * closed and the next call opens one to the new; the client's connection stays.
         */
        void retarget(InetSocketAddress to) throws IOException {
            Socket old;
            synchronized (this) {
                server = to;
                old = upstream;
                upstream = null;
            }
            if (old != null) {
                old.close();
            }
        }

        /** Waits until at least {@code atLeast} calls came and every one has had its reply. */
        synchronized void awaitQuiet(int atLeast, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (calls.size() < atLeast || replies < calls.size()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(replies + " replies to " + calls.size() + " calls within " + timeout);
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }

        synchronized Call dropped() {
            return dropped;
        }

        synchronized List<Call> calls() {
            return List.copyOf(calls);
        }

        synchronized long callsBefore(Call c) {
            return calls.indexOf(c);
        }

        synchronized List<Call> awaitCalls(Predicate<Call> which, int n, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                List<Call> matching = calls.stream().filter(which).toList();
                if (matching.size() >= n) {
                    return matching;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("only " + matching.size() + " of " + n + " calls within " + timeout);
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }

        /** Client connections, one after the other: a client that lost its connection makes another. */
        private void accept() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    synchronized (this) {
                        sockets.add(client);
                        clientSide = client;
                        connections++;
                    }
                    upstream();
                    start(() -> pumpCalls(client));
                }
            } catch (IOException e) {
                // closed
            }
        }

        synchronized int connections() {
            return connections;
        }

        /** COMPOUNDs of SEQUENCE, PUTFH and WRITE seen. */
        synchronized int writeCalls() {
            return writeCalls;
        }

        /**
         * Instead of the reply to the next SEQUENCE call, closes the client's connection: the reply
         * is lost with it, after the server ran the call.
         */
        synchronized void cutAtNextReply() {
            cutNext = true;
        }

        /** The call whose reply {@link #cutAtNextReply} lost. */
        synchronized Call cut() {
            return cut;
        }

        /** The connection to the server, opened (with its reply pump) if there is none. */
        private synchronized Socket upstream() throws IOException {
            if (upstream == null) {
                Socket up = new Socket(server.getAddress(), server.getPort());
                sockets.add(up);
                upstream = up;
                start(() -> pumpReplies(up));
            }
            return upstream;
        }

        private void pumpCalls(Socket client) {
            try {
                DataInputStream in = new DataInputStream(client.getInputStream());
                while (true) {
                    byte[] record = readRecord(in);
                    call(record);
                    Socket up = upstream();
                    try {
                        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(up.getOutputStream()));
                        out.writeInt(0x8000_0000 | record.length);
                        out.write(record);
                        out.flush();
                    } catch (IOException e) {
                        synchronized (this) {
                            if (upstream == up) {
                                upstream = null;     // the server went away: this call is lost
                            }
                        }
                    }
                }
            } catch (IOException e) {
                // a side closed
            }
        }

        private void start(Runnable r) {
            Thread t = new Thread(r, "proxy-pump");
            t.setDaemon(true);
            synchronized (this) {
                threads.add(t);
            }
            t.start();
        }

        /** The server's replies to whichever client connection is the current one. */
        private void pumpReplies(Socket up) {
            try {
                DataInputStream in = new DataInputStream(up.getInputStream());
                while (true) {
                    byte[] record = readRecord(in);
                    Socket to;
                    boolean cutHere;
                    synchronized (this) {
                        to = clientSide;
                        cutHere = cutXid != null && cutXid == ByteBuffer.wrap(record).getInt(0);
                        if (cutHere) {
                            cutXid = null;
                        }
                    }
                    if (cutHere) {
                        to.close(); // the reply is lost with the connection
                        continue;
                    }
                    if (!reply(record)) {
                        continue;
                    }
                    try {
                        synchronized (to) {
                            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(to.getOutputStream()));
                            out.writeInt(0x8000_0000 | record.length);
                            out.write(record);
                            out.flush();
                        }
                    } catch (IOException lost) {
                        // that client connection is gone; a reply to a call sent again will follow
                    }
                }
            } catch (IOException e) {
                // the server's side closed
            }
        }

        private static byte[] readRecord(DataInputStream in) throws IOException {
            java.io.ByteArrayOutputStream record = new java.io.ByteArrayOutputStream();
            while (true) {
                int mark = in.readInt();
                byte[] fragment = new byte[mark & 0x7fff_ffff];
                in.readFully(fragment);
                record.write(fragment);
                if (mark < 0) {
                    return record.toByteArray();
                }
            }
        }

        private static int opaque(ByteBuffer b, int at) {
            return 4 + ((b.getInt(at) + 3) & ~3);
        }

        /** Notes a call; always forwarded. */
        private boolean call(byte[] record) {
            ByteBuffer b = ByteBuffer.wrap(record);
            int at = 24;
            at += 4 + opaque(b, at + 4);           // credential
            at += 4 + opaque(b, at + 4);           // verifier
            at += opaque(b, at);                   // tag
            at += 4;                               // minorversion
            int count = b.getInt(at);
            int first = count > 0 ? b.getInt(at + 4) : -1;
            Call c;
            if (first == OP_SEQUENCE) {
                byte[] session = new byte[16];
                b.get(at + 8, session);
                c = new Call(b.getInt(0), count, first, session, b.getInt(at + 24), b.getInt(at + 28),
                        b.getInt(at + 32), b.getInt(at + 36) != 0);
            } else {
                c = new Call(b.getInt(0), count, first, null, -1, -1, -1, false);
            }
            boolean write = first == OP_SEQUENCE && count >= 3 && b.getInt(at + 40) == Nfs4Constants.OP_PUTFH
                    && b.getInt(at + 48 + ((b.getInt(at + 44) + 3) & ~3)) == Nfs4Constants.OP_WRITE;
            synchronized (this) {
                if (write) {
                    writeCalls++;
                }
                if (corruptNextSession && first == OP_SEQUENCE) {
                    corruptNextSession = false;
                    b.put(at + 8, (byte) ~b.get(at + 8));
                }
                if (dropNext && first == OP_SEQUENCE) {
                    dropNext = false;
                    dropXid = c.xid;
                    dropped = c;
                }
                if (cutNext && first == OP_SEQUENCE) {
                    cutNext = false;
                    cutXid = c.xid;
                    cut = c;
                }
                calls.add(c);
                notifyAll();
            }
            return true;
        }

        /** Drops or rewrites a reply; false to drop it. */
        private boolean reply(byte[] record) {
            ByteBuffer b = ByteBuffer.wrap(record);
            synchronized (this) {
                replies++;
                notifyAll();
                if (dropXid != null && dropXid == b.getInt(0)) {
                    dropXid = null;
                    return false;
                }
            }
            if (b.getInt(8) != 0) {
                return true;                        // MSG_DENIED
            }
            int at = 12;
            at += 4 + opaque(b, at + 4);            // verifier
            if (b.getInt(at) != 0) {
                return true;                        // not SUCCESS
            }
            at += 8;                                // accept_stat, COMPOUND status
            at += opaque(b, at);                    // tag
            if (b.getInt(at) < 1 || b.getInt(at + 4) != OP_SEQUENCE || b.getInt(at + 8) != 0) {
                return true;
            }
            int seq = at + 12;                      // sessionid, sequenceid, slotid, highest, target, flags
            int target = targetHighestSlot;
            if (target >= 0) {
                b.putInt(seq + 28, target);
            }
            int flags = flagsNext.getAndSet(0);
            if (flags != 0) {
                b.putInt(seq + 32, b.getInt(seq + 32) | flags);
            }
            int putfh = seq + 36;
            if (b.getInt(at) == 3 && b.getInt(putfh) == Nfs4Constants.OP_PUTFH && b.getInt(putfh + 8)
                    == Nfs4Constants.OP_WRITE && b.getInt(putfh + 12) == 0) {
                IntUnaryOperator count = nextWriteCount.getAndSet(null);
                if (count != null) {
                    b.putInt(putfh + 16, count.applyAsInt(b.getInt(putfh + 16)));
                }
            }
            return true;
        }

        @Override
        public void close() throws IOException {
            listener.close();
            synchronized (this) {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }
}
