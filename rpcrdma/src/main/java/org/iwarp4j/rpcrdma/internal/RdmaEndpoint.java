package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.ScatterGatherElement;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.rdmap.WorkCompletionOpcode;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.internal.wire.InlineThresholds;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RPC-over-RDMA connection over the verbs API: its own protection domain (so that a peer can
 * reach only the memory registered for this connection), a queue pair, a ring of pre-posted
 * Receive buffers in one registered region, and futures for the work requests posted on it.
 *
 * <p>Received messages are copied out of their Receive buffer, which is posted again at once (so
 * the number of posted Receives stays what was promised: credits plus backward slots), and handed
 * to the message handler on the connection's event loop as a buffer the handler releases. Sends are
 * copied into a ring of pre-registered slots ({@link SendSlots}, as many as Receives), so that
 * a Send costs no registration; only when every slot is taken is a Send's buffer registered.
 *
 * <p>The RFC 8797 exchange happens here: the local block goes into the MPA private data (after the
 * RFC 6581 word), the peer's is searched for in what it sent, and the two inline thresholds and
 * whether Send with Invalidate may be used follow from both (RFC 8797 §4.1, §4.2).
 */
public final class RdmaEndpoint {

    private static final Logger log = LoggerFactory.getLogger(RdmaEndpoint.class);
    private static final int SEND_QUEUE_DEPTH = 8192;

    /** A received RDMA Send: a copy of its octets (the handler releases it) and the STag it invalidated. */
    public record Received(ByteBuf message, OptionalInt invalidatedStag) {
    }

    /**
     * One operation as a diagnostic tap sees it: a Send posted or received (with its octets, the
     * RPC-over-RDMA message), or an RDMA Write or Read posted (length only).
     *
     * @param stag the STag a Send with Invalidate names, the Write's or Read's remote STag, or empty
     */
    public record Tapped(Kind kind, byte[] octets, long length, OptionalInt stag) {
        /** What was tapped. */
        public enum Kind { SEND, RECEIVE, RDMA_WRITE, RDMA_READ }
    }

    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final QueuePair qp;
    private final int receiveSize;
    private final int receiveCount;
    private final ByteBuf receiveMemory;
    private final MemoryRegion receiveRegion;
    private final SendSlots sendSlots;
    /**
     * Kept buffers of up to 1 MiB (NFS's usual rsize and wsize), one per Call in flight up to
     * {@link RpcRdmaSettings#keptDataBuffers()} (never more than the credits): a Responder's Read
     * chunk sinks, a Requester's Write and Reply chunk targets. With only two kept, 6 of every 8
     * Calls of a window of 8 took a 1 MiB buffer from the allocator, whose 8 MiB chunks come and go
     * (each new one zeroed and page-faulted in).
     */
    private final ReadSinks readSinks;
    private final AtomicLong sendsRegistered = new AtomicLong();
    /** Sends registered on their own (no free slot) and not yet completed: each holds an STag. */
    private final java.util.concurrent.atomic.AtomicInteger registeredSendsOutstanding =
            new java.util.concurrent.atomic.AtomicInteger();
    private final RpcRdmaPrivateData local;
    private final boolean client;
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<Long, CompletableFuture<WorkCompletion>> pending = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final long readTimeoutNanos;
    private final AtomicLong readsTimedOut = new AtomicLong();
    private volatile long lastActivityNanos = System.nanoTime();
    /** When a posted Send or RDMA Write last completed, or one was posted with none outstanding. */
    private volatile long sendProgressNanos = System.nanoTime();
    /** Sends and RDMA Writes posted and not yet completed (what the peer's reading lets leave). */
    private final java.util.concurrent.atomic.AtomicInteger sendsOutstanding =
            new java.util.concurrent.atomic.AtomicInteger();
    private volatile Consumer<Received> handler = m -> m.message().release();
    private volatile Consumer<Tapped> tap;
    private volatile InlineThresholds thresholds = InlineThresholds.DEFAULT;
    private volatile RpcRdmaPrivateData peer = RpcRdmaPrivateData.ABSENT;

    private RdmaEndpoint(Rnic rnic, RpcRdmaSettings settings, int receiveCount, boolean client,
                         KeptBufferQuota keptQuota) {
        this.client = client;
        this.readSinks = new ReadSinks(DataMemory.ALLOCATOR, Math.min(settings.keptDataBuffers(), settings.credits()),
                1 << 20, keptQuota);
        this.readTimeoutNanos = settings.rdmaReadTimeout().toNanos();
        this.pd = rnic.allocateProtectionDomain();
        this.sendCq = rnic.createCompletionQueue(SEND_QUEUE_DEPTH);
        this.receiveCq = rnic.createCompletionQueue(receiveCount + 1);
        this.local = settings.announcePrivateData()
                ? RpcRdmaPrivateData.of(settings.remoteInvalidation(), settings.inlineSendSize(),
                        settings.inlineReceiveSize())
                : RpcRdmaPrivateData.ABSENT;
        // Each Receive holds the largest Send the peer may post, at least 1024 octets (RPC-R-013).
        this.receiveSize = settings.inlineReceiveSize();
        this.receiveCount = receiveCount;
        this.receiveMemory = PooledByteBufAllocator.DEFAULT.directBuffer(receiveSize * receiveCount);
        receiveMemory.writeZero(receiveSize * receiveCount);
        this.receiveRegion = pd.register(receiveMemory, EnumSet.of(Access.LOCAL_WRITE));
        // As many Send slots as Receives: a Responder has at most a Reply per credit outstanding,
        // a Requester a Call per credit; the rest (RDMA_DONE, errors, bursts) falls back to registering.
        this.sendSlots = new SendSlots(pd, settings.inlineSendSize(), receiveCount);
        this.qp = rnic.createQueuePair(QueuePairSettings.builder(pd, sendCq)
                .receiveCompletionQueue(receiveCq)
                .sendQueueDepth(SEND_QUEUE_DEPTH)
                .receiveQueueDepth(receiveCount)
                .mpa(client ? withPrivateData(settings) : settings.mpa())
                .build());
        sendCq.setListener(this::sendCompleted);
        receiveCq.setListener(this::received);
        for (int slot = 0; slot < receiveCount; slot++) {
            postReceive(slot);
        }
        qp.closeFuture().whenComplete((q, e) -> closedDown());
    }

    /** A Requester's endpoint, not yet connected: {@link #connect} it. */
    public static RdmaEndpoint forRequester(Rnic rnic, RpcRdmaSettings settings, int receiveCount) {
        return new RdmaEndpoint(rnic, settings, receiveCount, true, KeptBufferQuota.unbounded());
    }

    /** Connects to {@code server} and exchanges RFC 8797 private data; on failure the endpoint is closed. */
    public CompletableFuture<RdmaEndpoint> connect(SocketAddress server) {
        return qp.connect(server).thenApply(q -> {
            peerSent(q.negotiated().peerPrivateData());
            return this;
        }).whenComplete((e, error) -> {
            if (error != null) {
                close();
            }
        });
    }

    /** A Responder's endpoint for an incoming connection whose Initiator sent {@code clientPrivateData}. */
    public static RdmaEndpoint accept(Rnic rnic, RpcRdmaSettings settings, int receiveCount, byte[] clientPrivateData) {
        return accept(rnic, settings, receiveCount, clientPrivateData, KeptBufferQuota.unbounded());
    }

    /** As {@link #accept(Rnic, RpcRdmaSettings, int, byte[])}, its kept data buffers under the server's {@code keptQuota}. */
    public static RdmaEndpoint accept(Rnic rnic, RpcRdmaSettings settings, int receiveCount, byte[] clientPrivateData,
                                      KeptBufferQuota keptQuota) {
        RdmaEndpoint endpoint = new RdmaEndpoint(rnic, settings, receiveCount, false, keptQuota);
        endpoint.peerSent(clientPrivateData);
        return endpoint;
    }

    private static org.iwarp4j.mpa.MpaSettings withPrivateData(RpcRdmaSettings settings) {
        if (!settings.announcePrivateData()) {
            return settings.mpa();
        }
        byte[] block = RpcRdmaPrivateData.of(settings.remoteInvalidation(), settings.inlineSendSize(),
                settings.inlineReceiveSize()).encode();
        return settings.mpa().toBuilder().privateData(block).build();
    }

    /**
     * Takes the peer's block as announced on this connection alone: a reconnect makes a new
     * endpoint that takes the new connection's block, whatever was announced before (CMPD-R-003).
     */
    private void peerSent(byte[] privateData) {
        this.peer = RpcRdmaPrivateData.findOrAbsent(privateData);
        this.thresholds = client ? InlineThresholds.negotiate(local, peer) : InlineThresholds.negotiate(peer, local);
    }

    /** The private data a Responder answers with: this end's RFC 8797 block, or nothing. */
    public byte[] localPrivateData() {
        return local == RpcRdmaPrivateData.ABSENT ? new byte[0] : local.encode();
    }

    public QueuePair queuePair() {
        return qp;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public InlineThresholds thresholds() {
        return thresholds;
    }

    /** What the peer announced, or {@link RpcRdmaPrivateData#ABSENT}. */
    public RpcRdmaPrivateData peerPrivateData() {
        return peer;
    }

    /** Both ends set the R bit: a Responder may reply with Send with Invalidate (CMPD-R-007, CMPD-R-009). */
    public boolean remoteInvalidation() {
        return local.remoteInvalidation() && peer.remoteInvalidation();
    }

    /** Largest Send this end may post: the inline threshold of its sending direction. */
    public int sendThreshold() {
        return client ? thresholds.callThreshold() : thresholds.replyThreshold();
    }

    /** Largest Send the peer may post to this end. */
    public int receiveThreshold() {
        return client ? thresholds.replyThreshold() : thresholds.callThreshold();
    }

    public int postedReceives() {
        return receiveCount;
    }

    /** Where received messages go, on the event loop; the handler releases each message. */
    public void onMessage(Consumer<Received> handler) {
        this.handler = handler;
    }

    /** Sees every Send and Receive (a copy of the octets) and every RDMA Write and Read posted; for tests and diagnostics. */
    public void tap(Consumer<Tapped> tap) {
        this.tap = tap;
    }

    private void tapped(Tapped.Kind kind, ByteBuf octets, long length, OptionalInt stag) {
        Consumer<Tapped> t = tap;
        if (t != null) {
            t.accept(new Tapped(kind, octets == null ? new byte[0]
                    : io.netty.buffer.ByteBufUtil.getBytes(octets, octets.readerIndex(), octets.readableBytes()),
                    length, stag));
        }
    }

    /** Completes when the connection is gone. */
    public CompletableFuture<QueuePair> closeFuture() {
        return qp.closeFuture();
    }

    public boolean isOpen() {
        return !closed.get();
    }

    // ------------------------------------------------------------------ memory

    /**
     * Registers {@code memory}'s readable octets for this connection alone; the caller keeps it
     * alive. An RPC's chunks serve the connection its Call travels on, so only this connection's peer can
     * reach them or invalidate them with Send with Invalidate (RFC 5040 §8.1.1 item 7).
     */
    public MemoryRegion register(ByteBuf memory, Set<Access> access) {
        return qp.register(memory, access);
    }

    /** Segments that describe {@code length} octets of {@code region} from {@code offset}, each at most {@code maxSegment}. */
    public static List<RdmaSegment> segments(MemoryRegion region, long offset, long length, int maxSegment) {
        java.util.ArrayList<RdmaSegment> out = new java.util.ArrayList<>();
        for (long done = 0; done < length; ) {
            long n = Math.min(maxSegment, length - done);
            out.add(new RdmaSegment(region.stag(), n, region.baseTaggedOffset() + offset + done));
            done += n;
        }
        return out;
    }

    // ------------------------------------------------------------------ work requests

    /**
     * Sends {@code message} with plain Send, or with Send with Invalidate of {@code invalidateStag}
     * if that is not empty. {@code message} is released here: at once when it was copied into a
     * free Send slot, else (registered for this Send alone) when the Send has completed.
     *
     * <p>An endpoint has at most as many such registered Sends outstanding as it has slots; one
     * more fails (its caller closes the connection). Every Send of a Responder answers a message
     * counted against the credits until that Send completes (at most twice the grant, RPC-R-003)
     * or is a backward Call within the backchannel credits; every Send of a Requester is a Call
     * within the grant, the Reply to a backward Call (at most twice the backchannel credits, until
     * its Send completes) or the RDMA_DONE of a Call it gave up on (within the grant). So the slots
     * plus as many again never fail a peer that keeps to the credits. The bound is a second line
     * behind the credit checks: each registration takes an STag from the RNIC's one table, shared
     * by every connection, and a peer that reads nothing keeps them until its connection ends.
     */
    public CompletableFuture<Void> send(ByteBuf message, OptionalInt invalidateStag) {
        ScatterGatherElement slot = sendSlots.take(message);
        if (slot != null) {
            tapped(Tapped.Kind.SEND, message, message.readableBytes(), invalidateStag);
            message.release();
            return post(invalidateStag, slot).whenComplete((c, e) -> sendSlots.give(slot));
        }
        if (registeredSendsOutstanding.get() >= receiveCount) {
            message.release();
            return CompletableFuture.failedFuture(new RpcTransportException(receiveCount
                    + " Sends registered on their own are waiting to go out; the peer reads nothing"));
        }
        MemoryRegion region;
        try {
            region = pd.register(message, EnumSet.noneOf(Access.class));
        } catch (RuntimeException e) {
            message.release();
            return CompletableFuture.failedFuture(e);
        }
        sendsRegistered.incrementAndGet();
        registeredSendsOutstanding.incrementAndGet();
        tapped(Tapped.Kind.SEND, message, message.readableBytes(), invalidateStag);
        return post(invalidateStag, region.sge()).whenComplete((c, e) -> {
            registeredSendsOutstanding.decrementAndGet();
            region.close();
            message.release();
        });
    }

    private CompletableFuture<Void> post(OptionalInt invalidateStag, ScatterGatherElement sge) {
        long id = nextId.getAndIncrement();
        return post(id, invalidateStag.isPresent()
                ? SendWorkRequest.sendWithInvalidate(id, invalidateStag.getAsInt(), sge)
                : SendWorkRequest.send(id, sge));
    }

    /** Sends that found no free slot and were registered on their own (diagnostics, tests). */
    public long sendsRegistered() {
        return sendsRegistered.get();
    }

    /**
     * Where this connection's RDMA Reads and the peer's RDMA Writes into a Requester's chunks land
     * (released with the connection).
     */
    ReadSinks readSinks() {
        return readSinks;
    }

    /** Buffers this connection keeps for RDMA data to land in (diagnostics, tests). */
    public int keptDataBuffers() {
        return readSinks.kept();
    }

    /** Sends registered on their own and not yet completed (diagnostics, tests). */
    public int registeredSendsOutstanding() {
        return registeredSendsOutstanding.get();
    }

    /** Send slots free now (diagnostics, tests). */
    public int freeSendSlots() {
        return sendSlots.freeSlots();
    }

    /** The most octets one RDMA Write work request carries: 1 MiB. */
    static final int WRITE_PIECE = 1 << 20;

    /**
     * RDMA Writes {@code length} octets of {@code source} from {@code offset} into {@code target}'s
     * segments, in order. Each Write stays inside its segment (never more than the segment's length
     * from its offset) and nothing goes past the last one: only memory the Requester offered is
     * written (RPC-R-081).
     */
    public CompletableFuture<Void> write(MemoryRegion source, long offset, long length, List<RdmaSegment> target) {
        CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
        java.util.List<CompletableFuture<Void>> all = new java.util.ArrayList<>();
        long done = 0;
        for (RdmaSegment s : target) {
            if (done >= length) {
                break;
            }
            int n = (int) Math.min(s.length(), length - done);
            tapped(Tapped.Kind.RDMA_WRITE, null, n, OptionalInt.of(s.handle()));
            // At most WRITE_PIECE octets a work request: the reply send bound counts completions,
            // and a Requester's segment may be 16 MiB (the wire carries the same octets either way).
            for (int at = 0; at < n; at += WRITE_PIECE) {
                int piece = Math.min(WRITE_PIECE, n - at);
                long id = nextId.getAndIncrement();
                all.add(post(id, SendWorkRequest.rdmaWrite(id, s.handle(), s.offset() + at,
                        source.sge(offset + done + at, piece))));
            }
            done += n;
        }
        if (all.size() == 1) {
            // one segment (a 1 MiB NFS READ's Write chunk): its own future, failing the same way
            // (post's CompletionException is what allOf would pass on), without the allOf tree
            return all.get(0);
        }
        return all.isEmpty() ? last : CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
    }

    /**
     * RDMA Reads every segment of {@code source}, one after the other, into {@code sink} from
     * {@code offset}: exactly the segments offered, each from its offset for its length (RPC-R-082).
     */
    public CompletableFuture<Void> read(List<RdmaSegment> source, MemoryRegion sink, long offset) {
        if (source.size() == 1) {
            // One segment (a 1 MiB NFS WRITE's Read chunk): its own future, without the list and
            // the allOf tree; it fails the same way (post's CompletionException, which allOf passes on).
            RdmaSegment s = source.get(0);
            return bounded(readSegment(s, sink, offset), s.length());
        }
        java.util.List<CompletableFuture<Void>> all = new java.util.ArrayList<>();
        long at = offset;
        for (RdmaSegment s : source) {
            all.add(readSegment(s, sink, at));
            at += s.length();
        }
        return bounded(CompletableFuture.allOf(all.toArray(new CompletableFuture[0])), at - offset);
    }

    private CompletableFuture<Void> readSegment(RdmaSegment s, MemoryRegion sink, long at) {
        tapped(Tapped.Kind.RDMA_READ, null, s.length(), OptionalInt.of(s.handle()));
        long id = nextId.getAndIncrement();
        return post(id, SendWorkRequest.rdmaRead(id, s.handle(), s.offset(), sink.sge(at, (int) s.length())));
    }

    /**
     * Reads the peer has not answered within the RDMA Read timeout fail, and the connection is
     * aborted: RFC 8166 offers no way to ask again on it, and the Read Request cannot be taken back.
     * The returned future completes only after the queue pair flushed the Reads (its connection is
     * gone by then), so that a caller may release the sink memory: a late Read Response can no
     * longer be placed in it.
     */
    private CompletableFuture<Void> bounded(CompletableFuture<Void> reads, long octets) {
        ReadDeadline deadline = new ReadDeadline(reads, octets);
        deadline.timer = LimitTimers.TIMER.newTimeout(deadline, readTimeoutNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        return reads.handle(deadline);
    }

    /**
     * The deadline of one RDMA Read (or of the Reads of one chunk): the timer's task, and what the
     * Reads' outcome goes through once they complete. One object per Read where a flag, a timer
     * lambda and a completion lambda were three (per 1 MiB NFS WRITE). The flag (this
     * AtomicBoolean) is set once, by whichever comes first for a Read not yet answered: the timer.
     */
    @SuppressWarnings("serial") // never serialized: only its compare-and-set is used
    private final class ReadDeadline extends AtomicBoolean
            implements io.netty.util.TimerTask, java.util.function.BiFunction<Void, Throwable, Void> {
        private final CompletableFuture<Void> reads;
        private final long octets;
        /** Set right after scheduling, before the completion is attached (so it is set when that runs). */
        volatile io.netty.util.Timeout timer;

        ReadDeadline(CompletableFuture<Void> reads, long octets) {
            this.reads = reads;
            this.octets = octets;
        }

        @Override
        public void run(io.netty.util.Timeout t) {
            if (!reads.isDone() && compareAndSet(false, true)) {
                readsTimedOut.incrementAndGet();
                log.debug("RDMA Read of {} octets on {} not answered within {} ms; aborting the connection", octets,
                        qp, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos));
                qp.abort();
            }
        }

        @Override
        public Void apply(Void v, Throwable error) {
            io.netty.util.Timeout t = timer;
            if (t != null) {
                t.cancel();
            }
            if (get()) {
                throw new java.util.concurrent.CompletionException(new RpcTransportException("RDMA Read of " + octets
                        + " octets not answered within " + java.time.Duration.ofNanos(readTimeoutNanos)
                        + "; connection aborted"));
            }
            if (error != null) {
                throw error instanceof java.util.concurrent.CompletionException c ? c
                        : new java.util.concurrent.CompletionException(error);
            }
            return null;
        }
    }

    /** RDMA Reads that were not answered in time (each aborted the connection). */
    public long readsTimedOut() {
        return readsTimedOut.get();
    }

    /** Work requests posted and not yet completed. */
    public int outstandingWork() {
        return pending.size();
    }

    /** When something was last received or a posted work request last completed ({@link System#nanoTime()}). */
    public long lastActivityNanos() {
        return lastActivityNanos;
    }

    /**
     * When this end's Sends and RDMA Writes last made progress ({@link System#nanoTime()}): one
     * completed, or one was posted while none was outstanding. Each completes once the
     * connection's socket took all its octets, so with some outstanding an old value means the
     * peer reads nothing. RDMA Reads do not count (their bound is the RDMA Read timeout).
     */
    public long sendProgressNanos() {
        return sendProgressNanos;
    }

    /** Sends and RDMA Writes posted and not yet completed. */
    public int sendsOutstanding() {
        return sendsOutstanding.get();
    }

    /** Counts as activity now (e.g. the connection was just established). */
    void active() {
        lastActivityNanos = System.nanoTime();
    }

    /** Closes the connection at once; outstanding work completes as flushed (see {@link QueuePair#abort()}). */
    public CompletableFuture<QueuePair> abort() {
        return qp.abort();
    }

    /** Invalidates one of this end's STags after the work posted before it (RFC 8166 §4.4.1 fencing). */
    public CompletableFuture<Void> invalidate(int stag) {
        long id = nextId.getAndIncrement();
        return post(id, SendWorkRequest.localInvalidate(id, stag));
    }

    private CompletableFuture<Void> post(long id, SendWorkRequest wr) {
        CompletableFuture<WorkCompletion> done = new CompletableFuture<>();
        boolean carries = wr.kind() != SendWorkRequest.Kind.RDMA_READ && wr.kind() != SendWorkRequest.Kind.LOCAL_INVALIDATE;
        if (carries && sendsOutstanding.getAndIncrement() == 0) {
            sendProgressNanos = System.nanoTime(); // nothing was waiting: the clock starts now
        }
        pending.put(id, done);
        if (closed.get()) {
            pending.remove(id);
            if (carries) {
                sendsOutstanding.decrementAndGet();
            }
            return CompletableFuture.failedFuture(new RpcTransportException("connection closed"));
        }
        try {
            qp.postSend(wr);
        } catch (RuntimeException e) {
            pending.remove(id);
            if (carries) {
                sendsOutstanding.decrementAndGet();
            }
            return CompletableFuture.failedFuture(new RpcTransportException("cannot post " + wr.kind() + ": "
                    + e.getMessage(), e));
        }
        return done.thenApply(c -> {
            if (!c.isSuccess()) {
                throw new java.util.concurrent.CompletionException(new RdmaOperationException(wr.kind(), c.status(),
                        c.terminateReason() == null ? null : c.terminateReason().toString()));
            }
            return null;
        });
    }

    private void sendCompleted(WorkCompletion c) {
        long now = System.nanoTime();
        lastActivityNanos = now;
        if (c.opcode() == WorkCompletionOpcode.SEND || c.opcode() == WorkCompletionOpcode.RDMA_WRITE) {
            sendProgressNanos = now;
            sendsOutstanding.decrementAndGet();
        }
        CompletableFuture<WorkCompletion> f = pending.remove(c.workRequestId());
        if (f != null) {
            f.complete(c);
        }
    }

    private void received(WorkCompletion c) {
        if (!c.isSuccess() || closed.get()) {
            return; // flushed when the connection ends
        }
        lastActivityNanos = System.nanoTime();
        int slot = (int) c.workRequestId();
        ByteBuf copy = PooledByteBufAllocator.DEFAULT.heapBuffer(c.byteLength());
        copy.writeBytes(receiveMemory, slot * receiveSize, c.byteLength());
        if (!closed.get()) {
            try {
                postReceive(slot);
            } catch (RuntimeException e) {
                log.debug("receive slot {} not reposted: {}", slot, e.getMessage());
            }
        }
        tapped(Tapped.Kind.RECEIVE, copy, copy.readableBytes(), c.invalidatedStag());
        try {
            handler.accept(new Received(copy, c.invalidatedStag()));
        } catch (RuntimeException e) {
            log.warn("message handler failed; closing the connection", e);
            close();
        }
    }

    private void postReceive(int slot) {
        qp.postReceive(new ReceiveWorkRequest(slot, receiveRegion.sge((long) slot * receiveSize, receiveSize)));
    }

    /** Closes the connection (gracefully: posted sends finish first). */
    public CompletableFuture<QueuePair> close() {
        return qp.close();
    }

    private void closedDown() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RpcTransportException lost = new RpcTransportException("RPC-over-RDMA connection lost");
        for (Long id : List.copyOf(pending.keySet())) {
            CompletableFuture<WorkCompletion> f = pending.remove(id);
            if (f != null) {
                f.completeExceptionally(lost);
            }
        }
        receiveRegion.close();
        receiveMemory.release();
        sendSlots.close();
        readSinks.close();
    }
}
