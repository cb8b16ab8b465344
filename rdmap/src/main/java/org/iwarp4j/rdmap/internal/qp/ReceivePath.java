package org.iwarp4j.rdmap.internal.qp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.DdpError;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.ddp.DdpHeader;
import org.iwarp4j.ddp.DdpReceiver;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.ddp.ReceiveBuffer;
import org.iwarp4j.ddp.ScatterEntry;
import org.iwarp4j.ddp.StagCheck;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.ddp.TaggedBuffer;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.ddp.UntaggedMessage;
import org.iwarp4j.ddp.UntaggedQueue;
import org.iwarp4j.mpa.DirectPlacement;
import org.iwarp4j.mpa.PlacementGuard;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.mpa.PlacementAdvisor;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.ScatterGatherElement;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletionStatus;
import org.iwarp4j.rdmap.internal.wire.RdmapConstants;
import org.iwarp4j.rdmap.internal.wire.RdmapControl;
import org.iwarp4j.rdmap.internal.wire.RdmapOpcode;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateCause;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;

/**
 * The receive side of one queue pair (siw_qp_rx), on its event loop: each inbound ULPDU is a DDP
 * segment dispatched by opcode (RFC 5040 §5): Writes and Read Responses placed through the STag
 * table, Sends into posted receives, Read Requests answered within IRD, Terminates decoded. Every
 * error goes to the {@link Terminator}. Each ULPDU is released here; placement copies its payload
 * once into registered memory.
 *
 * <p>It is also MPA's {@link PlacementAdvisor}: for an RDMA Write, a Read Response or a Send whose
 * FPDU has only begun to arrive, it names the memory the payload will be placed into, after the
 * checks its placement will make (RDMAP opcode, STag, access, bounds; MSN and MO of a posted
 * receive), so the socket reads the rest of the payload straight there. It declines anything else
 * (Read Requests, Terminates, errors, heap or composite memory); when the ULPDU is complete it is
 * processed here exactly as any other, the checks run again at that moment and decide.
 */
final class ReceivePath implements PlacementAdvisor {

    /** Octets of a buffer that receives a Terminate's RDMAP part (at most 4 + 2 + 18 + 28). */
    private static final int TERMINATE_BUFFER = 64;

    private final QueuePairPort port;
    private final Completions completions;
    private final Terminator terminator;
    private final Transmitter transmitter;
    private final ChannelHandlerContext ctx;
    private final StagTable stagTable;
    private final int protectionDomain;
    private final long streamId;
    private final EngineMeters meters;
    private final UntaggedQueue receives;
    private DdpReceiver receiver;
    private UntaggedQueue readRequests;
    /** The IRD slots for Read Request headers and the Terminate buffer: one allocation, sliced. */
    private ByteBuf internalBuffers;
    private int internalUsed;
    private ByteBuf currentUlpdu;
    /** Receives posted after a close or abort, never given to DDP; see {@link #postAfterClose}. */
    private final ArrayDeque<ReceiveWorkRequest> postedAfterClose = new ArrayDeque<>();
    /** Posted receives taken so far ({@link #postsTaken}). */
    private long postsTaken;
    /** A Send met a posted receive whose region was no longer valid: the MSN of that receive. */
    private boolean refusedReceive;
    private int refusedReceiveMsn;
    /** A flush is scheduled for the end of this event loop turn; see {@link #flushSoon()}. */
    private boolean flushScheduled;
    private final Runnable flushTask = this::flushNow;

    ReceivePath(QueuePairPort port, Completions completions, Terminator terminator, Transmitter transmitter,
                ChannelHandlerContext ctx) {
        this.port = port;
        this.completions = completions;
        this.terminator = terminator;
        this.transmitter = transmitter;
        this.ctx = ctx;
        this.stagTable = port.stagTable();
        this.protectionDomain = port.settings().protectionDomain().id();
        this.streamId = port.streamId();
        this.meters = port.meters();
        this.receives = new UntaggedQueue(RdmapConstants.QN_SEND, port.settings().receiveQueueDepth(),
                this::received);
    }

    /**
     * A posted receive: its segments must be valid local-write memory of this protection domain
     * (else it completes LOCAL_PROTECTION_ERROR), each within its region (else LOCAL_LENGTH_ERROR,
     * as a Send's gather list does, {@link Transmitter#endsPastRegion}).
     */
    void postReceive(ReceiveWorkRequest request) {
        ReceiveBuffer buffer = bufferOf(request);
        if (buffer == null) {
            completions.receiveFailed(request.id(), refusalOf(request), null);
        } else {
            receives.post(buffer);
        }
        postsTaken++;
    }

    /**
     * How many posted receives have been taken: queued, or completed as refused. A post that threw
     * tells by this count whether its receive must be completed where it failed ({@link
     * QueuePairEngine#commandFailed}).
     */
    long postsTaken() {
        return postsTaken;
    }

    /**
     * A receive posted after a close or abort (the queue pair's javadoc: "flushed by it"): not
     * given to DDP, so that a Send read while an orderly close waits for its last Read Responses
     * cannot fill it, whatever its memory; it completes FLUSHED with the rest ({@link
     * #flushReceives}), after the receives posted before it.
     */
    void postAfterClose(ReceiveWorkRequest request) {
        postedAfterClose.add(request);
        postsTaken++;
    }

    /** Why {@link #bufferOf} refused {@code request}: the first bad segment's error, checked as a Send's are. */
    private WorkCompletionStatus refusalOf(ReceiveWorkRequest request) {
        for (ScatterGatherElement sge : request.localSegments()) {
            if (registrationOf(sge) == null) {
                break;
            }
            if (Transmitter.endsPastRegion(sge)) {
                return WorkCompletionStatus.LOCAL_LENGTH_ERROR;
            }
        }
        return WorkCompletionStatus.LOCAL_PROTECTION_ERROR;
    }

    /**
     * {@link #postReceive} for a request that passes its checks, which completes nothing now;
     * {@code false}, and nothing done, for one that would complete at once in error.
     */
    boolean postReceiveIfValid(ReceiveWorkRequest request) {
        ReceiveBuffer buffer = bufferOf(request);
        if (buffer == null) {
            return false;
        }
        receives.post(buffer);
        return true;
    }

    /**
     * The DDP buffer of {@code request}, or {@code null} if a segment is not valid local-write
     * memory of this protection domain. A receive is posted once per Send received, so the usual
     * one-segment request is built without a list of its own ({@link ReceiveBuffer#of(long,
     * ByteBuf, int, int, PlacementGuard)}).
     *
     * <p>Each piece keeps its region's placement guard: the region may be deregistered or
     * invalidated while the receive is posted, and "when mr.close() returns no read into the
     * memory is running and none starts" (docs/verbs.md) holds for a Send's placement too, copied
     * or read in place, as for a Write's (RFC 5040 §8.1.1 #6, RDMAP-R-038; siw checks a receive's
     * memory again at each placement, siw_check_sge).
     */
    private ReceiveBuffer bufferOf(ReceiveWorkRequest request) {
        List<ScatterGatherElement> segments = request.localSegments();
        if (segments.size() == 1) {
            ScatterGatherElement sge = segments.get(0);
            TaggedBuffer registered = usable(sge);
            return registered == null ? null : ReceiveBuffer.of(request.id(), registered.memory(), (int) sge.offset(),
                    sge.length(), registered.placementGuard());
        }
        List<ScatterEntry> scatter = new ArrayList<>(segments.size());
        for (ScatterGatherElement sge : segments) {
            TaggedBuffer registered = usable(sge);
            if (registered == null) {
                return null;
            }
            scatter.add(new ScatterEntry(registered.memory(), (int) sge.offset(), sge.length(),
                    registered.placementGuard()));
        }
        return ReceiveBuffer.of(request.id(), scatter);
    }

    /**
     * The registration behind {@code sge}'s region, if the segment is valid local-write memory of
     * this domain within its region, still as registered (not resized or reallocated by its owner).
     */
    private TaggedBuffer usable(ScatterGatherElement sge) {
        return Transmitter.endsPastRegion(sge) ? null : registrationOf(sge);
    }

    /** The registration behind {@code sge}'s region, if that is valid local-write memory of this domain. */
    private TaggedBuffer registrationOf(ScatterGatherElement sge) {
        MemoryRegion region = sge.region();
        if (region.protectionDomain() != port.settings().protectionDomain()
                || !region.access().contains(Access.LOCAL_WRITE)) {
            return null;
        }
        TaggedBuffer registered = stagTable.lookup(region.stag()); // null once invalid
        return registered != null && registered.memory() == region.memory() && registered.memoryAsRegistered()
                ? registered : null;
    }

    /**
     * Full Operation: the IRD slots and the Terminate buffer, and DDP's receiver for QNs 0-2.
     * Exactly IRD buffers on QN 1 (RFC 5040 §5.2.2 wants at least that many): a Read Request
     * beyond IRD finds none and DDP answers it as any untagged message without a buffer,
     * 0x1/0x2/0x02 (RDMAP-R-013, DDP-R-046).
     */
    void start(NegotiatedParameters parameters) {
        int ird = Math.max(1, parameters.ird());
        int total = ird * RdmapConstants.READ_REQUEST_HEADER_LENGTH + TERMINATE_BUFFER;
        internalBuffers = ctx.alloc().heapBuffer(total, total).writerIndex(total);
        readRequests = new UntaggedQueue(RdmapConstants.QN_READ_REQUEST, ird, this::readRequested);
        for (int i = 0; i < ird; i++) {
            readRequests.post(internalBuffer(RdmapConstants.READ_REQUEST_HEADER_LENGTH));
        }
        UntaggedQueue terminates = new UntaggedQueue(RdmapConstants.QN_TERMINATE, 1, this::terminateReceived);
        terminates.post(internalBuffer(TERMINATE_BUFFER));
        receiver = new DdpReceiver(stagTable, protectionDomain, streamId, List.of(receives, readRequests, terminates),
                port.ddpMeters());
    }

    /** The next {@code length} octets of {@link #internalBuffers}, as a receive buffer (index 0 is its start). */
    private ReceiveBuffer internalBuffer(int length) {
        ByteBuf slice = internalBuffers.slice(internalUsed, length);
        internalUsed += length;
        return ReceiveBuffer.of(-1, slice, length);
    }

    @Override
    public DirectPlacement advise(ByteBuf head, int ulpduLength) {
        if (terminator.isTerminated() || receiver == null || receiver.isStopped()) {
            return null;
        }
        DdpHeader header;
        try {
            header = DdpHeader.decode(head);
        } catch (DdpException e) {
            return null; // reported when the ULPDU is complete
        }
        int payload = ulpduLength - header.length();
        if (payload <= 0) {
            return null;
        }
        int ddpControl = head.getUnsignedByte(head.readerIndex());
        long queueNumber = header.tagged() ? -1 : ((org.iwarp4j.ddp.UntaggedHeader) header).qn() & 0xFFFFFFFFL;
        RdmapControl.ControlCheck check = RdmapControl.check(ddpControl, header.rsvdUlp(), queueNumber);
        if (!check.isValid()) {
            return null;
        }
        ByteBuf target;
        PlacementGuard guard = PlacementGuard.ALWAYS;
        switch (check.opcode()) {
            case RDMA_WRITE:
            case RDMA_READ_RESPONSE: {
                TaggedHeader tagged = (TaggedHeader) header;
                if (check.opcode() == RdmapOpcode.RDMA_READ_RESPONSE) {
                    // The same comparison with the Read as readResponse() makes: a segment that does
                    // not continue the response is not read into place (the ordinary path refuses it).
                    OutstandingRead read = transmitter.currentRead();
                    if (read == null || read.refusal(tagged, payload) != null) {
                        return null;
                    }
                }
                TaggedBuffer buffer = stagTable.lookup(tagged.stag());
                if (buffer == null) {
                    return null;
                }
                target = check.opcode() == RdmapOpcode.RDMA_WRITE
                        ? taggedTarget(buffer, tagged, Access.REMOTE_WRITE, streamId, payload)
                        : taggedTarget(buffer, tagged, Access.LOCAL_WRITE, StagTable.LOCAL_REQUEST, payload);
                // Entered around each read and copy into the memory: an STag invalidated or
                // deregistered meanwhile gets no more octets (the delivery's check then fails the
                // segment), and an invalidation waits for the read or copy that is running.
                guard = buffer.placementGuard();
                break;
            }
            case SEND:
            case SEND_WITH_INVALIDATE:
            case SEND_WITH_SE:
            case SEND_WITH_SE_AND_INVALIDATE: {
                // With the guard of the receive's region, as for a Write's (bufferOf).
                DirectPlacement receive = receives.directPlacement((org.iwarp4j.ddp.UntaggedHeader) header,
                        header.length(), payload);
                if (receive == null) {
                    return null;
                }
                target = receive.target();
                guard = receive.guard();
                break;
            }
            default:
                return null;
        }
        if (target == null) {
            return null;
        }
        if (!directlyPlaceable(target)) {
            target.release();
            return null;
        }
        return DirectPlacement.of(header.length(), target, guard);
    }

    /**
     * The registered octets a tagged payload goes to, if every check of its placement passes now
     * (as {@code callerStream}: this stream's, or for a Read Response {@link StagTable#LOCAL_REQUEST}).
     */
    private ByteBuf taggedTarget(TaggedBuffer buffer, TaggedHeader header, Access required, long callerStream,
                                 int length) {
        if (stagTable.check(header.stag(), protectionDomain, callerStream, required, header.to(), length)
                != StagCheck.VALID) {
            return null;
        }
        try {
            return buffer.memory().retainedSlice((int) (header.to() - buffer.baseTo()), length);
        } catch (RuntimeException e) {
            return null; // memory released or shrunk: the ordinary path reports it
        }
    }

    /**
     * Memory a socket read can write into and DDP can recognise as already placed: direct, one
     * piece, with an address, and no part of a composite. Heap memory would be read through a JDK
     * bounce buffer anyway.
     */
    private static boolean directlyPlaceable(ByteBuf target) {
        return target.isDirect() && target.nioBufferCount() == 1 && !withinComposite(target)
                && DdpReceiver.recognisesDirectlyPlacedPayloads();
    }

    /**
     * Whether {@code buf} is, or derives from, a composite, through every wrapper: a slice of a
     * composite that the leak detector tracks is a leak-aware buffer around the slice, whose
     * {@code unwrap()} is the slice, not the composite (every buffer under PARANOID, a sample under
     * the default level); looking one level down let such a slice through.
     */
    private static boolean withinComposite(ByteBuf buf) {
        for (ByteBuf b = buf; b != null; b = b.unwrap()) {
            if (b instanceof CompositeByteBuf) {
                return true;
            }
        }
        return false;
    }

    /** Places nothing more (RFC 5041 §7.1, RDMAP-R-035). */
    void stop() {
        if (receiver != null) {
            receiver.stop();
        }
    }

    /**
     * Takes back every posted receive and completes it (RFC 5040 §6.2.1, RDMAP-R-035): flushed,
     * except the one whose memory refused a Send's placement, which gets the local error it is;
     * then those posted after a close ({@link #postAfterClose}), in posting order.
     */
    void flushReceives(TerminateReason reason) {
        int msn = receives.nextMsn();
        for (ReceiveBuffer buffer : receives.flush()) {
            WorkCompletionStatus status = refusedReceive && msn == refusedReceiveMsn
                    ? WorkCompletionStatus.LOCAL_PROTECTION_ERROR : WorkCompletionStatus.FLUSHED;
            completions.receiveFailed(buffer.workRequestId(), status, reason);
            msn++;
        }
        for (ReceiveWorkRequest r; (r = postedAfterClose.poll()) != null; ) {
            completions.receiveFailed(r.id(), WorkCompletionStatus.FLUSHED, reason);
        }
    }

    /** The connection is gone: the internal buffers go back to the allocator. */
    void release() {
        if (internalBuffers != null) {
            internalBuffers.release();
            internalBuffers = null;
        }
    }

    /** One ULPDU from MPA; released here. */
    void ulpduReceived(ByteBuf ulpdu) {
        try {
            if (terminator.isTerminated() || receiver == null) {
                return; // RFC 5041 §7.1: after an error nothing more is placed
            }
            currentUlpdu = ulpdu;
            DdpSegment segment;
            try {
                segment = receiver.decode(ulpdu);
            } catch (DdpException e) {
                if (meantAsTerminate(ulpdu, null)) {
                    invalidTerminate(e.getMessage(), null);
                } else {
                    terminator.terminateFor(e, ulpdu);
                }
                return;
            }
            if (segment == null) {
                return;
            }
            try {
                dispatch(segment, ulpdu);
            } catch (DdpException e) {
                if (meantAsTerminate(ulpdu, segment)) {
                    invalidTerminate(e.getMessage(), segment); // e.g. too long, MSN not 1
                } else {
                    localFailure(e);
                    if (e.error() == DdpError.LOCAL_CATASTROPHIC && !segment.tagged()
                            && segment.untaggedHeader().qn() == RdmapConstants.QN_SEND) {
                        // The posted receive's memory is no longer a valid target: that receive
                        // completes LOCAL_PROTECTION_ERROR (flushReceives), the queue pair fails
                        // with DDP Local Catastrophic, as siw's siw_check_sge failure does.
                        refusedReceiveMsn = segment.untaggedHeader().msn();
                        refusedReceive = true;
                    }
                    terminator.terminateFor(e, ulpdu);
                }
            } finally {
                segment.release();
            }
        } finally {
            currentUlpdu = null;
            ulpdu.release();
        }
    }

    /**
     * A placement, or a Read Response's source, this end could not make (DDP Local Catastrophic:
     * its registered memory was released, resized or reallocated, or a posted receive's region went
     * away): the queue pair's failure cause, so that the ULP learns why from {@link
     * org.iwarp4j.rdmap.QueuePair#failureCause()} and its completions, as the Terminate's reason
     * alone does not say. Called before the Terminate, which completes the work.
     */
    private void localFailure(DdpException e) {
        if (e.error() == DdpError.LOCAL_CATASTROPHIC) {
            port.failed(e);
        }
    }

    private void terminate(TerminateCause cause) {
        terminator.terminate(cause, currentUlpdu);
    }

    private void dispatch(DdpSegment segment, ByteBuf ulpdu) throws DdpException {
        int ddpControl = ulpdu.getUnsignedByte(ulpdu.readerIndex());
        long queueNumber = segment.tagged() ? -1 : segment.untaggedHeader().qn() & 0xFFFFFFFFL;
        // The check matches the opcode with T, so below a tagged segment only ever goes to a tagged
        // buffer and an untagged one to its queue's untagged buffer (DDP-R-012).
        RdmapControl.ControlCheck check = RdmapControl.check(ddpControl, segment.header().rsvdUlp(), queueNumber);
        if (!check.isValid()) {
            if (meantAsTerminate(ulpdu, segment)) {
                invalidTerminate(check.cause() + ", " + check.cause().reason(), segment); // e.g. on QN 0
            } else {
                terminate(check.cause());
            }
            return;
        }
        if (check.opcode() == RdmapOpcode.TERMINATE && segment.untaggedHeader().mo() != 0) {
            // Within the 64-octet buffer DDP would place it, leaving octets from MO 0 unwritten.
            invalidTerminate("MO " + Integer.toUnsignedLong(segment.untaggedHeader().mo())
                    + ", not 0 (RFC 5040 §5.4, RDMAP-R-025)", segment);
            return;
        }
        switch (check.opcode()) {
            case RDMA_WRITE:
                // A valid Write is not delivered to the ULP (RFC 5040 §5.1, RDMAP-R-010): it is
                // placed, and takes neither a completion nor a posted receive. Zero length: no STag check.
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

    /**
     * A Read Response segment: compared with the outstanding Read it answers (RDMAP-R-018, see
     * {@link OutstandingRead}) before DDP's tagged checks place it; one that does not continue the
     * response fails that Read and draws a Terminate (DDP Tagged Invalid STag, or Base or Bounds).
     *
     * <p>The sink was this end's choice, checked against the protection domain when the Read was
     * posted, and the comparison leaves the peer no other target: so the placement is checked
     * against the domain only ({@link StagTable#LOCAL_REQUEST}), and a sink registered with
     * another queue pair of the domain ({@code QueuePair.register}) serves the Read, as that
     * method promises local work requests of any queue pair of the domain.
     */
    private void readResponse(DdpSegment segment) throws DdpException {
        OutstandingRead read = transmitter.currentRead();
        if (read == null) {
            terminate(TerminateCause.UNSOLICITED_READ_RESPONSE);
            return;
        }
        TerminateCause refused = read.refusal(segment.taggedHeader(), segment.payloadLength());
        if (refused != null) {
            transmitter.failCurrentRead(refused.reason());
            terminate(refused);
            return;
        }
        receiver.placeRequestedTagged(segment, Access.LOCAL_WRITE);
        read.placed(segment.payloadLength());
        if (segment.last()) {
            meters.received(RdmapOpcode.RDMA_READ_RESPONSE);
            transmitter.readResponseComplete();
            flushSoon(); // Read Requests held back by ORD may just have been written
        }
    }

    /**
     * A Send (any type) filled a posted receive (RFC 5040 §5.3). The receive queue calls this in
     * MSN order, which is the order the peer sent, and every segment of the stream is placed on this
     * one event loop in the order MPA delivered it: the Writes and Sends before this Send are in
     * place by the time its completion is made (RDMAP-R-030).
     */
    private void received(UntaggedMessage message) {
        RdmapOpcode opcode = RdmapControl.opcode(message.rsvdUlp());
        Integer invalidated = null;
        if (opcode.carriesInvalidateStag()) {
            int stag = message.rsvdUlpWord();
            StagCheck result = stagTable.invalidate(stag, protectionDomain, streamId);
            if (result != StagCheck.VALID) {
                // RDMAP-R-024: 0x0/0x2/0x09 for an unknown STag, 0x0/0x1/0x09 for one not bound to
                // this stream (another domain's or stream's, or a domain-wide region, RDMAP-R-047).
                TerminateCause cause = result == StagCheck.NOT_ASSOCIATED
                        ? TerminateCause.INVALIDATE_STAG_NOT_ASSOCIATED : TerminateCause.INVALIDATE_STAG_INVALID;
                // The queue already gave this receive back: complete it here, first, or it is lost.
                completions.receiveFailed(message.buffer().workRequestId(), WorkCompletionStatus.FLUSHED,
                        cause.reason());
                terminate(cause);
                return;
            }
            invalidated = stag;
        }
        meters.received(opcode);
        completions.received(message.buffer().workRequestId(), (int) message.length(), opcode.solicitedEvent(),
                invalidated);
    }

    /**
     * A Read Request arrived within IRD (RFC 5040 §5.2.1): validate the source, answer, free the
     * slot. Only DDP's delivery of the whole Request calls this, after every earlier segment of
     * the stream was placed on this loop, so the response reads what the peer's earlier Writes
     * and Sends put there; a zero-length Request is answered the same way; and the Request makes
     * no completion and takes no posted receive (RDMAP-R-043).
     */
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
                localFailure(e);
                // The source's memory failed this end, not the Request: RDMAP Local Catastrophic
                // (RFC 5040 §7.1 #1, no headers), not a Remote Protection error that blames the peer.
                terminate(e.error() == DdpError.LOCAL_CATASTROPHIC ? TerminateCause.RDMAP_LOCAL_CATASTROPHIC
                        : readSourceCause(e.stagCheck()));
                return;
            }
        }
        transmitter.respondToRead(request, source).addListener(f -> {
            if (f.isSuccess() && !terminator.isTerminated()) {
                readRequests.post(slot);
            }
        });
        flushSoon();
    }

    /**
     * Flushes once the event loop has processed this turn's input: the Read Responses answering
     * every Read Request of one socket read (and the Read Requests that Read Responses let past
     * ORD) go out in one gathering write instead of one system call, and one TCP segment to wake the
     * peer, per message. The task runs in the same turn, after the reads (Netty runs tasks queued
     * by the loop itself before it waits for I/O again), so nothing waits for more input.
     */
    private void flushNow() {
        flushScheduled = false;
        ctx.flush();
    }

    private void flushSoon() {
        if (!flushScheduled) {
            flushScheduled = true;
            ctx.executor().execute(flushTask);
        }
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

    /** The peer's Terminate (RFC 5040 §5.4): decode it for the user, then fail the queue pair. */
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
        terminator.terminateReceived(reason, stag);
    }

    /**
     * Whether {@code ulpdu} is meant as a Terminate: its RDMAP opcode is Terminate's (the control
     * octet follows DDP's, tagged or not, so this can be read even when DDP refused the header), or
     * it arrived on the Terminate queue (QN 2; {@code segment} is {@code null} if it did not decode).
     */
    private static boolean meantAsTerminate(ByteBuf ulpdu, DdpSegment segment) {
        if (ulpdu.readableBytes() >= 2 && RdmapControl.opcodeCode(ulpdu.getUnsignedByte(ulpdu.readerIndex() + 1))
                == RdmapOpcode.TERMINATE.code()) {
            return true;
        }
        return segment != null && !segment.tagged() && segment.untaggedHeader().qn() == RdmapConstants.QN_TERMINATE;
    }

    /**
     * The peer's Terminate is itself invalid (on a wrong queue, MSN not 1 or MO not 0, too long for
     * the Terminate buffer, bad control field): RFC 5040 §5.4 and §7.1 have that reported to the
     * local ULP only (RDMAP-R-029), and a Terminate is never answered with one (RDMAP-R-028's note),
     * so it ends the queue pair as a valid one does: received, nothing sent, the connection closed.
     * The reason is what the peer wrote, if its message starts where a Terminate's control word
     * is (MO 0), else RDMAP Remote Operation Unspecified, as for a Terminate that does not decode;
     * the failure cause says what was wrong with it.
     */
    private void invalidTerminate(String why, DdpSegment segment) {
        TerminateReason reason = TerminateReason.RDMAP_OPERATION_UNSPECIFIED;
        OptionalInt stag = OptionalInt.empty();
        if (segment != null && !segment.tagged() && segment.untaggedHeader().mo() == 0
                && segment.payloadLength() >= RdmapConstants.TERMINATE_CONTROL_LENGTH) {
            try {
                TerminateMessage terminate = TerminateMessage.decode(segment.payload().duplicate());
                reason = terminate.reason();
                stag = terminatedStag(terminate);
            } catch (RuntimeException e) {
                // keep the unspecified reason
            }
        }
        port.failed(new IOException("invalid Terminate from the peer, not answered (RFC 5040 §5.4, §7.1,"
                + " RDMAP-R-029): " + why));
        terminator.terminateReceived(reason, stag);
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
}
