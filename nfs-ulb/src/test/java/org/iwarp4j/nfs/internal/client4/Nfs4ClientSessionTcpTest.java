package org.iwarp4j.nfs.internal.client4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.nfs.NfsServer;
import org.iwarp4j.nfs.v4.Nfs4Constants;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.oncrpc.RpcTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's session rules against our NfsServer through a record-marking TCP proxy that reads
 * every call's SEQUENCE on the wire and can drop a reply or rewrite a SEQUENCE reply's
 * sr_target_highest_slotid and sr_status_flags (RFC 8881 §18.46): a slot whose call got no reply is
 * retired, not reused (§2.10.6.1, §2.10.6.2); the server's slot target bounds the slots used;
 * revoked-state flags fail the next operation, CB_PATH_DOWN is ignored, RESTART_RECLAIM_NEEDED is
 * reported; an idle client renews its lease with SEQUENCE alone (§8.3) and keeps its session past
 * two leases; the renewal timer stops at close.
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

    private NfsServer server(int leaseSeconds) throws Exception {
        NfsServer s = NfsServer.builder(dir)
                .exportOptions(ExportOptions.builder().readWrite().rootSquash(false).build())
                .nfs4Lease(leaseSeconds, 0).tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2)
                .start();
        toClose.add(s);
        return s;
    }

    private Nfs4Connection connect(Proxy proxy, Duration timeout) throws Exception {
        RpcTcpClientTransport t = RpcTcpClientTransport.builder().maxRecordSize(1 << 20)
                .connect(new InetSocketAddress("127.0.0.1", proxy.port())).get(10, TimeUnit.SECONDS);
        RpcClient rpc = RpcClient.builder(t).credential(new AuthSys(0, "test", 0, 0, new int[0]).toOpaqueAuth())
                .timeout(timeout).build();
        Nfs4Connection c = Nfs4Connection.connect(rpc, -1, "", 64 * 1024, 64 * 1024, 8, timeout);
        toClose.add(c);
        return c;
    }

    private Proxy proxy(NfsServer server) throws IOException {
        Proxy p = new Proxy(new InetSocketAddress("127.0.0.1", server.tcpPort()));
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
        assertThat(nfs.stat("").isDirectory()).isTrue();
    }

    /** RFC 8881 §8.3: an idle client's SEQUENCE-only COMPOUNDs keep its lease past two lease periods. */
    @Test
    void anIdleClientRenewsItsLeaseWithSequenceAlone() throws Exception {
        NfsServer server = server(2);
        Proxy proxy = proxy(server);
        Nfs4Connection nfs = connect(proxy, Duration.ofSeconds(10));
        assertThat(nfs.leaseSeconds()).as("lease_time from the server's GETATTR").isEqualTo(2);
        long idleSince = System.nanoTime();
        Predicate<Call> renewal = c -> c.count == 1 && c.firstOp == OP_SEQUENCE;
        // renewals at least a third of the lease (2/3 s) apart: seven of them span more than two leases
        List<Call> renewals = proxy.awaitCalls(renewal, 7, Duration.ofSeconds(60));
        long idle = System.nanoTime() - idleSince;
        assertThat(idle).as("idle for more than two leases").isGreaterThan(TimeUnit.SECONDS.toNanos(4));
        assertThat(proxy.calls().stream().filter(renewal.negate()).count())
                .as("nothing but renewals while idle").isEqualTo(proxy.callsBefore(renewals.get(0)));
        assertThat(renewals).as("each renewal a new request: its slot's next sequence id")
                .extracting(c -> c.slot + ":" + c.sequenceId).doesNotHaveDuplicates();
        assertThat(nfs.renewals()).isGreaterThanOrEqualTo(7);
        assertThat(nfs.stat("").isDirectory()).as("the session survived: the server did not expire the client")
                .isTrue();
        nfs.close();
        assertThat(nfs.awaitRenewalStopped(Duration.ofSeconds(10))).as("the timer stops at close").isTrue();
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
    record Call(int xid, int count, int firstOp, byte[] sessionId, int sequenceId, int slot, int highestSlot) {
    }

    /**
     * A one-connection record-marking proxy (RFC 5531 §11) between the client and the server. Each
     * record is forwarded as one last fragment.
     */
    static final class Proxy implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        private final InetSocketAddress server;
        private final List<Call> calls = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private final List<Socket> sockets = new ArrayList<>();
        volatile int targetHighestSlot = -1;
        final AtomicInteger flagsNext = new AtomicInteger();
        private boolean dropNext;
        private Integer dropXid;
        private Call dropped;

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

        private void accept() {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket(server.getAddress(), server.getPort());
                synchronized (this) {
                    sockets.add(client);
                    sockets.add(upstream);
                }
                start(() -> pump(client, upstream, true));
                start(() -> pump(upstream, client, false));
            } catch (IOException e) {
                // closed
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

        private void pump(Socket from, Socket to, boolean calls) {
            try {
                DataInputStream in = new DataInputStream(from.getInputStream());
                DataOutputStream out = new DataOutputStream(to.getOutputStream());
                while (true) {
                    byte[] record = readRecord(in);
                    if (calls ? !call(record) : !reply(record)) {
                        continue;
                    }
                    out.writeInt(0x8000_0000 | record.length);
                    out.write(record);
                    out.flush();
                }
            } catch (IOException e) {
                // a side closed
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
                        b.getInt(at + 32));
            } else {
                c = new Call(b.getInt(0), count, first, null, -1, -1, -1);
            }
            synchronized (this) {
                if (dropNext && first == OP_SEQUENCE) {
                    dropNext = false;
                    dropXid = c.xid;
                    dropped = c;
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
