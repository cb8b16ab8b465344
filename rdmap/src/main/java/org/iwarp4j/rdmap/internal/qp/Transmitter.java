package org.iwarp4j.rdmap.internal.qp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.ArrayDeque;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.DdpSegmenter;
import org.iwarp4j.ddp.MsnSequence;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.mpa.OutboundUlpdu;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.ScatterGatherElement;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletionOpcode;
import org.iwarp4j.rdmap.WorkCompletionStatus;
import org.iwarp4j.rdmap.internal.wire.RdmapControl;
import org.iwarp4j.rdmap.internal.wire.RdmapOpcode;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;

/**
 * The send side of one queue pair (siw_qp_tx), on its event loop: turns send work requests into DDP segments
 * (RFC 5040 §5, RFC 5041 §5.2), keeps RDMA Reads within ORD (RFC 6581 §9.1; the excess waits
 * here, MPA2-R-007), places Read Responses, and completes work in posting order (RFC 5040 §5.5
 * #15, RDMAP-R-031). Payloads are retained slices of registered memory: nothing is copied.
 *
 * <p>A Local Invalidate takes effect in that order too: when it reaches the head of the send
 * queue, that is once every request posted before it has completed, an RDMA Read's response
 * placed included ({@link SendWorkRequest#localInvalidate}). Until then the region serves those
 * requests, and a request posted after it finds the region invalid, as in queue order it is.
 */
final class Transmitter {

    /**
     * The STag of every zero-length tagged message we originate: the Write RTR, both STags of the
     * Read RTR and the wake-up Write. RFC 5041 §5.2 and RFC 5040 §5.2.1 say a receiver does not
     * check them, but hardware peers are not all that lenient with 0: Linux siw sends 1 for this
     * reason ({@code siw_qp_mpa_rts}: "some HW may treat STag 0 special"), and Intel irdma's own
     * Read RTR carries non-zero STags ({@code irdma_sc_send_rtt}); Chelsio T5/T6 were reported
     * to fail an inbound zero-length tagged message with STag 0 (zrlio/softiwarp#21; see
     * docs/interop.md). 1 is what siw sends to all of them, and we check no STag of a zero-length
     * tagged message either.
     */
    static final int ZERO_LENGTH_STAG = 1;

    /** Messages between two looks at the connection's MSS, when MULPDU follows it (a system call each). */
    private static final int MSS_CHECK_INTERVAL = 16;

    private final QueuePairPort port;
    private final Completions completions;
    private final ProtectionDomain protectionDomain;
    private final ChannelHandlerContext ctx;
    private final MsnSequence sendMsn = new MsnSequence();
    private final MsnSequence readMsn = new MsnSequence();
    private final ArrayDeque<SendEntry> inOrder = new ArrayDeque<>();
    private final ArrayDeque<OutstandingRead> outstandingReads = new ArrayDeque<>();
    private final ArrayDeque<SendEntry> readsWaitingForOrd = new ArrayDeque<>();
    /** Posted before Full Operation: carried out, or completed if already done ({@link #postFlushed}), at the start. */
    private final ArrayDeque<SendEntry> beforeStart = new ArrayDeque<>();
    /** Posted requests taken into a queue so far ({@link #postsTaken}). */
    private long postsTaken;
    /** Local Invalidates in {@link #inOrder} not yet done, waiting for the requests before them. */
    private int invalidationsWaiting;
    /** A Read Response made as the socket takes it, and whatever was given after it. */
    private final UnsentMessages unsent;
    private final Runnable onIdle;
    private final Runnable onFirstMessage;
    private final java.util.function.Consumer<Throwable> onWriteFailed;
    private final java.util.function.Consumer<Throwable> onLocalFailure;
    private final EngineMeters meters;
    private NegotiatedParameters negotiated;
    private int mulpdu;
    private int untilMssCheck;
    private int ord;
    private boolean started;
    private boolean sentAny;
    /** The outcome of the last message given to the channel, or {@code null}; see {@link #lastWritten}. */
    private ChannelFuture lastWritten;

    /**
     * @param onIdle runs whenever completions leave the send queue empty (an orderly close waits for that)
     * @param onFirstMessage runs once, when the first message of Full Operation is written
     * @param onWriteFailed told the cause when a message's write fails, before its request completes
     * @param onLocalFailure fails the queue pair for an exception of this stack's while posting a
     *     request (after that request has completed), as one from the pipeline would
     */
    Transmitter(QueuePairPort port, Completions completions, ChannelHandlerContext ctx, Runnable onIdle,
                Runnable onFirstMessage, java.util.function.Consumer<Throwable> onWriteFailed,
                java.util.function.Consumer<Throwable> onLocalFailure) {
        this.port = port;
        this.completions = completions;
        this.protectionDomain = port.settings().protectionDomain();
        this.ctx = ctx;
        this.onIdle = onIdle;
        this.onFirstMessage = onFirstMessage;
        this.onWriteFailed = onWriteFailed;
        this.onLocalFailure = onLocalFailure;
        this.meters = port.meters();
        this.unsent = new UnsentMessages(ctx);
    }

    /** Full Operation: sends the RTR (first FPDU, MPA2-R-009), then whatever was posted before. */
    void start(NegotiatedParameters negotiated) {
        this.negotiated = negotiated;
        this.mulpdu = negotiated.sendMulpdu();
        this.untilMssCheck = MSS_CHECK_INTERVAL;
        this.ord = negotiated.ord();
        RtrType rtr = negotiated.rtr();
        if (rtr == RtrType.WRITE) {
            zeroLengthWrite();
        } else if (rtr == RtrType.READ) {
            // RFC 6581 §9.2 D: a zero-length Read; non-zero STags as ZERO_LENGTH_STAG says why.
            issueRead(null, new ReadRequestHeader(ZERO_LENGTH_STAG, 0, 0, ZERO_LENGTH_STAG, 0));
        } else if (rtr == RtrType.SEND) {
            ByteBuf empty = ctx.alloc().buffer(0);
            write(RdmapOpcode.SEND, DdpSegmenter.untagged(RdmapControl.encode(RdmapOpcode.SEND), 0, 0, sendMsn.next(),
                    empty, mulpdu), empty, null);
        }
        started = true;
        for (SendEntry e; (e = beforeStart.poll()) != null; ) {
            if (e.status == null) {
                inOrder.add(e);
                carryOut(e);
            } else {
                inOrder.add(e);
                completeInOrder();
            }
        }
    }

    /**
     * A zero-length RDMA Write, STag {@link #ZERO_LENGTH_STAG} and TO 0 (RFC 5041 §5.2: not
     * checked), with no work request: the Write RTR and the wake-up Write.
     */
    void zeroLengthWrite() {
        ByteBuf empty = ctx.alloc().buffer(0);
        write(RdmapOpcode.RDMA_WRITE, DdpSegmenter.tagged(RdmapControl.encode(RdmapOpcode.RDMA_WRITE),
                ZERO_LENGTH_STAG, 0, empty, mulpdu), empty, null);
    }

    void post(SendWorkRequest request) {
        SendEntry entry = new SendEntry(request);
        // In the queue before any check: an error completion keeps its place in posting order (RDMAP-R-031).
        if (take(entry)) {
            carryOut(entry);
        }
    }

    /**
     * Puts a posted request's entry at its place in posting order: held until {@link #start}, or
     * in {@link #inOrder}. Returns whether it went into {@link #inOrder}.
     */
    private boolean take(SendEntry entry) {
        (started ? inOrder : beforeStart).add(entry);
        postsTaken++;
        return started;
    }

    /**
     * How many posted requests have been taken into a send queue: from then on the queue completes
     * them, flushed if the queue pair fails. A post that threw tells by this count whether its
     * request must be completed where it failed ({@link QueuePairEngine#commandFailed}).
     */
    long postsTaken() {
        return postsTaken;
    }

    /**
     * A request posted after a close or abort was asked for: not carried out, it completes
     * FLUSHED (RFC 5040 §6.2.1) once the requests posted before it have completed, in posting
     * order as every completion (RDMAP-R-031).
     */
    void postFlushed(SendWorkRequest request) {
        SendEntry entry = new SendEntry(request);
        entry.status = WorkCompletionStatus.FLUSHED;
        if (take(entry)) {
            completeInOrder();
        }
    }

    /** Carries out {@code entry}, already at its place in {@link #inOrder}. */
    private void carryOut(SendEntry entry) {
        SendWorkRequest request = entry.request;
        refreshMulpdu();
        try {
            switch (request.kind()) {
                case SEND:
                case SEND_WITH_SOLICITED_EVENT:
                case SEND_WITH_INVALIDATE:
                case SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE:
                    sendMessage(entry, sendOpcode(request.kind()));
                    break;
                case RDMA_WRITE:
                    checkRemoteRange(request);
                    sendMessage(entry, RdmapOpcode.RDMA_WRITE);
                    break;
                case RDMA_READ:
                    startRead(entry);
                    break;
                case LOCAL_INVALIDATE:
                    invalidationsWaiting++; // done in completeInOrder, at its turn
                    break;
                default:
                    throw new IllegalStateException(request.kind().toString());
            }
        } catch (LocalWorkError e) {
            entry.done(e.status, 0);
        } catch (RuntimeException e) {
            // A failure of this stack's, not of the request: the request completes (or the ones
            // after it would wait for it forever, with its send queue slot), and the queue pair
            // fails, since a message may be half written. The work queue's drain goes on.
            entry.done(WorkCompletionStatus.FATAL, 0);
            onLocalFailure.accept(e);
        }
        completeInOrder();
    }

    /**
     * An RDMA Write must fit the peer's TO space: RFC 5041 §5.2 numbers a tagged message's octets
     * from its TO up, and one that would pass 2^64 can only be refused at the Data Sink (TO wrap,
     * RFC 5041 §7.1, which ends the stream). It is the local request that is wrong, so it completes
     * in error here, before any memory is gathered, and the queue pair carries on. The TO can come
     * from the peer (an RPC-over-RDMA Write or Reply chunk), so this is not a programming error to throw.
     */
    private static void checkRemoteRange(SendWorkRequest request) throws LocalWorkError {
        if (DdpSegmenter.wrapsTaggedOffset(request.remoteTaggedOffset(), request.length())) {
            throw new LocalWorkError(WorkCompletionStatus.LOCAL_LENGTH_ERROR);
        }
    }

    /**
     * Gathers and writes the message of a Send or an RDMA Write; the last segment's write completes
     * {@code entry}. {@link #write} releases the payload; should segmenting fail before it, it is released here.
     */
    private void sendMessage(SendEntry entry, RdmapOpcode opcode) throws LocalWorkError {
        // A Write is one tagged message to the one STag and TO the ULP got from the peer, given to
        // DDP in posting order (carryOut runs in order); the segmenter sets L on its last segment
        // only, and a zero-length Write is one empty segment (RDMAP-R-008).
        SendWorkRequest request = entry.request;
        ByteBuf payload = gather(request);
        DdpSegmenter segmenter;
        try {
            segmenter = opcode == RdmapOpcode.RDMA_WRITE
                    ? DdpSegmenter.tagged(RdmapControl.encode(opcode), request.remoteStag(),
                            request.remoteTaggedOffset(), payload, mulpdu)
                    : DdpSegmenter.untagged(RdmapControl.encode(opcode),
                            invalidates(request.kind()) ? request.remoteStag() : 0, 0, sendMsn.next(), payload, mulpdu);
        } catch (RuntimeException e) {
            payload.release();
            throw e;
        }
        write(opcode, segmenter, payload, entry);
    }

    private void startRead(SendEntry entry) throws LocalWorkError {
        ScatterGatherElement sink = entry.request.localSegments().get(0);
        checkLocal(sink, Access.LOCAL_WRITE);
        if (ord == 0) {
            // ORD 0 (the peer's IRD was 0, or this end asked for no Reads, RFC 6581 §9.1): no Read
            // Request may ever be outstanding, so the Read would wait for ORD forever and, as
            // completions are in order, hold back every completion and an orderly close behind it.
            // The connection does not grant the operation: it completes at once in error and the
            // queue pair goes on (siw fails such a post: siw_activate_tx, "We negotiated not to
            // send READ req's"). QueuePair.postSend refuses it once the ORD is known.
            throw new LocalWorkError(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
        }
        if (outstandingReads.size() >= ord) {
            readsWaitingForOrd.add(entry);
            meters.readWaitedForOrd();
            return;
        }
        issueRead(entry, readHeader(entry.request));
    }

    private static ReadRequestHeader readHeader(SendWorkRequest request) {
        ScatterGatherElement sink = request.localSegments().get(0);
        return new ReadRequestHeader(sink.region().stag(), sink.region().baseTaggedOffset() + sink.offset(),
                sink.length(), request.remoteStag(), request.remoteTaggedOffset());
    }

    private void issueRead(SendEntry entry, ReadRequestHeader header) {
        ByteBuf payload = ctx.alloc().buffer(28);
        header.encode(payload);
        outstandingReads.add(new OutstandingRead(entry, header));
        if (entry != null) { // not the Read RTR, which no work request posted
            meters.readIssued(outstandingReads.size());
        }
        write(RdmapOpcode.RDMA_READ_REQUEST, DdpSegmenter.untagged(RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST),
                0, 1, readMsn.next(), payload, mulpdu), payload, null);
    }

    /**
     * Performs a Local Invalidate whose turn has come: every request before it has completed. The
     * STag must still name a registered region of this protection domain then, valid or not: while
     * the invalidate waited for its turn the peer may have invalidated the region (a Send with
     * Invalidate), and an RPC-over-RDMA Requester, whose invalidates are fences, would close its
     * connection if that failed. Invalidating an STag that is invalid already is no error in the
     * RDMA verbs (siw's {@code siw_invalidate_stag} does not check the state either).
     */
    private void invalidateLocally(SendEntry entry) {
        invalidationsWaiting--;
        int stag = entry.request.remoteStag();
        org.iwarp4j.ddp.TaggedBuffer buffer = port.stagTable().lookupRegistered(stag);
        if (buffer == null || buffer.protectionDomain() != protectionDomain.id()) {
            entry.done(WorkCompletionStatus.LOCAL_PROTECTION_ERROR, 0);
            return;
        }
        port.stagTable().invalidate(stag);
        entry.done(WorkCompletionStatus.SUCCESS, 0);
    }

    /**
     * Whether a Local Invalidate of {@code stag} was posted and waits for its turn: in queue order
     * the STag is invalid already.
     */
    private boolean invalidationWaiting(int stag) {
        if (invalidationsWaiting == 0) {
            return false;
        }
        for (SendEntry e : inOrder) {
            if (e.status == null && e.request.kind() == SendWorkRequest.Kind.LOCAL_INVALIDATE
                    && e.request.remoteStag() == stag) {
                return true;
            }
        }
        return false;
    }

    /** The outstanding Read a Read Response belongs to (RFC 5040 §5.2.2), or {@code null}. */
    OutstandingRead currentRead() {
        return outstandingReads.peek();
    }

    /**
     * The current Read's response was refused (a Terminate with {@code reason} follows): that Read
     * completes with {@link WorkCompletionStatus#FATAL} and the reason, wherever it is in the send
     * queue, instead of being flushed as one of the work requests behind the oldest.
     */
    void failCurrentRead(TerminateReason reason) {
        OutstandingRead read = outstandingReads.peek();
        if (read != null && read.entry != null && read.entry.status == null) {
            read.entry.done(WorkCompletionStatus.FATAL, 0);
            read.entry.reason = reason;
        }
    }

    /** The last segment of the current Read Response was placed: all of the Read Message Size (RDMAP-R-019). */
    void readResponseComplete() {
        OutstandingRead read = outstandingReads.poll();
        if (read.entry != null) {
            read.entry.done(WorkCompletionStatus.SUCCESS, (int) read.header.readMessageSize());
        }
        while (!readsWaitingForOrd.isEmpty() && outstandingReads.size() < ord) {
            SendEntry next = readsWaitingForOrd.poll();
            issueRead(next, readHeader(next.request));
        }
        completeInOrder();
    }

    /**
     * Sends the Read Response for a validated Read Request; {@code source} is released after it is
     * sent (or here, should segmenting fail). The Data Sink STag and TO are the peer's, passed on
     * as they are (RFC 5040 §5.2.1, RDMAP-R-016): a sink TO + size that wraps 2^64 is the Data Sink's
     * to refuse (RFC 5041 §7.1), as RFC 5040 gives the Data Source no check and no error code for
     * it, and siw sends its TOs modulo 2^64 too ({@link DdpSegmenter#taggedModulo}).
     *
     * <p>The segments are made as the socket takes them ({@link UnsentMessages}), not all at once:
     * a peer asks for a region of any size with 52 octets, and what a response queues must not
     * grow with it. The returned future completes once the last segment is written, which is when
     * the Read Request's IRD slot is reposted (RDMAP-R-048).
     */
    ChannelFuture respondToRead(ReadRequestHeader request, ByteBuf source) {
        refreshMulpdu();
        DdpSegmenter segmenter;
        try {
            segmenter = DdpSegmenter.taggedModulo(RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE),
                    request.sinkStag(), request.sinkTaggedOffset(), source, mulpdu);
        } catch (RuntimeException e) {
            source.release();
            throw e;
        }
        if (!MpaFrameEncoder.copies(negotiated.markersToPeer(), mulpdu)) {
            // Segments MPA sends in place are slices of the region, no new memory: written at once
            // as any message. Pacing them too (a MiB past the low water mark at a time) cost RDMA
            // READ on loopback a fifth of its bandwidth (docs/performance-log.md, 2026-11-28).
            return write(RdmapOpcode.RDMA_READ_RESPONSE, segmenter, source, null);
        }
        // Copied FPDUs (small MULPDU, or markers) are fresh memory: no more than the high water
        // mark's worth.
        meters.sent(RdmapOpcode.RDMA_READ_RESPONSE);
        ChannelPromise written = ctx.newPromise();
        long limit = 0;
        unsent.add(segmenter, source, written, limit);
        lastWritten = written;
        unsent.writeWhatFits();
        messageWritten();
        return written;
    }

    /**
     * The outcome of the last message given to the channel (a Read Response still being made
     * included), {@code null} if none was: it completes once that message and every one before
     * it has been written to the socket, or failed. Messages are written in the order given, and
     * Netty completes the writes of a channel in order; MPA completes an FPDU's write with the
     * write of its last octet (its trailer, which a flush writes).
     */
    ChannelFuture lastWritten() {
        return lastWritten;
    }

    /**
     * Writes more of the unsent messages, the channel having become writable; returns whether
     * anything was written (the caller flushes).
     */
    boolean writeUnsent() {
        return unsent.writeWhatFits();
    }

    /**
     * Writes {@code terminate}, a whole Terminate ULPDU, after every message already given (as
     * before they were all written at once: a Read Response in progress ends before it); nothing
     * is given after it (RDMAP-R-027).
     */
    ChannelFuture writeTerminate(ByteBuf terminate) {
        if (unsent.isEmpty()) {
            lastWritten = ctx.write(terminate);
            return lastWritten;
        }
        ChannelPromise written = ctx.newPromise();
        unsent.add(terminate, written);
        lastWritten = written;
        unsent.writeWhatFits();
        return written;
    }

    /** The connection is gone: messages not yet written are released, their futures failed. */
    void dropUnsent(Throwable cause) {
        unsent.drop(cause);
    }

    /** DDP-R-001: segment to the LLP's current MULPDU, which grows with the TCP window when it follows the MSS. */
    private void refreshMulpdu() {
        if (negotiated.mulpduFromConnection() && --untilMssCheck <= 0) {
            untilMssCheck = MSS_CHECK_INTERVAL;
            mulpdu = negotiated.currentSendMulpdu(ctx.channel());
        }
    }

    /**
     * Writes every segment of {@code payload}'s message and releases {@code payload} (the segments
     * hold their own slices); the last segment's outcome completes {@code entry}. Behind a Read
     * Response still in progress the message waits its turn, whole (RDMAP-R-044).
     *
     * <p>With {@link #respondToRead} and {@link #writeTerminate} this is the only way this end
     * writes anything once Full Operation began: each write is one DDP segment of an RDMAP
     * message, which MPA's frame encoder turns into an FPDU, and nothing else goes on the stream
     * until it is torn down (RDMAP-R-045).
     */
    private ChannelFuture write(RdmapOpcode opcode, DdpSegmenter segmenter, ByteBuf payload, SendEntry entry) {
        meters.sent(opcode);
        ChannelFuture last = null;
        if (!unsent.isEmpty()) {
            ChannelPromise written = ctx.newPromise();
            unsent.add(segmenter, payload, written, -1);
            unsent.writeWhatFits();
            last = written;
        } else {
            try {
                while (segmenter.hasNext()) {
                    OutboundUlpdu segment = segmenter.nextUlpdu();
                    if (segmenter.hasNext()) {
                        ctx.write(segment, ctx.voidPromise());
                    } else {
                        last = ctx.write(segment);
                    }
                }
            } finally {
                payload.release();
            }
        }
        lastWritten = last;
        messageWritten();
        if (entry != null) {
            entry.messageLength = segmenter.messageLength();
            last.addListener(entry);
        }
        return last;
    }

    private void messageWritten() {
        if (!sentAny) {
            sentAny = true;
            onFirstMessage.run();
        }
    }

    private ByteBuf gather(SendWorkRequest request) throws LocalWorkError {
        if (request.localSegments().size() == 1) {
            ScatterGatherElement sge = request.localSegments().get(0);
            checkLocal(sge, null);
            return sge.region().memory().retainedSlice((int) sge.offset(), sge.length());
        }
        CompositeByteBuf payload = ctx.alloc().compositeBuffer(Math.max(2, request.localSegments().size()));
        try {
            for (ScatterGatherElement sge : request.localSegments()) {
                checkLocal(sge, null);
                payload.addComponent(true, sge.region().memory().retainedSlice((int) sge.offset(), sge.length()));
            }
        } catch (LocalWorkError | RuntimeException e) {
            payload.release(); // and the slices added so far with it
            throw e;
        }
        return payload;
    }

    /**
     * A local segment must lie in a valid region of this queue pair's protection domain, one that
     * no Local Invalidate posted before it is waiting to invalidate, whose memory is still as
     * registered: once its owner resized or reallocated the buffer, the region's slice could reach
     * past the buffer's end, and a Send or Write would carry whatever lies there.
     */
    private void checkLocal(ScatterGatherElement sge, Access required) throws LocalWorkError {
        MemoryRegion region = sge.region();
        if (!region.isValid() || !memoryAsRegistered(region) || region.protectionDomain() != protectionDomain
                || invalidationWaiting(region.stag())
                || (required != null && !region.access().contains(required))) {
            throw new LocalWorkError(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
        }
        if (endsPastRegion(sge)) {
            throw new LocalWorkError(WorkCompletionStatus.LOCAL_LENGTH_ERROR);
        }
    }

    private boolean memoryAsRegistered(MemoryRegion region) {
        org.iwarp4j.ddp.TaggedBuffer registered = port.stagTable().lookup(region.stag());
        return registered != null && registered.memoryAsRegistered();
    }

    /**
     * Whether {@code sge} ends past its region, compared as {@code offset > region length - length}:
     * no sum that could overflow (the element's constructor bounds its end too).
     */
    static boolean endsPastRegion(ScatterGatherElement sge) {
        return sge.offset() > sge.region().length() - sge.length();
    }

    /**
     * Completes finished work from the head of the send queue, in posting order; a Local
     * Invalidate that reaches the head is performed there, every request before it having completed.
     */
    private void completeInOrder() {
        boolean completed = false;
        for (SendEntry e; (e = inOrder.peek()) != null; ) {
            if (e.status == null && e.request.kind() == SendWorkRequest.Kind.LOCAL_INVALIDATE) {
                invalidateLocally(e);
            }
            if (e.status == null) {
                break;
            }
            inOrder.poll();
            completions.send(e.request, Completions.opcodeOf(e.request.kind()), e.status, e.length, e.reason);
            completed = true;
        }
        if (completed && idle()) {
            onIdle.run();
        }
    }

    /**
     * The queue pair failed: the oldest unfinished request gets {@code headStatus}, the rest
     * {@link WorkCompletionStatus#FLUSHED}, all carrying {@code reason} (RFC 5040 §6.2.1).
     */
    void flush(WorkCompletionStatus headStatus, TerminateReason reason) {
        boolean head = true;
        for (SendEntry e : inOrder) {
            if (e.status == null) {
                e.status = head ? headStatus : WorkCompletionStatus.FLUSHED;
                e.reason = reason;
                head = false;
            }
        }
        for (SendEntry e : beforeStart) {
            if (e.status == null) {
                e.status = WorkCompletionStatus.FLUSHED;
                e.reason = reason;
            }
            inOrder.add(e);
        }
        beforeStart.clear();
        outstandingReads.clear();
        readsWaitingForOrd.clear();
        invalidationsWaiting = 0; // flushed above: not performed (RFC 5040 §6.2.1)
        completeInOrder();
    }

    boolean idle() {
        return inOrder.isEmpty() && beforeStart.isEmpty();
    }

    private static RdmapOpcode sendOpcode(SendWorkRequest.Kind kind) {
        switch (kind) {
            case SEND_WITH_SOLICITED_EVENT:
                return RdmapOpcode.SEND_WITH_SE;
            case SEND_WITH_INVALIDATE:
                return RdmapOpcode.SEND_WITH_INVALIDATE;
            case SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE:
                return RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE;
            default:
                return RdmapOpcode.SEND;
        }
    }

    private static boolean invalidates(SendWorkRequest.Kind kind) {
        return kind == SendWorkRequest.Kind.SEND_WITH_INVALIDATE
                || kind == SendWorkRequest.Kind.SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE;
    }

    /**
     * A send work request on its way through the queue; for a message it sends, the listener of
     * its last segment's write (not a lambda per message).
     */
    final class SendEntry implements ChannelFutureListener {
        final SendWorkRequest request;
        WorkCompletionStatus status;
        int length;
        TerminateReason reason;
        /** Payload octets of the message, reported when its last segment is written. */
        int messageLength;

        SendEntry(SendWorkRequest request) {
            this.request = request;
        }

        @Override
        public void operationComplete(ChannelFuture f) {
            if (f.isSuccess()) {
                done(WorkCompletionStatus.SUCCESS, messageLength);
            } else {
                // The write failed under the request (the connection closed or broke), and it may
                // complete before the queue pair's failure reaches flush(): give it the reason known
                // now, the Terminate sent or withheld, else (through onWriteFailed) the write's cause.
                onWriteFailed.accept(f.cause());
                if (status == null) {
                    reason = port.terminateReason();
                }
                done(WorkCompletionStatus.FATAL, messageLength);
            }
            completeInOrder();
        }

        void done(WorkCompletionStatus s, int octets) {
            if (status == null) {
                status = s;
                length = octets;
            }
        }
    }

    /** A work request that cannot start because of its local segments. */
    static final class LocalWorkError extends Exception {
        private static final long serialVersionUID = 1L;
        final transient WorkCompletionStatus status;

        LocalWorkError(WorkCompletionStatus status) {
            super(status.toString(), null, false, false);
            this.status = status;
        }
    }

}
