package org.iwarp4j.nfs.internal.client4;

import static org.iwarp4j.nfs.internal.client.Await.await;
import static org.iwarp4j.nfs.internal.client.PathNames.components;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.nfs.internal.client.DirectoryListing;
import org.iwarp4j.nfs.internal.client.PipelinedDownload;
import org.iwarp4j.nfs.internal.client.PipelinedUpload;
import org.iwarp4j.nfs.internal.client.TransferSizes;
import org.iwarp4j.nfs.v4.ChannelAttrs4;
import org.iwarp4j.nfs.v4.DirEntry4;
import org.iwarp4j.nfs.v4.FileAttributes4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.RpcAuthException;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcGarbageArgsException;
import org.iwarp4j.oncrpc.RpcMismatchException;
import org.iwarp4j.oncrpc.RpcProcedureUnavailableException;
import org.iwarp4j.oncrpc.RpcProgramMismatchException;
import org.iwarp4j.oncrpc.RpcProgramUnavailableException;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.rpcrdma.RpcRdmaErrorException;
import org.iwarp4j.rpcrdma.UpperLayerBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NFSv4.1/4.2 client's session and file operations (RFC 8881) over one {@link RpcClient}:
 * EXCHANGE_ID (minor version 2, falling back to 1 on NFS4ERR_MINOR_VERS_MISMATCH when no minor
 * version was asked for), CREATE_SESSION without a back channel, RECLAIM_COMPLETE, then
 * COMPOUNDs that start with SEQUENCE on a slot of the {@link SlotTable}; DESTROY_SESSION and
 * DESTROY_CLIENTID on close.
 *
 * <p>What a SEQUENCE reply says is acted on (RFC 8881 §18.46.3): sr_highest_slotid and
 * sr_target_highest_slotid bound the slots new calls use ({@link SlotTable#limit}); of the status
 * flags, SEQ4_STATUS_CB_PATH_DOWN, CB_PATH_DOWN_SESSION and BACKCHANNEL_FAULT are ignored (the
 * session was created without a back channel and the client holds nothing a server would call back
 * about: it never asks for delegations or layouts); EXPIRED_ALL_STATE_REVOKED,
 * EXPIRED_SOME_STATE_REVOKED, ADMIN_STATE_REVOKED and RECALLABLE_STATE_REVOKED, when they newly
 * appear, make the next operation of this client fail with {@link Nfs4StatusException}
 * (NFS4ERR_EXPIRED, NFS4ERR_ADMIN_REVOKED): the opens it holds may be gone; RESTART_RECLAIM_NEEDED
 * is reported by {@link #restartReclaimNeeded()} and makes the client re-establish its client ID
 * and reclaim its opens before the next call.
 *
 * <p>Recovery ({@link #recover}, RFC 8881 §2.10.13, §8.4.2.1): a session that can carry no more
 * calls (every slot retired, NFS4ERR_BADSESSION, NFS4ERR_DEADSESSION) is replaced by a new one
 * on the same client ID; a client ID the server no longer knows (NFS4ERR_STALE_CLIENTID after a
 * restart, NFS4ERR_EXPIRED) by a new one, after which the files held open are reclaimed (OPEN
 * CLAIM_PREVIOUS) or, if the server refuses, reported lost. The call that found out is sent again.
 *
 * <p>Lease renewal (§8.3): a SEQUENCE renews the client's lease, so while the client is idle one
 * timer thread per connection sends a COMPOUND of SEQUENCE alone once nothing was sent for a third of
 * the lease (the server's lease_time attribute, read at connect; 90 s if the server does not give
 * it). The timer stops at {@link #close()}. Idleness is measured on a nanosecond clock that tests
 * may replace, running the checks themselves instead of the timer, so that what they assert does
 * not depend on when a loaded machine runs a thread.
 */
public final class Nfs4Connection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Nfs4Connection.class);

    // sr_status_flags (RFC 8881 §18.46.3)
    static final int SEQ4_STATUS_CB_PATH_DOWN = 0x001;
    static final int SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED = 0x008;
    static final int SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED = 0x010;
    static final int SEQ4_STATUS_ADMIN_STATE_REVOKED = 0x020;
    static final int SEQ4_STATUS_RECALLABLE_STATE_REVOKED = 0x040;
    static final int SEQ4_STATUS_RESTART_RECLAIM_NEEDED = 0x100;
    private static final int REVOKED = SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED | SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED
            | SEQ4_STATUS_ADMIN_STATE_REVOKED | SEQ4_STATUS_RECALLABLE_STATE_REVOKED;

    /** The lease assumed when the server does not report lease_time (knfsd's default). */
    static final int DEFAULT_LEASE_SECONDS = 90;

    private static final int FORE_SLOTS = 16;

    /**
     * The least ca_maxresponsesize_cached (whole RPC replies) for which the client sets sa_cachethis:
     * the replies of the COMPOUNDs it sends with it (OPEN with GETFH and GETATTR, WRITE, REMOVE,
     * CLOSE, SETATTR) are a few hundred octets. knfsd grants about 2 KiB; it asks for 4 KiB.
     */
    static final int MIN_CACHED_REPLY = 1024;

    /** ca_maxresponsesize_cached asked in CREATE_SESSION. */
    private static final int CACHED_REPLY_ASKED = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Recoveries one call may go through before its error is reported. */
    private static final int MAX_RECOVERIES = 2;

    private final RpcClient rpc;
    private final int minor;
    private final Recovery recovery;
    private final Duration timeout;
    private final byte[] root;
    private final int readSize;
    private final int writeSize;
    private final int window;
    private final String ownerPrefix = "iwarp4j-open-" + UUID.randomUUID() + "-";
    private final AtomicLong owners = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final int leaseSeconds;
    private final LongSupplier nanoClock;
    private final AtomicLong lastSent;
    private final AtomicLong renewals = new AtomicLong();
    private final AtomicBoolean renewing = new AtomicBoolean();
    private final AtomicReference<Nfs4StatusException> revoked = new AtomicReference<>();
    private final AtomicBoolean reclaimNeeded = new AtomicBoolean();
    private final Object flagsLock = new Object();
    private int lastRevokedFlags;
    private ScheduledExecutorService renewer;

    private Nfs4Connection(RpcClient rpc, int minor, Recovery recovery, Duration timeout, byte[] root, int readSize,
                           int writeSize, int window, int leaseSeconds, LongSupplier nanoClock) {
        this.leaseSeconds = leaseSeconds;
        this.nanoClock = nanoClock;
        this.lastSent = new AtomicLong(nanoClock.getAsLong());
        this.rpc = rpc;
        this.minor = minor;
        this.recovery = recovery;
        this.timeout = timeout;
        this.root = root;
        this.readSize = readSize;
        this.writeSize = writeSize;
        this.window = Math.max(1, Math.min(window, recovery.session.slots().size()));
    }

    /**
     * One session of this client (RFC 8881 §2.10): the client ID it belongs to, its id, its slot
     * table and the fore channel's ca_maxresponsesize_cached the server granted.
     */
    private record Session(long clientId, byte[] id, SlotTable slots, int maxCachedReply) {

        /**
         * Whether SEQUENCE asks the server to keep the reply (sa_cachethis, RFC 8881 §2.10.6.1.3):
         * for a COMPOUND that must not run twice, so that if the transport sends it again after a
         * lost connection the server answers from its reply cache instead of with
         * NFS4ERR_RETRY_UNCACHED_REP. Not when the server grants too little room for such a reply
         * (it would answer NFS4ERR_REP_TOO_BIG_TO_CACHE instead of running the call).
         */
        boolean cacheThis(List<Op> ops) {
            return asksCachedReply(maxCachedReply, ops);
        }
    }

    /**
     * What the client needs to replace its session or its client ID (RFC 8881 §2.10.13, §8.4.2.1):
     * the EXCHANGE_ID identity (owner and verifier, the same for the client's life, so a restarted
     * server sees the same client), the channel attributes asked, the next csa_sequence, and the
     * files it holds open, which it reclaims after a new client ID.
     */
    private static final class Recovery {
        final long verifier;
        final byte[] owner;
        final ChannelAttrs4 fore;
        final ChannelAttrs4 back;
        volatile Session session;
        /** csa_sequence of the next CREATE_SESSION on {@link #session}'s client ID (§18.36.4); guarded by this. */
        int nextCreateSessionSeq;
        final java.util.Set<OpenFile> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
        /** A SEQUENCE reply carried SEQ4_STATUS_RESTART_RECLAIM_NEEDED: re-establish before the next call. */
        final AtomicBoolean restartPending = new AtomicBoolean();
        final AtomicLong newSessions = new AtomicLong();
        final AtomicLong newClients = new AtomicLong();
        final java.util.concurrent.ExecutorService executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "nfs4-session-recovery");
            t.setDaemon(true);
            return t;
        });

        Recovery(long verifier, byte[] owner, ChannelAttrs4 fore, ChannelAttrs4 back) {
            this.verifier = verifier;
            this.owner = owner;
            this.fore = fore;
            this.back = back;
        }
    }

    /** A file this client holds open: what it needs to reclaim the open (§9.11) and the stateid in use. */
    private static final class OpenFile {
        final String path;
        final byte[] fh;
        final String owner;
        final int access;
        final long size;
        volatile Stateid4 stateid;
        volatile Nfs4StatusException lost;

        OpenFile(String path, byte[] fh, String owner, int access, Stateid4 stateid, long size) {
            this.path = path;
            this.fh = fh;
            this.owner = owner;
            this.access = access;
            this.stateid = stateid;
            this.size = size;
        }

        /** The open's current stateid; the reclaim's error if the open was lost in a server restart. */
        Stateid4 stateid() {
            Nfs4StatusException l = lost;
            if (l != null) {
                throw new Nfs4StatusException(l.nfs4Status(), "open of " + path + " (lost when the server restarted:"
                        + " its reclaim was refused)");
            }
            return stateid;
        }
    }

    /** The binding an RPC-over-RDMA Requester of this client uses (RFC 8267 §6, sized per COMPOUND). */
    public static UpperLayerBinding rdmaBinding() {
        return new RequesterBinding();
    }

    /**
     * Sets up a session on {@code rpc}, which this then owns.
     *
     * @param minorVersion 1 or 2, or -1 for the highest the server offers
     * @param rootPath the path below the server's root (PUTROOTFH) that is this client's root
     */
    public static Nfs4Connection connect(RpcClient rpc, int minorVersion, String rootPath, int maxRead, int maxWrite,
                                         int window, Duration timeout) {
        return connect(rpc, minorVersion, rootPath, maxRead, maxWrite, window, timeout, System::nanoTime, true);
    }

    /**
     * As {@link #connect(RpcClient, int, String, int, int, int, Duration)}, idleness measured on
     * {@code nanoClock}; without {@code renewalTimer} no thread checks it, and the lease is renewed
     * only when the caller runs {@link #renewIfIdle()}.
     */
    static Nfs4Connection connect(RpcClient rpc, int minorVersion, String rootPath, int maxRead, int maxWrite,
                                  int window, Duration timeout, LongSupplier nanoClock, boolean renewalTimer) {
        try {
            int minor = minorVersion < 0 ? 2 : minorVersion;
            long verifier = RANDOM.nextLong();
            byte[] owner = ("iwarp4j/" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
            CompoundResult x = await(unsequenced(rpc, minor, List.of(Op.exchangeId(verifier, owner)), 0));
            if (x.status == NFS4ERR_MINOR_VERS_MISMATCH && minorVersion < 0 && minor == 2) {
                minor = 1;
                x = await(unsequenced(rpc, minor, List.of(Op.exchangeId(verifier, owner)), 0));
            }
            CompoundResult.ExchangeId id = x.check().body(OP_EXCHANGE_ID);
            ChannelAttrs4 fore = new ChannelAttrs4(0, maxWrite + 8192, maxRead + 8192, CACHED_REPLY_ASKED, 16, FORE_SLOTS,
                    -1);
            ChannelAttrs4 back = new ChannelAttrs4(0, 4096, 4096, 0, 2, 1, -1);
            CompoundResult c = await(unsequenced(rpc, minor,
                    List.of(Op.createSession(id.clientId(), id.sequenceId(), fore, back)), 0)).check();
            CompoundResult.CreateSession session = c.body(OP_CREATE_SESSION);
            Recovery recovery = new Recovery(verifier, owner, fore, back);
            recovery.session = session(id.clientId(), session);
            recovery.nextCreateSessionSeq = id.sequenceId() + 1;
            Nfs4Connection partial = new Nfs4Connection(rpc, minor, recovery, timeout, null, 0, 0, 1,
                    DEFAULT_LEASE_SECONDS, nanoClock);
            CompoundResult rc = partial.call(List.of(Op.reclaimComplete()), false);
            if (rc.status != NFS4_OK && rc.failedStatus() != NFS4ERR_COMPLETE_ALREADY) {
                rc.check();
            }
            List<Op> ops = new ArrayList<>();
            ops.add(Op.putrootfh());
            components(rootPath).forEach(n -> ops.add(Op.lookup(n)));
            ops.add(Op.getfh());
            ops.add(Op.getattr(FileAttributes4.LIMITS_AND_LEASE));
            CompoundResult r = partial.call(ops, true);
            byte[] rootFh = r.body(OP_GETFH);
            FileAttributes4 limits = r.body(OP_GETATTR);
            int rsize = size(maxRead, limits.maxRead(), session.fore().maxResponseSize());
            int wsize = size(maxWrite, limits.maxWrite(), session.fore().maxRequestSize());
            int lease = limits.leaseSeconds() > 0 ? limits.leaseSeconds() : DEFAULT_LEASE_SECONDS;
            Nfs4Connection done = new Nfs4Connection(rpc, minor, recovery, timeout, rootFh, rsize, wsize, window, lease,
                    nanoClock);
            if (renewalTimer) {
                done.startRenewal();
            }
            return done;
        } catch (RuntimeException e) {
            rpc.close();
            throw e;
        }
    }

    private static Session session(long clientId, CompoundResult.CreateSession created) {
        return new Session(clientId, created.sessionId(),
                new SlotTable(Math.max(1, Math.min(created.fore().maxRequests(), FORE_SLOTS))),
                created.fore().maxResponseSizeCached());
    }

    /**
     * The transfer size: the client's limit, the server's maxread or maxwrite ({@link
     * TransferSizes#of}: 4096 for one under 1024, 0 included; none given, or one of 2^63 and more,
     * leaves the limit), and what fits the channel, in 4 KiB units.
     */
    static int size(int mine, long attribute, int channel) {
        long s = mine;
        if (attribute >= 0) {
            s = TransferSizes.of(mine, attribute);
        }
        if (channel > 0 && s > channel - 1024L) {
            s = Math.max(4096, (channel - 1024L) & ~4095L);
        }
        return (int) s;
    }

    public int minorVersion() {
        return minor;
    }

    public int readSize() {
        return readSize;
    }

    public int writeSize() {
        return writeSize;
    }

    public int slots() {
        return recovery.session.slots().size();
    }

    /** The slots new calls may use now: the table's size or less if the server asked for fewer. */
    public int usableSlots() {
        return recovery.session.slots().usable();
    }

    /** Slots of the current session retired because a call on them got no reply (see {@link SlotTable}). */
    public int retiredSlots() {
        return recovery.session.slots().retired();
    }

    /** Sessions created after the first one, on the same client ID or a new one (see {@link #recover}). */
    public long newSessions() {
        return recovery.newSessions.get();
    }

    /** Client IDs established after the first one (the server restarted or expired the client). */
    public long newClientIds() {
        return recovery.newClients.get();
    }

    /** The lease this client renews within, in seconds (lease_time, §5.8.1.11). */
    public int leaseSeconds() {
        return leaseSeconds;
    }

    /** COMPOUNDs of SEQUENCE alone sent to renew the lease while idle. */
    public long renewals() {
        return renewals.get();
    }

    /** Whether a SEQUENCE reply carried SEQ4_STATUS_RESTART_RECLAIM_NEEDED (§18.46.3). */
    public boolean restartReclaimNeeded() {
        return reclaimNeeded.get();
    }

    // ---- lease renewal (RFC 8881 §8.3) ----

    /** Whether the renewal timer's thread ended within {@code timeout} (after {@link #close()}). */
    boolean awaitRenewalStopped(Duration timeout) throws InterruptedException {
        return renewer == null || renewer.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** How long the client may be idle before it renews: a third of the lease. */
    long renewalPeriodMillis() {
        return Math.max(1, leaseSeconds * 1000L / 3);
    }

    private void startRenewal() {
        long period = renewalPeriodMillis();
        renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nfs4-lease-renewal");
            t.setDaemon(true);
            return t;
        });
        renewer.scheduleWithFixedDelay(this::renewIfIdle, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Sends SEQUENCE alone if nothing was sent for {@link #renewalPeriodMillis()}; with a check
     * every period the longest silence is under two periods, two thirds of the lease. One renewal
     * at a time.
     *
     * @return the renewal's reply (failures are logged, not thrown), or null if none was sent
     */
    CompletableFuture<CompoundResult> renewIfIdle() {
        if (closed.get() || nanoClock.getAsLong() - lastSent.get() < TimeUnit.MILLISECONDS.toNanos(renewalPeriodMillis())
                || !renewing.compareAndSet(false, true)) {
            return null;
        }
        CompletableFuture<CompoundResult> f;
        // counted before it is sent, so that whoever sees the renewal arrive sees it counted
        renewals.incrementAndGet();
        try {
            f = sequenced(List.of(), false);
        } catch (RuntimeException e) {
            renewals.decrementAndGet();
            renewing.set(false);
            log.debug("NFSv4 lease renewal not sent", e);
            return null;
        }
        // the stage returned completes after renewing is cleared, so a check run when it is done may renew again
        return f.whenComplete((r, e) -> {
            renewing.set(false);
            if (e != null) {
                log.debug("NFSv4 lease renewal failed", e);
            } else if (r.status != NFS4_OK) {
                log.warn("NFSv4 lease renewal: SEQUENCE answered {}", r.failedStatus());
            }
        });
    }

    public byte[] rootHandle() {
        return root.clone();
    }

    public RpcClient rpc() {
        return rpc;
    }

    // ---- COMPOUNDs ----

    private static CompletableFuture<CompoundResult> unsequenced(RpcClient rpc, int minor, List<Op> ops, int maxRead) {
        return rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, out -> encode(out, minor, ops),
                in -> CompoundResult.decode(in, ops, maxRead), CompoundResult::release);
    }

    private static void encode(XdrEncoder out, int minor, List<Op> ops) {
        out.writeString("", NFS4_OPAQUE_LIMIT).writeUnsignedInt(minor).writeUnsignedInt(ops.size());
        for (Op op : ops) {
            op.encode(out);
        }
    }

    /**
     * Sends SEQUENCE and {@code ops} on a free slot (waiting for one), returning the decoded result
     * whatever its status. What becomes of the slot follows from how the call ended ({@link
     * SlotTable}); a successful SEQUENCE's slot limits and status flags are applied. A pending
     * state-revoked report fails this call instead. If the session cannot carry the call (every
     * slot retired, NFS4ERR_BADSESSION, NFS4ERR_DEADSESSION) or the client ID is gone
     * (NFS4ERR_STALE_CLIENTID, NFS4ERR_EXPIRED), the client recovers ({@link #recover}) and sends
     * the operations again, built anew by {@code ops} (a stateid may have changed, a payload been
     * consumed): SEQUENCE failed, so the server did not run them.
     */
    CompletableFuture<CompoundResult> sequenced(java.util.function.Supplier<List<Op>> ops) {
        return attempt(ops, true, 0);
    }

    /** As {@link #sequenced(java.util.function.Supplier)} with operations that may be sent twice (no payload). */
    CompletableFuture<CompoundResult> sequenced(List<Op> ops) {
        AtomicBoolean taken = new AtomicBoolean();
        return attempt(() -> {
            taken.set(true);
            return ops;
        }, true, 0).whenComplete((r, e) -> {
            if (!taken.get()) {
                ops.forEach(Op::discard);
            }
        });
    }

    private CompletableFuture<CompoundResult> sequenced(List<Op> ops, boolean reportRevoked) {
        return attempt(() -> ops, reportRevoked, 0);
    }

    private CompletableFuture<CompoundResult> attempt(java.util.function.Supplier<List<Op>> supplier,
                                                      boolean reportRevoked, int recoveries) {
        Nfs4StatusException gone = reportRevoked && recoveries == 0 ? revoked.getAndSet(null) : null;
        if (gone != null) {
            return CompletableFuture.failedFuture(gone);
        }
        Session s = recovery.session;
        int slot;
        try {
            if (recovery.restartPending.getAndSet(false) && recoveries < MAX_RECOVERIES) {
                recover(s, true);
                return attempt(supplier, reportRevoked, recoveries + 1);
            }
            slot = s.slots().acquire(timeout);
        } catch (SlotTable.AllRetiredException e) {
            if (recoveries >= MAX_RECOVERIES) {
                return CompletableFuture.failedFuture(e);
            }
            try {
                recover(s, false);
            } catch (RuntimeException r) {
                r.addSuppressed(e);
                return CompletableFuture.failedFuture(r);
            }
            return attempt(supplier, reportRevoked, recoveries + 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(e);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        List<Op> ops;
        try {
            ops = supplier.get();
        } catch (RuntimeException e) {
            s.slots().release(slot, SlotTable.Outcome.NOT_EXECUTED);
            return CompletableFuture.failedFuture(e);
        }
        List<Op> all = new ArrayList<>(ops.size() + 1);
        all.add(Op.sequence(s.id(), s.slots().nextSequenceId(slot), slot, s.slots().highestInUse(),
                s.cacheThis(ops)));
        all.addAll(ops);
        CompletableFuture<CompoundResult> f;
        try {
            lastSent.set(nanoClock.getAsLong());
            f = unsequenced(rpc, minor, all, readSize);
        } catch (RuntimeException e) {
            s.slots().release(slot, SlotTable.Outcome.NOT_EXECUTED);
            throw e;
        }
        CompletableFuture<CompoundResult> done = f.whenComplete((r, e) -> {
            SlotTable.Outcome outcome = outcome(r, e);
            if (outcome == SlotTable.Outcome.ADVANCED && sequenceFailure(r) == NFS4_OK) {
                sequenceReply(s, r.body(OP_SEQUENCE));
            } else if (outcome == SlotTable.Outcome.UNKNOWN) {
                log.warn("NFSv4 session slot {} retired: no reply to its call ({})", slot, e == null ? "?" : e.toString());
            }
            s.slots().release(slot, outcome);
        });
        if (recoveries >= MAX_RECOVERIES) {
            return done;
        }
        return done.thenCompose(r -> {
            int failed = sequenceFailure(r);
            if (failed == NFS4ERR_RETRY_UNCACHED_REP && onlyIdempotent(r.sent) && !closed.get()) {
                // The transport sent the call again after a reconnect and the server had run it
                // without keeping the reply: running it again changes nothing, on the slot's next id.
                r.release();
                return attempt(supplier, reportRevoked, recoveries + 1);
            }
            boolean lostSession = failed == NFS4ERR_BADSESSION || failed == NFS4ERR_DEADSESSION;
            boolean lostClient = failed == NFS4ERR_STALE_CLIENTID || failed == NFS4ERR_EXPIRED;
            if (!lostSession && !lostClient || closed.get()) {
                return CompletableFuture.completedFuture(r);
            }
            r.release();
            // off the transport's thread: recovery waits for replies
            return CompletableFuture.runAsync(() -> recover(s, lostClient), recovery.executor)
                    .thenCompose(x -> attempt(supplier, reportRevoked, recoveries + 1));
        });
    }

    /** Operations whose second execution answers as the first did (nothing changes state or stateids). */
    private static final java.util.Set<Integer> IDEMPOTENT = java.util.Set.of(OP_SEQUENCE, OP_PUTROOTFH, OP_PUTFH,
            OP_GETFH, OP_LOOKUP, OP_LOOKUPP, OP_GETATTR, OP_ACCESS, OP_READ, OP_READDIR, OP_READLINK, OP_SAVEFH,
            OP_RESTOREFH, OP_VERIFY, OP_NVERIFY, OP_SECINFO, OP_SECINFO_NO_NAME, OP_COMMIT);

    /** See {@link Session#cacheThis}: {@code granted} is the session's ca_maxresponsesize_cached. */
    static boolean asksCachedReply(int granted, List<Op> ops) {
        return granted >= MIN_CACHED_REPLY && !onlyIdempotent(ops);
    }

    /** Whether every operation of a COMPOUND may run twice. */
    static boolean onlyIdempotent(List<Op> ops) {
        for (Op op : ops) {
            if (!IDEMPOTENT.contains(op.opcode())) {
                return false;
            }
        }
        return true;
    }

    /** SEQUENCE's status if SEQUENCE itself failed, else NFS4_OK. */
    private static int sequenceFailure(CompoundResult r) {
        if (r.results.isEmpty() || r.results.get(0).opcode() != OP_SEQUENCE) {
            return r.status;
        }
        return r.results.get(0).status();
    }

    /**
     * Replaces the session {@code failed} (unless another call already did). A new session on
     * the same client ID first (CREATE_SESSION with the next csa_sequence, RFC 8881 §18.36.4: the
     * client's state lives on, §2.10.13), the old one destroyed if the server still knows it;
     * if the server no longer knows the client ID (NFS4ERR_STALE_CLIENTID: it restarted;
     * NFS4ERR_EXPIRED), or {@code newClient} asks for it (SEQ4_STATUS_RESTART_RECLAIM_NEEDED,
     * §18.46.3), a new client ID: EXCHANGE_ID with the same owner and verifier, CREATE_SESSION,
     * then — if the client ID changed, i.e. the server lost the client's state — every file
     * still open is reclaimed with OPEN CLAIM_PREVIOUS (§8.4.2.1, §9.11) under its own open
     * owner, and RECLAIM_COMPLETE (§18.51). An open whose reclaim is refused (typically
     * NFS4ERR_NO_GRACE: a server without a grace period, or one whose period is over) is
     * <em>lost</em>: the client does not open it anew, since another client may have changed or
     * locked the file meanwhile, and every later operation on it fails with an {@link
     * Nfs4StatusException} naming the file and the reclaim's error.
     */
    private void recover(Session failed, boolean newClient) {
        synchronized (recovery) {
            if (recovery.session != failed || closed.get()) {
                return;
            }
            if (!newClient) {
                CompoundResult c = await(unsequenced(rpc, minor, List.of(Op.createSession(failed.clientId(),
                        recovery.nextCreateSessionSeq, recovery.fore, recovery.back)), 0));
                if (c.status == NFS4_OK) {
                    recovery.nextCreateSessionSeq++;
                    install(failed, session(failed.clientId(), c.body(OP_CREATE_SESSION)));
                    log.warn("NFSv4 session replaced by a new one on the same client ID");
                    return;
                }
                int status = c.failedStatus();
                c.release();
                if (status != NFS4ERR_STALE_CLIENTID && status != NFS4ERR_EXPIRED) {
                    throw new Nfs4StatusException(status, "CREATE_SESSION (replacing a session)");
                }
            }
            CompoundResult.ExchangeId id = await(unsequenced(rpc, minor,
                    List.of(Op.exchangeId(recovery.verifier, recovery.owner)), 0)).check().body(OP_EXCHANGE_ID);
            CompoundResult c = await(unsequenced(rpc, minor, List.of(Op.createSession(id.clientId(),
                    id.sequenceId(), recovery.fore, recovery.back)), 0)).check();
            recovery.nextCreateSessionSeq = id.sequenceId() + 1;
            install(failed, session(id.clientId(), c.body(OP_CREATE_SESSION)));
            recovery.newClients.incrementAndGet();
            int reclaimed = 0;
            if (id.clientId() != failed.clientId()) {
                // the same client ID back means the server kept the client and its opens: nothing to reclaim
                for (OpenFile f : recovery.open) {
                    reclaimed += reclaim(f, id.clientId()) ? 1 : 0;
                }
            }
            CompoundResult rc = callOnce(List.of(Op.reclaimComplete()));
            int rcStatus = rc.failedStatus();
            rc.release();
            if (rcStatus != NFS4_OK && rcStatus != NFS4ERR_COMPLETE_ALREADY) {
                throw new Nfs4StatusException(rcStatus, "RECLAIM_COMPLETE");
            }
            log.warn("NFSv4 client ID re-established (the server restarted or expired the client): {} of {} open "
                    + "files reclaimed", reclaimed, recovery.open.size());
        }
    }

    private void install(Session old, Session fresh) {
        recovery.session = fresh;
        recovery.newSessions.incrementAndGet();
        synchronized (flagsLock) {
            lastRevokedFlags = 0;
        }
        if (old.clientId() == fresh.clientId()) {
            try {
                await(unsequenced(rpc, minor, List.of(Op.destroySession(old.id())), 0)).release();
            } catch (RuntimeException e) {
                // the server drops it with the lease anyway
            }
        }
    }

    /** OPEN CLAIM_PREVIOUS of an open file on the new client ID; false (and the open lost) if refused. */
    private boolean reclaim(OpenFile f, long clientId) {
        CompoundResult r;
        try {
            r = callOnce(List.of(Op.putfh(f.fh), Op.reclaimOpen(clientId, f.owner, f.access)));
        } catch (RuntimeException e) {
            f.lost = new Nfs4StatusException(NFS4ERR_IO, "OPEN reclaim of " + f.path + " (" + e + ")");
            return false;
        }
        if (r.status != NFS4_OK) {
            f.lost = new Nfs4StatusException(r.failedStatus(), "OPEN reclaim of " + f.path);
            r.release();
            log.warn("NFSv4 open of {} lost: its reclaim got {}", f.path, f.lost.getMessage());
            return false;
        }
        f.stateid = r.<CompoundResult.Open>body(OP_OPEN).stateid();
        return true;
    }

    /** A sequenced COMPOUND on the current session that does not itself recover (used during recovery). */
    private CompoundResult callOnce(List<Op> ops) {
        long deadline = System.nanoTime() + 4 * timeout.toNanos();
        long pause = 50;
        while (true) {
            CompoundResult r = await(attempt(() -> ops, false, MAX_RECOVERIES));
            if (r.failedStatus() == NFS4ERR_DELAY && System.nanoTime() + pause * 1_000_000 < deadline) {
                r.release();
                sleep(pause);
                pause = Math.min(pause * 2, 2000);
                continue;
            }
            return r;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis); // the server asked to be asked again later
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        }
    }

    /** How a sequenced call ended, for its slot (see {@link SlotTable}). */
    static SlotTable.Outcome outcome(CompoundResult r, Throwable e) {
        if (r != null) {
            if (r.results.isEmpty() || r.results.get(0).opcode() != OP_SEQUENCE) {
                return SlotTable.Outcome.NOT_EXECUTED;
            }
            int sequence = r.results.get(0).status();
            // NFS4ERR_RETRY_UNCACHED_REP and NFS4ERR_SEQ_FALSE_RETRY: the server took this call for a
            // retry of the last one on the slot (a transport sent it again after a reconnect), so
            // the slot is at this sequence id; the next call takes the next (RFC 8881 §2.10.6.1).
            return sequence == NFS4_OK || sequence == NFS4ERR_RETRY_UNCACHED_REP || sequence == NFS4ERR_SEQ_FALSE_RETRY
                    ? SlotTable.Outcome.ADVANCED : SlotTable.Outcome.NOT_EXECUTED;
        }
        Throwable cause = e;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        // A reply that rejected the call at the RPC level, or an RDMA_ERROR (RFC 8166 §5.4.3: the
        // Responder did not process the RPC), proves the server never ran SEQUENCE. ULB-R-031: the
        // transport has already ended the RPC for the RDMA_ERROR (final, never retransmitted);
        // only then do NFSv4's rules apply, here: the slot keeps its sequence id.
        if (cause instanceof RpcRdmaErrorException || cause instanceof RpcAuthException
                || cause instanceof RpcGarbageArgsException || cause instanceof RpcMismatchException
                || cause instanceof RpcProcedureUnavailableException || cause instanceof RpcProgramMismatchException
                || cause instanceof RpcProgramUnavailableException) {
            return SlotTable.Outcome.NOT_EXECUTED;
        }
        return SlotTable.Outcome.UNKNOWN;
    }

    /** Applies a successful SEQUENCE's slot limits and status flags (RFC 8881 §18.46.3). */
    private void sequenceReply(Session s, CompoundResult.Sequence sequence) {
        s.slots().limit(sequence.highestSlot(), sequence.targetHighestSlot());
        int flags = sequence.flags();
        // CB_PATH_DOWN, CB_PATH_DOWN_SESSION, BACKCHANNEL_FAULT: no back channel was asked for and no
        // delegation or layout is held, so there is nothing to repair.
        int revokedNow = flags & REVOKED;
        synchronized (flagsLock) {
            int fresh = revokedNow & ~lastRevokedFlags;
            lastRevokedFlags = revokedNow;
            if (fresh != 0) {
                int status = (fresh & (SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED | SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED)) != 0
                        ? NFS4ERR_EXPIRED : NFS4ERR_ADMIN_REVOKED;
                log.warn("NFSv4 server revoked state of this client (sr_status_flags 0x{})", Integer.toHexString(flags));
                revoked.set(new Nfs4StatusException(status, "SEQUENCE (sr_status_flags 0x" + Integer.toHexString(flags)
                        + ": state revoked)"));
            }
        }
        if ((flags & SEQ4_STATUS_RESTART_RECLAIM_NEEDED) != 0 && s == recovery.session) {
            reclaimNeeded.set(true);
            if (recovery.restartPending.compareAndSet(false, true)) {
                log.warn("NFSv4 server restarted and asks for reclaims (SEQ4_STATUS_RESTART_RECLAIM_NEEDED):"
                        + " re-establishing the client ID and reclaiming open files before the next call");
            }
        }
    }

    /**
     * A sequenced COMPOUND of operations without payload, sent again while the server answers
     * NFS4ERR_DELAY or NFS4ERR_GRACE (RFC 8881 §15.1.1.3, §15.1.9.2), at most four timeouts long.
     */
    CompoundResult call(List<Op> ops, boolean check) {
        return call(() -> ops, check);
    }

    /** As {@link #call(List, boolean)}, the operations built anew for each sending. */
    CompoundResult call(java.util.function.Supplier<List<Op>> ops, boolean check) {
        long deadline = System.nanoTime() + 4 * timeout.toNanos();
        long pause = 50;
        while (true) {
            CompoundResult r = await(sequenced(ops));
            int s = r.failedStatus();
            if ((s == NFS4ERR_DELAY || s == NFS4ERR_GRACE) && System.nanoTime() + pause * 1_000_000 < deadline) {
                r.release();
                sleep(pause);
                pause = Math.min(pause * 2, 2000);
                continue;
            }
            return check ? r.check() : r;
        }
    }

    // ---- path operations ----

    /** The handle of a path below the root ("" is the root). */
    public byte[] lookupPath(String path) {
        List<String> names = components(path);
        if (names.isEmpty()) {
            return root.clone();
        }
        List<Op> ops = new ArrayList<>();
        ops.add(Op.putfh(root));
        names.forEach(n -> ops.add(Op.lookup(n)));
        ops.add(Op.getfh());
        return call(ops, true).body(OP_GETFH);
    }

    /** The attributes of a path ({@link FileAttributes4#REQUEST}). */
    public FileAttributes4 stat(String path) {
        return attributes(path, FileAttributes4.REQUEST);
    }

    /** These attributes of a path. */
    public FileAttributes4 attributes(String path, org.iwarp4j.nfs.v4.Bitmap4 request) {
        List<Op> ops = new ArrayList<>();
        ops.add(Op.putfh(root));
        components(path).forEach(n -> ops.add(Op.lookup(n)));
        ops.add(Op.getattr(request));
        return call(ops, true).body(OP_GETATTR);
    }

    /** The target of a symbolic link (READLINK, RFC 8881 §18.24). */
    public String readlink(String path) {
        List<Op> ops = new ArrayList<>();
        ops.add(Op.putfh(root));
        components(path).forEach(n -> ops.add(Op.lookup(n)));
        ops.add(Op.readlink());
        return call(ops, true).body(OP_READLINK);
    }

    /** The entries of a directory, READDIR with cookies until eof. */
    public List<DirEntry4> list(String directory) {
        byte[] dir = lookupPath(directory);
        return DirectoryListing.readAll((cookie, verifier) -> {
            CompoundResult.Readdir d = call(List.of(Op.putfh(dir), Op.readdir(cookie, verifier, 8192, 32 * 1024,
                    FileAttributes4.REQUEST)), true).body(OP_READDIR);
            return new DirectoryListing.Page<>(d.entries(), d.verifier(), d.eof());
        }, DirEntry4::name, DirEntry4::cookie, what -> protocolError("READDIR " + directory, what));
    }

    /**
     * The error for replies to {@code operation} that break the protocol ({@code what} says how):
     * NFS4ERR_IO, as Linux fails such calls with EIO.
     */
    private static Nfs4StatusException protocolError(String operation, String what) {
        return new Nfs4StatusException(NFS4ERR_IO, operation + " (" + what + ")");
    }

    /** REMOVE of a file or empty directory. */
    public void remove(String path) {
        Parent p = parent(path);
        call(List.of(Op.putfh(p.dir), Op.remove(p.name)), true);
    }

    private record Parent(byte[] dir, String name) {
    }

    private Parent parent(String path) {
        List<String> names = components(path);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("no file name in \"" + path + "\"");
        }
        String name = names.get(names.size() - 1);
        return new Parent(lookupPath(String.join("/", names.subList(0, names.size() - 1))), name);
    }

    /**
     * OPEN (CLAIM_NULL) under a new open owner; the file is then held open, and reclaimed after a
     * server restart, until {@link #close(OpenFile)}.
     */
    private OpenFile open(String path, int access, boolean create) {
        Parent p = parent(path);
        String owner = ownerPrefix + owners.incrementAndGet();
        CompoundResult r = call(() -> List.of(Op.putfh(p.dir), Op.open(recovery.session.clientId(), owner, p.name,
                access, create), Op.getfh(), Op.getattr(FileAttributes4.REQUEST)), true);
        CompoundResult.Open o = r.body(OP_OPEN);
        FileAttributes4 a = r.body(OP_GETATTR);
        OpenFile f = new OpenFile(path, r.body(OP_GETFH), owner, access, o.stateid(), a.size());
        recovery.open.add(f);
        return f;
    }

    /** CLOSE, unless the open was lost in a server restart (nothing to close then). */
    private void close(OpenFile f) {
        recovery.open.remove(f);
        if (f.lost == null) {
            call(() -> List.of(Op.putfh(f.fh), Op.close(f.stateid())), true);
        }
    }

    /** OPEN for reading, pipelined READs until eof, CLOSE; returns the octets read. */
    public long download(String path, OutputStream out) throws IOException {
        OpenFile f = open(path, OPEN4_SHARE_ACCESS_READ, false);
        try {
            return PipelinedDownload.run(readsFrom(f), readSize, window, out);
        } finally {
            close(f);
        }
    }

    private PipelinedDownload.Reads<CompoundResult> readsFrom(OpenFile f) {
        return new PipelinedDownload.Reads<>() {
            @Override
            public CompletableFuture<CompoundResult> read(long offset, int count) {
                // Built per attempt: after a server restart the reclaimed open has a new stateid.
                return sequenced(() -> List.of(Op.putfh(f.fh), Op.read(f.stateid(), offset, count)));
            }

            @Override
            public ByteBuf data(CompoundResult reply) {
                CompoundResult.Read read = reply.check().body(OP_READ);
                return read.data();
            }

            @Override
            public boolean eof(CompoundResult reply) {
                return reply.<CompoundResult.Read>body(OP_READ).eof();
            }

            @Override
            public void release(CompoundResult reply) {
                reply.release();
            }

            @Override
            public RuntimeException protocolError(String what) {
                return Nfs4Connection.protocolError("READ " + f.path, what);
            }
        };
    }

    /**
     * OPEN creating or truncating {@code path}, then {@link PipelinedUpload}: UNSTABLE WRITEs,
     * COMMITs, FILE_SYNC rewrites if a COMMIT's verifier differs from the WRITEs' (the server
     * restarted and may have lost them, RFC 8881 §18.32.3); CLOSE.
     */
    public long upload(InputStream in, String path) throws IOException {
        OpenFile f = open(path, OPEN4_SHARE_ACCESS_BOTH, true);
        try {
            return PipelinedUpload.run(writesTo(f), rpc.transport().alloc(), writeSize, window, in);
        } finally {
            close(f);
        }
    }

    private PipelinedUpload.Writes<CompoundResult> writesTo(OpenFile f) {
        return new PipelinedUpload.Writes<>() {
            @Override
            public CompletableFuture<CompoundResult> writeUnstable(long offset, ByteBuf data) {
                // Each attempt (a recovery sends the operations again) takes its own reference to
                // the data and the open's current stateid; ours is given back when the call ends.
                return sequenced(() -> List.of(Op.putfh(f.fh),
                        Op.write(f.stateid(), offset, UNSTABLE4, data.retainedDuplicate())))
                        .whenComplete((r, e) -> data.release());
            }

            @Override
            public PipelinedUpload.Written written(CompoundResult reply) {
                CompoundResult.Write w = reply.check().body(OP_WRITE);
                return new PipelinedUpload.Written(w.count(), w.verifier());
            }

            @Override
            public long commit(long offset) {
                return call(List.of(Op.putfh(f.fh), Op.commit(offset, 0)), true).body(OP_COMMIT);
            }

            @Override
            public long writeFileSync(long offset, ByteBuf data) {
                try {
                    return await(sequenced(() -> List.of(Op.putfh(f.fh),
                            Op.write(f.stateid(), offset, FILE_SYNC4, data.retainedDuplicate())))).check()
                            .<CompoundResult.Write>body(OP_WRITE).count();
                } finally {
                    data.release();
                }
            }

            @Override
            public RuntimeException protocolError(String what) {
                return Nfs4Connection.protocolError("WRITE " + f.path, what);
            }
        };
    }

    /** DESTROY_SESSION, DESTROY_CLIENTID (each the only operation of its COMPOUND), then the transport. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (renewer != null) {
            renewer.shutdownNow();
        }
        recovery.executor.shutdownNow();
        try {
            Session s = recovery.session;
            await(unsequenced(rpc, minor, List.of(Op.destroySession(s.id())), 0)).check();
            await(unsequenced(rpc, minor, List.of(Op.destroyClientId(s.clientId())), 0)).check();
        } catch (RuntimeException e) {
            // the server forgets the client when its lease expires
        } finally {
            rpc.close();
        }
    }
}
