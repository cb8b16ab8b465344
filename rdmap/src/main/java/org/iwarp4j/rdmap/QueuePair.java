package org.iwarp4j.rdmap;

import io.netty.buffer.ByteBuf;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.DdpMeters;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.internal.qp.EngineMeters;
import org.iwarp4j.rdmap.internal.qp.LogRateLimit;
import org.iwarp4j.rdmap.internal.qp.QueuePairEngine;
import org.iwarp4j.rdmap.internal.qp.QueuePairPort;
import org.iwarp4j.rdmap.internal.qp.WorkCommand;
import org.iwarp4j.rdmap.internal.qp.WorkQueue;

/**
 * A queue pair (RFC 5040 §2.1 "Stream", ibv_qp): a send queue and a receive queue bound to one
 * TCP connection. Create it with {@link Rnic#createQueuePair}, post receives, then {@link
 * #connect} it (active side) or hand it to a {@link ConnectionRequest} (passive side).
 *
 * <p>{@link #postSend} and {@link #postReceive} may be called from any thread; the work goes to the
 * connection's event loop, where all queue pair state lives, and many posts cost one wake-up.
 * Posting more than the queue depths allow throws {@link IllegalStateException} (like
 * ibv_post_send's ENOMEM); work posted before the connection is up waits for it.
 *
 * <p>The connection's side lives in {@code org.iwarp4j.rdmap.internal.qp}; this class only queues
 * work for it and keeps the state every thread may read.
 */
public final class QueuePair {

    /** Why a queue pair that signals per request may find its send queue full for good. */
    static final String UNSIGNALLED_SLOTS = "; the slots of unsignalled requests are given back only when a later"
            + " request completes: signal at least one in every send queue depth";

    private final Rnic rnic;
    private final QueuePairSettings settings;
    private final int number;
    /** This queue pair's RDMAP/DDP stream, for regions bound to it ({@link #register}). */
    private final long streamId;
    private final WorkQueue workQueue = new WorkQueue();
    private final AtomicInteger outstandingSends = new AtomicInteger();
    private final AtomicInteger outstandingReceives = new AtomicInteger();
    /** For receives counted in {@link #outstandingReceives} that a failed post did not post. */
    private final java.util.function.IntConsumer giveBackReceiveSlots = n -> outstandingReceives.addAndGet(-n);
    private final Port port = new Port();
    private final CompletableFuture<QueuePair> established = new CompletableFuture<>();
    private final CompletableFuture<QueuePair> closed = new CompletableFuture<>();
    private volatile QueuePairState state = QueuePairState.IDLE;
    /**
     * Set by {@link #close()} and {@link #abort()} on the caller's thread, before their command is
     * queued: from then on a post is accepted whatever the state, and the close flushes it ({@link
     * #checkPostable}). Set first, so that a post that sees the state the close's command left on
     * the event loop (CLOSING, then ERROR) sees this too.
     */
    private volatile boolean closeRequested;
    /**
     * Who took this queue pair out of IDLE: one compare-and-set shared by {@link #connect}, a
     * listener's accept and {@link #close()}/{@link #abort()}, so that a queue pair runs at most
     * one connection and none after it was closed.
     */
    private final AtomicReference<Use> use = new AtomicReference<>(Use.UNUSED);

    /** What took the queue pair out of IDLE ({@link #use}). */
    private enum Use { UNUSED, CONNECTION, CLOSED_UNUSED }
    private volatile NegotiatedParameters negotiated;
    private volatile TerminateReason terminateReason;
    private volatile boolean terminateReceived;
    private volatile OptionalInt terminatedStag = OptionalInt.empty();
    private volatile boolean terminateWithheld;
    private volatile Throwable failureCause;

    QueuePair(Rnic rnic, QueuePairSettings settings, int number) {
        this.rnic = rnic;
        this.settings = settings;
        this.number = number;
        this.streamId = rnic.stagTable().newStreamId();
    }

    /**
     * Registers {@code memory}'s readable octets in this queue pair's protection domain, bound to
     * this queue pair alone (RFC 5041 §8.2, RFC 5040 §8.1.1 item 7): the peer of this queue pair may
     * write, read and remotely invalidate it as {@code access} allows, and no other connection
     * can, not even one in the same protection domain (a Write there fails as "STag not associated
     * with the stream", a Send with Invalidate is answered with Terminate RDMAP / remote protection
     * error / "STag cannot be invalidated"). Local work requests of any queue pair of the domain
     * may still use it, as the Data Sink of an RDMA Read too: the Read Response, checked against
     * the Read it answers (RFC 5040 §5.2.2, RDMAP-R-018), is placed there whichever queue pair of
     * the domain posted the Read. Use it for memory that serves one connection, such as an RPC's chunks;
     * {@link ProtectionDomain#register} makes a region every queue pair of the domain serves,
     * which for that reason a peer can never invalidate remotely.
     */
    public MemoryRegion register(ByteBuf memory, Set<Access> access) {
        return settings.protectionDomain().register(memory, access, streamId, this);
    }

    long streamId() {
        return streamId;
    }

    /**
     * Connects to a listening peer; completes when the queue pair can send (state RTS). If the
     * connection never gets there (TCP connect refused or timed out, MPA reject or startup
     * failure), the future fails, the connection is closed and the work posted before completes as
     * flushed (RFC 5040 §6.2.1, RDMAP-R-035). An unresolved address
     * ({@link java.net.InetSocketAddress#createUnresolved}) is resolved on the calling thread
     * first; a name that does not resolve fails the future with the resolver's
     * {@link java.net.UnknownHostException}.
     *
     * @throws IllegalStateException if this queue pair was already connected, accepted by a
     *         listener or closed (a queue pair runs one connection; it stays as it is)
     */
    public CompletableFuture<QueuePair> connect(SocketAddress remote) {
        if (!claimForConnection()) {
            throw new IllegalStateException("queue pair " + number + " is " + state
                    + " and was already connected, accepted or closed: a queue pair runs one connection;"
                    + " create a new one");
        }
        rnic.connect(this, remote);
        return established;
    }

    /**
     * Takes this queue pair from IDLE for a connection (connect, or a listener's accept): {@code
     * false} if it was already taken for one or closed. Exactly one caller ever gets {@code true}.
     */
    boolean claimForConnection() {
        return use.compareAndSet(Use.UNUSED, Use.CONNECTION);
    }

    /** Completes when the connection reaches RTS, or exceptionally if it never does. */
    public CompletableFuture<QueuePair> established() {
        return established;
    }

    /** Completes when the queue pair has reached ERROR and its connection is closed. */
    public CompletableFuture<QueuePair> closeFuture() {
        return closed;
    }

    public QueuePairState state() {
        return state;
    }

    /** A number unique within the RNIC, for logs. */
    public int number() {
        return number;
    }

    public QueuePairSettings settings() {
        return settings;
    }

    /** What MPA negotiated (revision, CRC, markers, MULPDU, IRD/ORD, peer's private data), once connected. */
    public NegotiatedParameters negotiated() {
        return negotiated;
    }

    /**
     * Why this queue pair was terminated: the Terminate sent or received, or the one that was due
     * but could not be sent ({@link #terminateWithheld()}); {@code null} if none.
     */
    public TerminateReason terminateReason() {
        return terminateReason;
    }

    /**
     * {@code true} if {@link #terminateReason()} came in a Terminate from the peer (its RNIC found
     * the error, e.g. in an RDMA Write or Read Request this end sent), {@code false} if this end sent
     * the Terminate or there was none. Upper layers need the direction to know whose operation failed.
     * A Terminate from the peer that is itself invalid (on a wrong queue, MSN not 1 or MO not 0, too
     * long) counts as received too, and is never answered (RFC 5040 §5.4, §7.1, RDMAP-R-029): its
     * reason is what the peer wrote where it could be read, and {@link #failureCause()} says what was
     * wrong with it.
     */
    public boolean terminateReceived() {
        return terminateReceived;
    }

    /**
     * For a Terminate received from the peer that echoes the message it refused (RFC 5040 §4.8,
     * Terminated DDP Header and Terminated RDMA Header): the STag of the peer's memory that message
     * named, i.e. the STag of a tagged segment (an RDMA Write or Read Response this end sent) or the
     * Data Source STag of an RDMA Read Request. Empty if this end sent the Terminate, or the peer
     * echoed neither header. Upper layers use it to find which of their operations failed.
     */
    public OptionalInt terminatedStag() {
        return terminatedStag;
    }

    /**
     * {@code true} if a fatal error called for a Terminate ({@link #terminateReason()}) that was
     * never put on the wire because MPA forbade sending: as Responder, before the Initiator's
     * first FPDU has arrived intact nothing may be sent (RFC 5044 §7.1.2, MPA-R-061), and after an
     * MPA error in that FPDU none ever will. The connection was closed at once instead.
     */
    public boolean terminateWithheld() {
        return terminateWithheld;
    }

    /**
     * The local failure that ended this queue pair without a Terminate, the first one seen: an
     * exception in its connection's pipeline (its {@code toString()} names the class and message),
     * an IOException reading "connection closed by the peer mid-FPDU" whose cause is MPA's {@code
     * CONNECTION_LOST} error (RFC 5044 §8 code 1, for which no Terminate is sent), or the cause of
     * a failed write ("connection closed under a pending write" when the connection closed under
     * it), or, when the connection ended with sends outstanding and nothing else failed first,
     * "connection closed with work outstanding, not by this queue pair", or, for a connection that
     * never reached RTS, why (the TCP connect's failure, an {@code MpaRejectedException}, MPA's
     * startup timeout: the cause {@link #established()} failed with); or a completion queue
     * overrun, an IllegalStateException reading "completion queue overrun, capacity N" (a failure
     * that is also sent to the peer: a Terminate, RDMAP Local Catastrophic Error, which {@link
     * #terminateReason()} then names); or a placement or Read Response this end could not make, a
     * {@code DdpException} saying why (registered memory released, resized or reallocated since its
     * registration, see {@link MemoryRegion}; a posted receive whose region went away), also sent to
     * the peer as a Terminate, DDP or RDMAP Local Catastrophic; or, beside a Terminate received
     * that was itself invalid, an IOException reading "invalid Terminate from the peer, not
     * answered" and why ({@link #terminateReceived()}); {@code null} if none.
     * Every completion failed after it carries it too ({@link WorkCompletion#failureCause()}).
     */
    public Throwable failureCause() {
        return failureCause;
    }

    /**
     * Posts send-queue work; each request produces one completion on the send completion queue,
     * except an unsignalled one that succeeds on a queue pair that signals per request ({@link
     * QueuePairSettings.Builder#signalAllSends}). A request's slot is taken until its completion,
     * or for an unsignalled one a later request's completion, reaches the completion queue.
     *
     * <p>An RDMA Read needs an ORD of at least 1: on a connection whose negotiated ORD is 0 (the
     * peer's IRD was 0, or {@code MpaSettings.ord(0)}) no Read may ever be outstanding. Posted
     * once the connection is up, it is refused here; posted before, it completes at once with
     * {@link WorkCompletionStatus#LOCAL_PROTECTION_ERROR} when the connection comes up, and the
     * work after it goes on.
     *
     * <p>Once {@link #close()} or {@link #abort()} has been called, what is posted is not carried
     * out: it completes {@link WorkCompletionStatus#FLUSHED} (RFC 5040 §6.2.1), after the requests
     * posted before the close, whether the close has reached the connection's event loop yet or
     * not, and also once the queue pair has closed down, as libibverbs providers flush work posted
     * to a queue pair in the error state (Linux siw: {@code siw_sq_flush_wr}). Posting then throws
     * only for a full queue. A post made while {@code close()} runs on another thread may go
     * either way. (A queue pair closed before it ever connected is the exception: see below.)
     *
     * @throws NullPointerException if a request is {@code null} (none is posted)
     * @throws IllegalStateException if the requests do not fit in the send queue (none is posted),
     *         or the queue pair is past RTS and neither {@link #close()} nor {@link #abort()} was
     *         called (it failed, or the peer ended the connection), or it was closed before it ever
     *         connected, or a request is an RDMA Read and the negotiated ORD is 0 (none is posted)
     */
    public void postSend(SendWorkRequest... requests) {
        // Refused here, not in the event loop's drain, where it would stop the commands behind it.
        NegotiatedParameters n = negotiated;
        boolean noReads = n != null && n.ord() == 0;
        for (SendWorkRequest r : requests) {
            Objects.requireNonNull(r, "request");
            if (noReads && r.kind() == SendWorkRequest.Kind.RDMA_READ) {
                // As ibv_post_send fails a Read on siw with ORD 0 (EINVAL): it could never be sent.
                throw new IllegalStateException("queue pair " + number + " negotiated ORD 0: it may send no RDMA"
                        + " Read (the peer's IRD or this end's ORD was 0, RFC 6581 §9.1)");
            }
        }
        checkPostable();
        if (outstandingSends.addAndGet(requests.length) > settings.sendQueueDepth()) {
            outstandingSends.addAndGet(-requests.length);
            throw new IllegalStateException("send queue full (depth " + settings.sendQueueDepth() + ")"
                    + (settings.signalAllSends() ? "" : UNSIGNALLED_SLOTS));
        }
        List<WorkCommand> batch = new ArrayList<>(requests.length);
        for (SendWorkRequest r : requests) {
            batch.add(new WorkCommand.PostSend(r));
        }
        workQueue.enqueueAll(batch);
    }

    /**
     * Posts receive buffers; each Send from the peer consumes one, in posting order. Posted on the
     * connection's event loop (from a {@link CompletionQueue#setListener listener}), a receive
     * takes effect before this returns, unless receives posted from other threads, or a {@link
     * #close()} or {@link #abort()}, still wait (a receive posted after a close or abort was asked
     * for is flushed by it).
     *
     * <p>Once {@link #close()} or {@link #abort()} has been called, a receive posted is never
     * filled: it completes {@link WorkCompletionStatus#FLUSHED} with the close's flush, after the
     * receives posted before the close, even while an orderly close still waits for its last Read
     * Responses and the peer's Sends still fill those earlier receives (a Send that finds none of
     * them gets the usual Terminate, DDP "no buffer available"). As for {@link #postSend}, posting
     * then throws only for a full queue. A completion queue listener that reposts should do so
     * for successful completions only: what it posts in reply to a FLUSHED completion is flushed
     * too, and so on for as long as it goes on (with any verbs provider).
     *
     * <p>If this throws, none of {@code requests} is posted, except when posting one on the event
     * loop fails inside the engine: then the requests before it stay posted and complete as usual,
     * and the slots of the others are given back.
     *
     * @throws NullPointerException if a request is {@code null} (none is posted)
     * @throws IllegalStateException if the requests do not fit in the receive queue (none is
     *         posted), or the queue pair is past RTS and neither {@link #close()} nor {@link
     *         #abort()} was called, or it was closed before it ever connected
     */
    public void postReceive(ReceiveWorkRequest... requests) {
        for (ReceiveWorkRequest r : requests) {
            Objects.requireNonNull(r, "request");
        }
        checkPostable();
        if (outstandingReceives.addAndGet(requests.length) > settings.receiveQueueDepth()) {
            outstandingReceives.addAndGet(-requests.length);
            throw new IllegalStateException("receive queue full (depth " + settings.receiveQueueDepth() + ")");
        }
        workQueue.postReceives(requests, giveBackReceiveSlots);
    }

    /**
     * Orderly close (RFC 5040 §6.2 ULP graceful termination): posted sends finish, the Read
     * Responses to the peer's RDMA Reads under way are written (for at most {@link
     * QueuePairSettings#closeLinger()}, RDMAP-R-034), then TCP is closed; posted receives complete
     * as flushed. Work posted after this call is not carried out: it completes as flushed
     * ({@link #postSend}, {@link #postReceive}). Before any {@link #connect} or accept, everything
     * posted completes as flushed at once, and the queue pair can no longer be connected or
     * accepted (nor posted to); during the connection's startup the close waits for it (state
     * CLOSING), so the work posted before goes out first.
     */
    public CompletableFuture<QueuePair> close() {
        closeRequested = true;
        if (!endIfUnused()) {
            workQueue.enqueue(new WorkCommand.CloseGracefully());
        }
        return closed;
    }

    /**
     * Abortive close: TCP is closed at once, without waiting for posted work; every outstanding
     * and posted request completes as flushed, and so does work posted after this call. For a
     * peer that stopped answering (an RDMA Read Request it never responds to keeps {@link #close()}
     * waiting forever).
     */
    public CompletableFuture<QueuePair> abort() {
        closeRequested = true;
        if (!endIfUnused()) {
            workQueue.enqueue(new WorkCommand.Abort());
        }
        return closed;
    }

    /**
     * Ends a queue pair that was never taken for a connection, and returns {@code true}: what was
     * posted completes as flushed at once, and no connect or accept can take it afterwards.
     * {@code false} once a connection took it: its engine (or, if it never got one, {@link
     * #endWithoutEngine}) closes it down.
     */
    private boolean endIfUnused() {
        if (!use.compareAndSet(Use.UNUSED, Use.CLOSED_UNUSED) && use.get() != Use.CLOSED_UNUSED) {
            return false;
        }
        endWithoutEngine();
        return true;
    }

    /**
     * Whether work may be posted now: in IDLE and RTS; and, once {@link #close()} or {@link
     * #abort()} was called, in any state, because the close flushes it (the engine flushes what is
     * queued behind its command, after it has run too). A completion queue listener that reposts
     * while the close runs thus gets a FLUSHED completion, not an exception that failed the queue
     * pair and cut the orderly close short. Not for a queue pair that ended without ever running
     * a connection ({@link WorkQueue#endedUnbound()}): closed down before {@code close()} returned,
     * it flushes on the caller's thread, where a listener that reposted each flushed receive would
     * recurse.
     */
    private void checkPostable() {
        if (closeRequested && !workQueue.endedUnbound()) {
            return;
        }
        QueuePairState s = state;
        if (s != QueuePairState.IDLE && s != QueuePairState.RTS) {
            throw new IllegalStateException("queue pair " + number + " is " + s + "; nothing can be posted");
        }
    }

    /** The handler that runs this queue pair on its connection, after MPA's in the pipeline. */
    QueuePairEngine newEngine() {
        return new QueuePairEngine(port);
    }

    void failedToEstablish(Throwable cause) {
        // Work posted before connect is flushed with it (the TCP connect's failure, the MPA
        // reject): the reason the connection never came. A Terminate, if one was due, says it instead.
        if (terminateReason == null) {
            port.failed(cause);
        }
        moveTo(QueuePairState.ERROR);
        established.completeExceptionally(cause);
    }

    /** Whether an engine was bound to this queue pair's work queue (its channel was initialised). */
    boolean hasEngine() {
        return workQueue.isBound();
    }

    /**
     * A queue pair that no engine will ever run (closed unused, or a connect that never got its
     * channel initialised): what was posted, and what a post racing this still queues, completes
     * as flushed (RFC 5040 §6.2.1, RDMAP-R-035).
     */
    void endWithoutEngine() {
        moveTo(QueuePairState.ERROR);
        workQueue.flushUnbound(port);
        closedDown();
    }

    void moveTo(QueuePairState next) {
        state = next;
    }

    void closedDown() {
        moveTo(QueuePairState.ERROR);
        if (!established.isDone()) {
            established.completeExceptionally(new java.nio.channels.ClosedChannelException());
        }
        closed.complete(this);
    }

    Rnic rnic() {
        return rnic;
    }

    /** The engine's view of this queue pair (see {@link QueuePairPort}). */
    private final class Port implements QueuePairPort {
        @Override
        public QueuePair queuePair() {
            return QueuePair.this;
        }

        @Override
        public QueuePairSettings settings() {
            return settings;
        }

        @Override
        public StagTable stagTable() {
            return rnic.stagTable();
        }

        @Override
        public long streamId() {
            return streamId;
        }

        @Override
        public EngineMeters meters() {
            return rnic.meters();
        }

        @Override
        public LogRateLimit failureLogLimit() {
            return rnic.failureLogLimit();
        }

        @Override
        public DdpMeters ddpMeters() {
            return rnic.ddpMeters();
        }

        @Override
        public WorkQueue workQueue() {
            return workQueue;
        }

        @Override
        public boolean complete(Queue queue, int slots, long workRequestId, WorkCompletionOpcode opcode,
                             WorkCompletionStatus status, int byteLength, boolean solicitedEvent,
                             Integer invalidatedStag, TerminateReason reason) {
            CompletionQueue cq;
            if (queue == Queue.SEND) {
                outstandingSends.addAndGet(-slots);
                cq = settings.sendCompletionQueue();
            } else {
                outstandingReceives.addAndGet(-slots);
                cq = settings.receiveCompletionQueue();
            }
            WorkCompletion completion = new WorkCompletion(workRequestId, opcode, status, byteLength, solicitedEvent,
                    invalidatedStag, reason, status == WorkCompletionStatus.SUCCESS ? null : failureCause,
                    QueuePair.this);
            rnic.meters().completed(completion);
            // An overrun is the engine's to handle: it fails the queue pair (Completions).
            return cq.complete(completion, workQueue.executor());
        }

        @Override
        public QueuePairState state() {
            return state;
        }

        @Override
        public void moveTo(QueuePairState next) {
            QueuePair.this.moveTo(next);
        }

        @Override
        public void established(NegotiatedParameters parameters) {
            negotiated = parameters;
            // Only from IDLE: a close asked for while connecting (CLOSING) or a failure stays.
            if (state == QueuePairState.IDLE) {
                QueuePair.this.moveTo(QueuePairState.RTS);
            }
            workQueue.drainNow();
            established.complete(QueuePair.this);
        }

        @Override
        public void failedToEstablish(Throwable cause) {
            QueuePair.this.failedToEstablish(cause);
        }

        @Override
        public void terminated(TerminateReason reason, boolean received, OptionalInt stag) {
            if (terminateReason == null) {
                terminateReceived = received;
                terminatedStag = stag;
                terminateReason = reason;
            }
        }

        @Override
        public TerminateReason terminateReason() {
            return terminateReason;
        }

        @Override
        public void failed(Throwable cause) {
            if (failureCause == null) {
                failureCause = cause;
            }
        }

        @Override
        public void withheldTerminate() {
            terminateWithheld = true;
        }

        @Override
        public void closedDown() {
            QueuePair.this.closedDown();
        }
    }

    @Override
    public String toString() {
        return "QueuePair{" + number + ", " + state + '}';
    }
}
