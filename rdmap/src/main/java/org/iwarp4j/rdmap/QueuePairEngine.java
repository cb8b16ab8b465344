package org.iwarp4j.rdmap;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.ddp.DdpReceiver;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.ddp.ReceiveBuffer;
import org.iwarp4j.ddp.ScatterEntry;
import org.iwarp4j.ddp.StagCheck;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.ddp.UntaggedMessage;
import org.iwarp4j.ddp.UntaggedQueue;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.MpaRole;
import org.iwarp4j.mpa.MpaStartupEvent;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.internal.wire.OffendingSegment;
import org.iwarp4j.rdmap.internal.wire.RdmapConstants;
import org.iwarp4j.rdmap.internal.wire.RdmapControl;
import org.iwarp4j.rdmap.internal.wire.RdmapOpcode;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateBuilder;
import org.iwarp4j.rdmap.internal.wire.TerminateCause;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;

/**
 * RDMAP for one queue pair (RFC 5040), the handler after MPA's in the connection's pipeline. All
 * queue pair state lives on the channel's event loop. Inbound ULPDUs are DDP segments dispatched
 * by opcode: Writes and Read Responses placed through the STag table, Sends into posted receives,
 * Read Requests answered within IRD, Terminates decoded. Any error ends in exactly one Terminate
 * with the layer, type and code RFC 5040 §7 names, then a graceful TCP close; the queue pair goes
 * to ERROR and every outstanding work request completes (RFC 5040 §6.2.1).
 *
 * <p>The close after a fatal error is bounded, whatever the peer or the ULP does (RFC 5040 §7,
 * RDMAP-R-046): a Terminate that MPA may not send (a Responder before the Initiator's first
 * valid FPDU, MPA-R-061) is withheld and the connection closed at once; one that was written is
 * given {@link QueuePairSettings#terminateCloseTimeout()} to leave, then the connection is closed
 * anyway.
 *
 * <p>Each inbound ULPDU is released here. Placement copies payload once into registered memory.
 */
final class QueuePairEngine extends ChannelDuplexHandler implements QueuePair.WorkQueueProcessor {

    /** Octets of a buffer that receives a Terminate's RDMAP part (at most 4 + 2 + 18 + 28). */
    private static final int TERMINATE_BUFFER = 64;

    private final QueuePair queuePair;
    private final StagTable stagTable;
    private final int protectionDomain;
    private final long streamId;
    private final RdmapMeters meters;
    private ChannelHandlerContext ctx;
    private Transmitter transmitter;
    private DdpReceiver receiver;
    private UntaggedQueue receives;
    private UntaggedQueue readRequests;
    private UntaggedQueue terminates;
    /** The IRD slots for Read Request headers and the Terminate buffer: one allocation, sliced. */
    private ByteBuf internalBuffers;
    private int internalUsed;
    private ByteBuf currentUlpdu;
    private boolean terminated;
    private boolean closing;
    /** Pending until the peer's first ULPDU; see {@link QueuePairSettings.Builder#wakeUpWriteAfter}. */
    private ScheduledFuture<?> wakeUpWrite;
    /** Pending while a written Terminate has not left; closes the connection when it runs. */
    private ScheduledFuture<?> terminateCloseTimer;
    private boolean heardFromPeer;
    private MpaRole role;

    QueuePairEngine(QueuePair queuePair) {
        this.queuePair = queuePair;
        this.stagTable = queuePair.rnic().stagTable();
        this.protectionDomain = queuePair.settings().protectionDomain().id();
        this.streamId = queuePair.streamId();
        this.meters = queuePair.rnic().meters();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.transmitter = new Transmitter(queuePair, ctx, this::closeWhenIdle, this::firstMessageSent);
        this.receives = new UntaggedQueue(RdmapConstants.QN_SEND, queuePair.settings().receiveQueueDepth(),
                this::received);
        queuePair.attach(this);
    }

    // ------------------------------------------------------------------ WorkQueueProcessor

    @Override
    public Executor executor() {
        return ctx.executor();
    }

    @Override
    public void accept(Object work) {
        if (terminated) {
            flushPosted(work);
            return;
        }
        if (work instanceof SendWorkRequest) {
            transmitter.post((SendWorkRequest) work);
        } else {
            postReceive((ReceiveWorkRequest) work);
        }
    }

    @Override
    public void flush() {
        ctx.flush();
    }

    @Override
    public void closeGracefully() {
        ctx.executor().execute(() -> {
            closing = true;
            if (queuePair.state() == QueuePairState.RTS) {
                queuePair.moveTo(QueuePairState.CLOSING);
            }
            closeWhenIdle();
        });
    }

    @Override
    public void abort() {
        ctx.executor().execute(() -> {
            closing = true;
            ctx.close(); // channelInactive flushes the outstanding work
        });
    }

    private void closeWhenIdle() {
        if (closing && transmitter.idle()) {
            ctx.close();
        }
    }

    private void postReceive(ReceiveWorkRequest request) {
        List<ScatterEntry> scatter = new ArrayList<>(request.localSegments().size());
        for (ScatterGatherElement sge : request.localSegments()) {
            MemoryRegion region = sge.region();
            if (!region.isValid() || region.protectionDomain() != queuePair.settings().protectionDomain()
                    || !region.access().contains(Access.LOCAL_WRITE)
                    || sge.offset() + sge.length() > region.length()) {
                queuePair.outstandingReceives.decrementAndGet();
                deliver(queuePair, queuePair.settings().receiveCompletionQueue(), new WorkCompletion(request.id(),
                        WorkCompletionOpcode.RECEIVE, WorkCompletionStatus.LOCAL_PROTECTION_ERROR, 0, false, null,
                        null, queuePair));
                return;
            }
            scatter.add(new ScatterEntry(region.memory(), (int) sge.offset(), sge.length()));
        }
        receives.post(ReceiveBuffer.of(request.id(), scatter));
    }

    // ------------------------------------------------------------------ startup

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof MpaStartupEvent) {
            MpaStartupEvent startup = (MpaStartupEvent) evt;
            if (startup.isSuccess()) {
                start(startup.parameters());
            } else {
                MpaException cause = startup.cause();
                if (cause.terminateRequired()) {
                    // RFC 6581 §9.1/§9.2: insufficient IRD or no usable RTR -> Terminate, then close.
                    sendTerminate(TerminateBuilder.forMpaError(cause.error()));
                }
                queuePair.failedToEstablish(cause);
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    private void start(NegotiatedParameters parameters) {
        int ird = Math.max(1, parameters.ird());
        int total = ird * RdmapConstants.READ_REQUEST_HEADER_LENGTH + TERMINATE_BUFFER;
        internalBuffers = ctx.alloc().heapBuffer(total, total).writerIndex(total);
        readRequests = new UntaggedQueue(RdmapConstants.QN_READ_REQUEST, ird, this::readRequested);
        for (int i = 0; i < ird; i++) {
            readRequests.post(internalBuffer(RdmapConstants.READ_REQUEST_HEADER_LENGTH));
        }
        terminates = new UntaggedQueue(RdmapConstants.QN_TERMINATE, 1, this::terminateReceived);
        terminates.post(internalBuffer(TERMINATE_BUFFER));
        receiver = new DdpReceiver(stagTable, protectionDomain, streamId, List.of(receives, readRequests, terminates),
                queuePair.rnic().ddpMeters());
        role = parameters.role();
        transmitter.start(parameters);
        queuePair.established(parameters);
        ctx.flush();
    }

    /**
     * As Initiator, arms the wake-up Write. A Responder never needs it: MPA holds its FPDUs until
     * the Initiator's first has arrived (MPA-R-061), and the race it answers is in the peer's accept.
     */
    private void firstMessageSent() {
        long wakeUpNanos = queuePair.settings().wakeUpWriteAfter().toNanos();
        if (role == MpaRole.INITIATOR && wakeUpNanos > 0 && !heardFromPeer) {
            wakeUpWrite = ctx.executor().schedule(this::wakeUpSilentResponder, wakeUpNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Runs only if the Responder sent nothing yet: our first FPDU may sit unread in its socket. */
    private void wakeUpSilentResponder() {
        wakeUpWrite = null;
        if (!terminated && ctx.channel().isActive()) {
            meters.wakeUpWriteSent();
            transmitter.zeroLengthWrite();
            ctx.flush();
        }
    }

    private void cancelWakeUpWrite() {
        if (wakeUpWrite != null) {
            wakeUpWrite.cancel(false);
            wakeUpWrite = null;
        }
    }

    /** The next {@code length} octets of {@link #internalBuffers}, as a receive buffer (index 0 is its start). */
    private ReceiveBuffer internalBuffer(int length) {
        ByteBuf slice = internalBuffers.slice(internalUsed, length);
        internalUsed += length;
        return ReceiveBuffer.of(-1, slice, length);
    }

    // ------------------------------------------------------------------ receive

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf ulpdu = (ByteBuf) msg;
        heardFromPeer = true;
        cancelWakeUpWrite();
        try {
            if (terminated || receiver == null) {
                return; // RFC 5041 §7.1: after an error nothing more is placed
            }
            currentUlpdu = ulpdu;
            DdpSegment segment;
            try {
                segment = receiver.decode(ulpdu);
            } catch (DdpException e) {
                terminateFor(e);
                return;
            }
            if (segment == null) {
                return;
            }
            try {
                dispatch(segment, ulpdu);
            } catch (DdpException e) {
                terminateFor(e);
            } finally {
                segment.release();
            }
        } finally {
            currentUlpdu = null;
            ulpdu.release();
        }
    }

    private void dispatch(DdpSegment segment, ByteBuf ulpdu) throws DdpException {
        int ddpControl = ulpdu.getUnsignedByte(ulpdu.readerIndex());
        long queueNumber = segment.tagged() ? -1 : segment.untaggedHeader().qn() & 0xFFFFFFFFL;
        RdmapControl.ControlCheck check = RdmapControl.check(ddpControl, segment.header().rsvdUlp(), queueNumber);
        if (!check.isValid()) {
            terminate(check.cause());
            return;
        }
        switch (check.opcode()) {
            case RDMA_WRITE:
                // A valid Write is not delivered to the ULP (RFC 5040 §5.1); zero length: no STag check.
                receiver.placeTagged(segment, Access.REMOTE_WRITE);
                if (segment.last()) {
                    meters.received(RdmapOpcode.RDMA_WRITE);
                }
                break;
            case RDMA_READ_RESPONSE:
                readResponse(segment);
                break;
            default:
                // Send types, Read Request, Terminate: untagged, delivered by their queue's callback.
                receiver.placeUntagged(segment);
                break;
        }
    }

    private void readResponse(DdpSegment segment) throws DdpException {
        Transmitter.OutstandingRead read = transmitter.currentRead();
        if (read == null) {
            terminate(TerminateCause.UNSOLICITED_READ_RESPONSE);
            return;
        }
        if (segment.payloadLength() > 0 && segment.taggedHeader().stag() != read.header.sinkStag()) {
            terminate(TerminateCause.TAGGED_INVALID_STAG);
            return;
        }
        receiver.placeTagged(segment, Access.LOCAL_WRITE);
        if (segment.last()) {
            meters.received(RdmapOpcode.RDMA_READ_RESPONSE);
            transmitter.readResponseComplete();
            ctx.flush(); // Read Requests held back by ORD may just have been written
        }
    }

    /** A Send (any type) filled a posted receive (RFC 5040 §5.3). */
    private void received(UntaggedMessage message) {
        RdmapOpcode opcode = RdmapControl.opcode(message.rsvdUlp());
        Integer invalidated = null;
        if (opcode.carriesInvalidateStag()) {
            int stag = message.rsvdUlpWord();
            StagCheck result = stagTable.invalidate(stag, protectionDomain, streamId);
            if (result != StagCheck.VALID) {
                // RDMAP-R-024: 0x0/0x2/0x09 for an unknown STag, 0x0/0x1/0x09 for another domain's.
                TerminateCause cause = result == StagCheck.NOT_ASSOCIATED
                        ? TerminateCause.INVALIDATE_STAG_NOT_ASSOCIATED : TerminateCause.INVALIDATE_STAG_INVALID;
                // The queue already gave this receive back: complete it here, first, or it is lost.
                queuePair.outstandingReceives.decrementAndGet();
                deliver(queuePair, queuePair.settings().receiveCompletionQueue(), new WorkCompletion(
                        message.buffer().workRequestId(), WorkCompletionOpcode.RECEIVE, WorkCompletionStatus.FLUSHED,
                        0, false, null, cause.reason(), queuePair));
                terminate(cause);
                return;
            }
            invalidated = stag;
        }
        meters.received(opcode);
        queuePair.outstandingReceives.decrementAndGet();
        deliver(queuePair, queuePair.settings().receiveCompletionQueue(), new WorkCompletion(
                message.buffer().workRequestId(), WorkCompletionOpcode.RECEIVE, WorkCompletionStatus.SUCCESS,
                (int) message.length(), opcode.solicitedEvent(), invalidated, null, queuePair));
    }

    /** A Read Request arrived within IRD (RFC 5040 §5.2.1): validate the source, answer, free the slot. */
    private void readRequested(UntaggedMessage message) {
        ReceiveBuffer slot = message.buffer();
        ByteBuf header = slot.scatterList().get(0).buffer();
        if (message.length() != 28) {
            terminate(TerminateCause.MALFORMED_READ_REQUEST);
            return;
        }
        ReadRequestHeader request = ReadRequestHeader.decode(header.slice(0, 28));
        meters.received(RdmapOpcode.RDMA_READ_REQUEST);
        ByteBuf source;
        if (request.isZeroLength()) {
            source = ctx.alloc().buffer(0); // RFC 5040 §5.2.1: no STag check, a zero-length response
        } else {
            try {
                source = stagTable.retainedSlice(request.sourceStag(), protectionDomain, streamId, Access.REMOTE_READ,
                        request.sourceTaggedOffset(), request.readMessageSize());
            } catch (DdpException e) {
                terminate(readSourceCause(e.stagCheck()));
                return;
            }
        }
        transmitter.respondToRead(request, source).addListener(f -> {
            if (f.isSuccess() && !terminated) {
                readRequests.post(slot);
            }
        });
        ctx.flush();
    }

    private static TerminateCause readSourceCause(StagCheck check) {
        if (check == null) {
            return TerminateCause.READ_SOURCE_INVALID_STAG;
        }
        switch (check) {
            case NOT_ASSOCIATED:
                return TerminateCause.READ_SOURCE_STAG_NOT_ASSOCIATED;
            case ACCESS_DENIED:
                return TerminateCause.READ_SOURCE_ACCESS_RIGHTS;
            case TO_WRAP:
                return TerminateCause.READ_SOURCE_TO_WRAP;
            case BASE_OR_BOUNDS:
                return TerminateCause.READ_SOURCE_BASE_OR_BOUNDS;
            default:
                return TerminateCause.READ_SOURCE_INVALID_STAG;
        }
    }

    /** The peer's Terminate (RFC 5040 §5.4): decode it for the user, fail the queue pair, close. */
    private void terminateReceived(UntaggedMessage message) {
        ByteBuf buffer = message.buffer().scatterList().get(0).buffer();
        TerminateReason reason;
        OptionalInt stag = OptionalInt.empty();
        try {
            TerminateMessage terminate = TerminateMessage.decode(buffer.slice(0, (int) message.length()));
            reason = terminate.reason();
            stag = terminatedStag(terminate);
        } catch (RuntimeException e) {
            reason = TerminateReason.rdmap(0x2, 0xFF);
        }
        terminated = true;
        meters.terminateReceived(reason);
        receiver.stop();
        queuePair.terminated(reason, true, stag);
        queuePair.moveTo(QueuePairState.TERMINATE);
        failAll(statusFor(reason), reason);
        ctx.close();
    }

    /** The peer's STag the refused message named: a tagged segment's, or a Read Request's Data Source STag. */
    private static OptionalInt terminatedStag(TerminateMessage terminate) {
        byte[] ddp = terminate.terminatedDdpHeader();
        if (ddp != null && ddp.length == RdmapConstants.DDP_TAGGED_HEADER_LENGTH
                && (ddp[0] & RdmapConstants.DDP_CONTROL_TAGGED) != 0) {
            return OptionalInt.of(((ddp[2] & 0xFF) << 24) | ((ddp[3] & 0xFF) << 16) | ((ddp[4] & 0xFF) << 8)
                    | (ddp[5] & 0xFF)); // RFC 5041 §4.3: control, RsvdULP, STag, TO
        }
        return terminate.terminatedRdmaHeader() == null ? OptionalInt.empty()
                : OptionalInt.of(terminate.terminatedRdmaHeader().sourceStag());
    }

    private static WorkCompletionStatus statusFor(TerminateReason reason) {
        if (reason.layer() == TerminateReason.Layer.LLP) {
            return WorkCompletionStatus.FATAL;
        }
        boolean protection = (reason.layer() == TerminateReason.Layer.DDP && reason.errorType() == 0x1)
                || (reason.layer() == TerminateReason.Layer.RDMAP && reason.errorType() == 0x1);
        return protection ? WorkCompletionStatus.REMOTE_ACCESS_ERROR : WorkCompletionStatus.REMOTE_OPERATION_ERROR;
    }

    // ------------------------------------------------------------------ errors

    private void terminateFor(DdpException e) {
        OffendingSegment offending = currentUlpdu == null ? null : OffendingSegment.capture(currentUlpdu);
        sendTerminateAndFail(TerminateBuilder.forDdpError(e.error().errorType(), e.error().code(), offending));
    }

    private void terminate(TerminateCause cause) {
        OffendingSegment offending = currentUlpdu == null ? null : OffendingSegment.capture(currentUlpdu);
        sendTerminateAndFail(TerminateBuilder.build(cause, offending));
    }

    private void sendTerminateAndFail(TerminateMessage message) {
        if (terminated) {
            return;
        }
        sendTerminate(message);
        failAll(WorkCompletionStatus.FATAL, message.reason());
    }

    /**
     * Exactly one Terminate, then no more messages and a graceful close (RDMAP-R-027), which must
     * happen (RDMAP-R-046, RFC 5044 §8: closing after errors 2 and 3 is this layer's duty,
     * MPA-R-075). A Responder whose MPA encoder is still fenced cannot send the Terminate: the
     * fence opens only once the Initiator's first FPDU has passed MPA's checks (MPA-R-061), and
     * MPA opens it before that FPDU reaches us, so a Terminate meets the fence only for an MPA
     * error (CRC, marker, ULPDU_Length) in that first FPDU, after which MPA delivers nothing more
     * on that half connection (MPA-R-074) and the fence can never open. Sending is "not always
     * possible" (RFC 5040 §6.2.1, RDMAP-R-036's best effort): the Terminate is withheld and the
     * connection closed at once. Otherwise the close follows the Terminate's write, or {@link
     * QueuePairSettings#terminateCloseTimeout()}, whichever comes first.
     */
    private void sendTerminate(TerminateMessage message) {
        if (terminated) {
            return;
        }
        terminated = true;
        if (receiver != null) {
            receiver.stop();
        }
        queuePair.terminated(message.reason(), false, OptionalInt.empty());
        queuePair.moveTo(QueuePairState.TERMINATE);
        if (mpaFenced()) {
            meters.terminateWithheld();
            queuePair.withheldTerminate();
            ctx.close();
            return;
        }
        meters.terminateSent(message.reason());
        ctx.writeAndFlush(message.encodeSegment(ctx.alloc())).addListener(ChannelFutureListener.CLOSE);
        long timeout = queuePair.settings().terminateCloseTimeout().toNanos();
        if (timeout == 0) {
            ctx.close();
        } else if (ctx.channel().isOpen()) {
            terminateCloseTimer = ctx.executor().schedule(this::terminateCloseTimedOut, timeout,
                    TimeUnit.NANOSECONDS);
        }
    }

    /** Whether MPA still holds back everything this end writes (a Responder, MPA-R-061). */
    private boolean mpaFenced() {
        ChannelHandler encoder = ctx.pipeline().get(MpaStartupHandler.FRAME_ENCODER_NAME);
        return encoder instanceof MpaFrameEncoder && ((MpaFrameEncoder) encoder).isFenced();
    }

    /** The Terminate did not leave in time (the peer stopped reading): give up on it and close. */
    private void terminateCloseTimedOut() {
        terminateCloseTimer = null;
        if (ctx.channel().isOpen()) {
            meters.terminateCloseTimedOut();
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof MpaException && ((MpaException) cause).terminateRequired()) {
            // RDMAP-R-037: an LLP error surfaced by MPA (CRC, marker) -> Terminate Layer 2, then close.
            sendTerminateAndFail(TerminateBuilder.forMpaError(((MpaException) cause).error()));
            return;
        }
        if (!terminated) {
            terminated = true;
            failAll(WorkCompletionStatus.FATAL, null);
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelWakeUpWrite();
        if (terminateCloseTimer != null) {
            terminateCloseTimer.cancel(false);
            terminateCloseTimer = null;
        }
        terminated = true;
        failAll(WorkCompletionStatus.FLUSHED, queuePair.terminateReason());
        if (internalBuffers != null) {
            internalBuffers.release();
            internalBuffers = null;
        }
        queuePair.closedDown();
        super.channelInactive(ctx);
    }

    /** Completes every outstanding and posted work request (RFC 5040 §6.2.1, RDMAP-R-035). */
    private void failAll(WorkCompletionStatus headStatus, TerminateReason reason) {
        transmitter.flush(headStatus, reason);
        for (ReceiveBuffer buffer : receives.flush()) {
            queuePair.outstandingReceives.decrementAndGet();
            deliver(queuePair, queuePair.settings().receiveCompletionQueue(), new WorkCompletion(buffer.workRequestId(),
                    WorkCompletionOpcode.RECEIVE, WorkCompletionStatus.FLUSHED, 0, false, null, reason, queuePair));
        }
        for (Object work; (work = queuePair.posted.poll()) != null; ) {
            flushPosted(work);
        }
        queuePair.moveTo(QueuePairState.ERROR);
    }

    private void flushPosted(Object work) {
        TerminateReason reason = queuePair.terminateReason();
        if (work instanceof SendWorkRequest) {
            SendWorkRequest r = (SendWorkRequest) work;
            queuePair.outstandingSends.decrementAndGet();
            deliver(queuePair, queuePair.settings().sendCompletionQueue(), new WorkCompletion(r.id(),
                    WorkCompletionOpcode.SEND, WorkCompletionStatus.FLUSHED, 0, false, null, reason, queuePair));
        } else {
            ReceiveWorkRequest r = (ReceiveWorkRequest) work;
            queuePair.outstandingReceives.decrementAndGet();
            deliver(queuePair, queuePair.settings().receiveCompletionQueue(), new WorkCompletion(r.id(),
                    WorkCompletionOpcode.RECEIVE, WorkCompletionStatus.FLUSHED, 0, false, null, reason, queuePair));
        }
    }

    /** Hands a completion to its queue; an overrun puts the queue pair in ERROR, as RNICs do. */
    static void deliver(QueuePair queuePair, CompletionQueue queue, WorkCompletion completion) {
        queuePair.rnic().meters().completed(completion);
        if (!queue.complete(completion)) {
            queuePair.moveTo(QueuePairState.ERROR);
        }
    }
}
