package org.iwarp4j.rpcrdma.internal;

import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcDuplicateRequestException;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader;
import org.iwarp4j.oncrpc.internal.ServerCallBudget;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.UpperLayerBinding;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.HeaderLimits;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.ReadChunk;
import org.iwarp4j.rpcrdma.internal.wire.ReadSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Responder side of one RPC-over-RDMA connection (RFC 8166): checks each received header and
 * answers errors exactly as §4.5 says, pulls Read chunks, rebuilds and dispatches the Call, and
 * returns the Reply through {@link ReplyMarshaller}. It grants {@link RpcRdmaSettings#credits()}
 * in every message it sends (never 0, RPC-R-005), having posted that many Receives for Calls.
 *
 * <p>Reactions (RPC-R-044, RPC-R-058, RPC-R-059, RPC-R-064, RPC-R-065, RPC-R-070, RPC-R-071,
 * RPC-R-073): too short: silently discarded; unsupported version: ERR_VERS; XDR errors and chunk
 * lists beyond the limits: ERR_CHUNK; RDMA_MSGP: ERR_CHUNK; RDMA_DONE: discarded (pull completion
 * when the draft is on); RDMA_ERROR: discarded; a Read chunk for a procedure without a DDP-eligible
 * argument: ERR_CHUNK; a Call the RPC layer cannot even parse: ERR_CHUNK, so that the Requester's
 * credit comes back; the same Requester's retransmission of the Call whose RDMA Read or Write into
 * its memory failed and ended the last connection: ERR_CHUNK, once (RPC-R-067, see {@link FailedXids}
 * and {@link #rememberFailedOperations()}).
 */
public final class ResponderEngine {

    private static final Logger log = LoggerFactory.getLogger(ResponderEngine.class);

    private final RdmaEndpoint endpoint;
    private final RpcDispatcher dispatcher;
    private final RpcRdmaSettings settings;
    private final SocketAddress remote;
    private final FailedXids failedXids;
    private final ByteBufAllocator alloc;
    private final RpcRdmaHeaderDecoder decoder;
    private final PullCompletions pulls;
    private final ReplyMarshaller replies;
    private final BackwardCalls backward;
    private final RpcTransportInfo transportInfo;
    /** Calls whose RDMA operations against the Requester's memory may have failed, oldest first. */
    private final java.util.ArrayDeque<AtRisk> atRisk = new java.util.ArrayDeque<>();
    private final AtomicLong calls = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger inService = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * Messages received that get an answer (Calls that reached {@link #serve}, messages answered
     * with RDMA_ERROR) and whose answer's Send has not completed: the credits in use as this end
     * sees them.
     */
    private final java.util.concurrent.atomic.AtomicInteger unanswered = new java.util.concurrent.atomic.AtomicInteger();
    private final ResponderMeters meters;
    private final AtomicLong discarded = new AtomicLong();
    /** Set once the Requester had more Calls unanswered than the credits allow (the connection is then closed). */
    private volatile boolean overCredits;
    private final AtomicLong errChunk = new AtomicLong();
    private final AtomicLong errVers = new AtomicLong();
    private final AtomicLong replyChunkReplies = new AtomicLong();
    private final AtomicLong readChunkReplies = new AtomicLong();
    /** Takes the Calls into service as the server's budget of Calls in service allows. */
    private final CallAdmission<Taken> admission;

    /**
     * A Call received within the credits, waiting to be taken into service, with the octets its
     * Read chunks will pull (0 when they are more than one Call may pull: it is refused unpulled).
     */
    private record Taken(RpcRdmaHeader header, ChunkLists lists, ByteBuf message, long pulledOctets) {
    }

    public ResponderEngine(RdmaEndpoint endpoint, RpcDispatcher dispatcher, RpcRdmaSettings settings,
                           SocketAddress local, SocketAddress remote, FailedXids failedXids, ByteBufAllocator alloc,
                           ResponderMeters meters, ServerCallBudget budget, java.util.concurrent.Executor wakeExecutor) {
        this.endpoint = endpoint;
        // Each Call holds the octets its Read chunks will pull, and counts against its client's share.
        this.admission = new CallAdmission<>(budget, ServerCallBudget.clientOf(remote), wakeExecutor,
                Taken::pulledOctets, this::start, t -> {
            t.message().release();
            unanswered.decrementAndGet(); // never taken into service: no place to give back
        });
        this.meters = meters;
        meters.connected(settings.credits());
        this.dispatcher = dispatcher;
        this.settings = settings;
        this.remote = remote;
        this.failedXids = failedXids;
        this.alloc = alloc;
        this.decoder = new RpcRdmaHeaderDecoder(new HeaderLimits(settings.maxReadSegments(), settings.maxWriteChunks(),
                settings.maxChunkSegments(), settings.maxChunkSize()));
        this.pulls = new PullCompletions(settings.responderReadChunkTimeout());
        this.replies = new ReplyMarshaller(settings, endpoint, alloc, pulls);
        this.backward = new BackwardCalls(settings, endpoint);
        this.transportInfo = new RpcTransportInfo("rdma", local, remote, alloc);
        endpoint.onMessage(this::received);
        endpoint.closeFuture().whenComplete((q, e) -> {
            admission.close();
            backward.connectionLost();
            pulls.closeAll();
            rememberFailedOperations();
        });
    }

    /**
     * Receives needed: Calls, backward Replies, and one pull completion per draft Reply in flight.
     * All are posted when the endpoint is made, before the connection exists, and the grant in
     * every message is the fixed {@link RpcRdmaSettings#credits()}: it never rises above what is
     * posted, so no Reply ever announces credits without their Receives behind them (RPC-R-008).
     */
    public static int receivesNeeded(RpcRdmaSettings settings) {
        return settings.credits() + settings.backchannelCredits() + (settings.responderReadChunks() ? settings.credits() : 0);
    }

    public RdmaEndpoint endpoint() {
        return endpoint;
    }

    public BackwardCalls backward() {
        return backward;
    }

    private void received(RdmaEndpoint.Received r) {
        ByteBuf m = r.message();
        boolean handedOn = false;
        try {
            HeaderDecodeResult result = decoder.decode(m);
            if (result instanceof HeaderDecodeResult.Rejected rejected) {
                RpcRdmaHeader.RdmaError error = rejected.errorReply(settings.credits());
                log.debug("Call header rejected: {}", rejected);
                if (error == null) {
                    discarded.incrementAndGet();
                } else {
                    answerWithError(error);
                }
                return;
            }
            RpcRdmaHeader h = ((HeaderDecodeResult.Decoded) result).header();
            if (h instanceof RpcRdmaHeader.RdmaError) {
                discarded.incrementAndGet(); // RPC-R-044
            } else if (h instanceof RpcRdmaHeader.RdmaDone) {
                if (!(settings.responderReadChunks() && pulls.completed(h.xid()))) {
                    discarded.incrementAndGet(); // RPC-R-071, RRC-R-009
                }
            } else if (h instanceof RpcRdmaHeader.RdmaMsgp) {
                answerWithError(RpcRdmaHeader.RdmaError.errChunk(h.xid(), h.version(), settings.credits())); // RPC-R-070
            } else if (h instanceof RpcRdmaHeader.RdmaMsg msg && RpcMessages.messageType(m) == RpcMessages.REPLY) {
                handedOn = true;
                backward.reply(msg, m);
            } else {
                handedOn = true;
                serve(h, h instanceof RpcRdmaHeader.RdmaMsg msg ? msg.chunks() : ((RpcRdmaHeader.RdmaNomsg) h).chunks(), m);
            }
        } finally {
            if (!handedOn) {
                m.release();
            }
        }
    }

    /**
     * A Call whose RDMA Read or Write against the Requester's memory was posted, with the handles
     * (STags) of the chunks it gave. Compared by identity: each posting is its own entry.
     */
    private static final class AtRisk {
        final int xid;
        final FailedXids.CallShape shape;
        final java.util.Set<Integer> handles = new java.util.HashSet<>();

        AtRisk(int xid, FailedXids.CallShape shape, ChunkLists lists) {
            this.xid = xid;
            this.shape = shape;
            // Plain loops over the lists (indexed: they are List.copyOf's random-access lists), no lambdas.
            List<ReadSegment> readList = lists.readList();
            for (int i = 0; i < readList.size(); i++) {
                handles.add(readList.get(i).target().handle());
            }
            List<WriteChunk> writeList = lists.writeList();
            for (int i = 0; i < writeList.size(); i++) {
                addHandles(writeList.get(i));
            }
            if (lists.replyChunk().isPresent()) {
                addHandles(lists.replyChunk().get());
            }
        }

        private void addHandles(WriteChunk chunk) {
            List<RdmaSegment> segments = chunk.segments();
            for (int i = 0; i < segments.size(); i++) {
                handles.add(segments.get(i).handle());
            }
        }
    }

    /**
     * Receives one Call within the credits and offers it for service; {@code message} (reader
     * index at the inline Payload stream) is consumed.
     */
    private void serve(RpcRdmaHeader h, ChunkLists lists, ByteBuf message) {
        int inUse = unanswered.incrementAndGet();
        meters.callReceived(inUse);
        if (pastCredits(inUse)) {
            message.release();
            return;
        }
        admission.offer(new Taken(h, lists, message, octetsToPull(lists)));
    }

    /** What the Call's Read chunks will make this end allocate; 0 for more than {@link #start} pulls. */
    private long octetsToPull(ChunkLists lists) {
        List<ReadSegment> segments = lists.readList();
        long octets = 0;
        for (int i = 0; i < segments.size(); i++) {
            octets += segments.get(i).target().length();
        }
        return octets <= settings.maxChunkSize() ? octets : 0;
    }

    /**
     * Answers a received message that is no Call in service (a header rejected with ERR_VERS or
     * ERR_CHUNK, an RDMA_MSGP) with {@code error}. It counts against the credits like a Call until
     * the error's Send completes: each answer is a Send the Requester's reading lets leave, and one
     * that no slot holds takes an STag from the RNIC's table until then, so a Requester sending
     * such messages without reading the answers must meet the same line as one sending Calls.
     */
    private void answerWithError(RpcRdmaHeader.RdmaError error) {
        if (pastCredits(unanswered.incrementAndGet())) {
            return;
        }
        sendError(error).whenComplete((v, e) -> unanswered.decrementAndGet());
    }

    /**
     * Whether {@code inUse}, the count just taken for a received message, is over the line; if so
     * the count is given back and the connection closed.
     */
    private boolean pastCredits(int inUse) {
        if (inUse <= CREDIT_SLACK * settings.credits()) {
            return false;
        }
        // RPC-R-003: a Requester never has more Calls unanswered than the grant; RFC 8166
        // §3.3.1 lets the transport end the connection when it does. Our Receives are posted
        // again as they are taken, so nothing below would stop such a Requester: every Call
        // would be pulled, assembled and queued for service, every error answer sent. The count
        // of a message drops only once its answer's Send completed, which can be after the
        // Requester saw the answer and sent the next message: hence twice the grant before this
        // end gives up.
        unanswered.decrementAndGet(); // not taken into service: no place in the server to give back
        if (!overCredits) {
            overCredits = true;
            log.debug("Requester {} has {} messages unanswered, over the {} credits granted; closing the connection",
                    remote, inUse, settings.credits());
        }
        endpoint.close();
        return true;
    }

    /**
     * Takes a Call into service: it holds {@code place} in the server's budget until {@link #answered}
     * (every way out of here answers it, or loses the connection and answers it then).
     */
    private void start(Taken taken, ServerCallBudget.Place place) {
        RpcRdmaHeader h = taken.header();
        ChunkLists lists = taken.lists();
        ByteBuf message = taken.message();
        int xid = h.xid();
        // Every way out of here answers the Call (errorFor, the Reply) or loses the connection (answered).
        boolean longCall = h instanceof RpcRdmaHeader.RdmaNomsg;
        // the Read list, not its grouping into chunks (a map and lists): a Call has Read chunks iff it has segments
        boolean usesPeerMemory = !lists.readList().isEmpty() || !lists.writeList().isEmpty()
                || lists.replyChunk().isPresent();
        FailedXids.CallShape shape = longCall ? FailedXids.CallShape.LONG_CALL : FailedXids.CallShape.of(message);
        // RPC-R-067: only a Call that would repeat RDMA against the Requester's memory can repeat the failure.
        if (usesPeerMemory && failedXids.takeRetransmission(remote, xid, shape)) {
            message.release();
            errorFor(xid, place, "its RDMA operation failed on an earlier connection (RFC 8166 §4.5.3)");
            return;
        }
        List<ReadChunk> chunks = lists.readChunks();
        // Plain loops, no streams: this runs once per Call and, with 1 MiB NFS READs, too few
        // times for the JIT to compile it (docs/performance-log.md, fourth session d).
        long pulled = 0;
        ReadChunk positionZero = null;
        for (ReadChunk c : chunks) {
            pulled += c.length();
            if (positionZero == null && c.position() == 0) {
                positionZero = c;
            }
        }
        if (pulled > settings.maxChunkSize()) {
            // RPC-R-077: what one Call makes this end allocate is bounded, not only each chunk.
            message.release();
            errorFor(xid, place, "Read chunks of " + pulled + " octets in all, more than " + settings.maxChunkSize());
            return;
        }
        if (longCall != (positionZero != null)) {
            message.release();
            errorFor(xid, place, longCall ? "RDMA_NOMSG Call without a Position-Zero Read chunk"
                    : "RDMA_MSG Call with a Position-Zero Read chunk");
            return;
        }
        RpcCallInfo inlineInfo = longCall ? null : RpcMessages.callInfo(message);
        if (!longCall && chunks.size() > 0 && !ddpEligibleArgument(inlineInfo)) {
            message.release();
            errorFor(xid, place, "Read chunk for " + inlineInfo + ", which has no DDP-eligible argument (RFC 8166 §6.1)");
            return;
        }
        calls.incrementAndGet();
        if (chunks.isEmpty()) {
            // Nothing to pull (an RDMA_MSG Call, e.g. every NFS READ): straight on, without the
            // futures, lists and the AtRisk entry pulling would need. CallAssembler.pull of no
            // chunks completed at once on this thread, so the order of events is unchanged.
            assembled(xid, shape, lists, message, inlineInfo, List.of(), List.of(), place);
            return;
        }
        // The chunks inserted into the Payload stream: all but the Position-Zero one (all of them,
        // without a copy, for an RDMA_MSG Call such as an NFS WRITE).
        List<ReadChunk> insertedChunks = positionZero == null ? chunks : without(chunks, positionZero);
        AtRisk pulling = new AtRisk(xid, shape, lists);
        atRisk(pulling);
        int zeroIndex = positionZero == null ? -1 : chunks.indexOf(positionZero);
        CompletableFuture<List<ByteBuf>> chunkData;
        try {
            chunkData = CallAssembler.pull(endpoint, chunks);
        } catch (RuntimeException | Error e) { // e.g. no STag left for the sinks, or no direct memory: as a failed Read
            chunkData = CompletableFuture.failedFuture(e);
        }
        chunkData.whenComplete((data, error) -> {
            if (error != null) {
                message.release();
                log.debug("RDMA Read for xid 0x{} failed: {}", Integer.toHexString(xid), error.toString());
                answered(place);
                endpoint.close();
                return;
            }
            safe(pulling); // every Read Response came back: the Requester accepted those Reads
            List<ByteBuf> others = data;
            ByteBuf base;
            if (longCall) {
                message.release();
                others = new ArrayList<>(data);
                base = others.remove(zeroIndex);
            } else {
                base = message;
            }
            RpcCallInfo info = longCall ? RpcMessages.callInfo(base) : inlineInfo;
            if (longCall && info != null && info.xid() != xid) {
                // Checked for RDMA_MSG when the header was decoded; a Long Call's RPC message is read
                // only now. Its Reply would carry two XIDs (RPC-R-038): ERR_CHUNK (RPC-R-065).
                base.release();
                others.forEach(ByteBuf::release);
                errorFor(xid, place, "Long Call whose RPC message has XID 0x" + Integer.toHexString(info.xid())
                        + " under rdma_xid 0x" + Integer.toHexString(xid));
                return;
            }
            if (longCall && !insertedChunks.isEmpty() && !ddpEligibleArgument(info)) {
                base.release();
                others.forEach(ByteBuf::release);
                errorFor(xid, place, "Read chunk for " + info + ", which has no DDP-eligible argument (RFC 8166 §6.1)");
                return;
            }
            assembled(xid, shape, lists, base, info, insertedChunks, others, place);
        });
    }

    private static List<ReadChunk> without(List<ReadChunk> chunks, ReadChunk chunk) {
        List<ReadChunk> rest = new ArrayList<>(chunks);
        rest.remove(chunk);
        return rest;
    }

    /** Rebuilds the Call from {@code base} and the pulled {@code others} (all consumed) and dispatches it. */
    private void assembled(int xid, FailedXids.CallShape shape, ChunkLists lists, ByteBuf base, RpcCallInfo info,
            List<ReadChunk> reduced, List<ByteBuf> others, ServerCallBudget.Place place) {
        XdrMessage call;
        try {
            call = CallAssembler.rebuild(base, reduced, others);
        } catch (IllegalArgumentException e) {
            // A Position outside the Payload stream: the header was valid, the chunk's offset does not
            // match the stream, which RFC 8166 §4.5.2 answers with GARBAGE_ARGS (RPC-R-066).
            log.debug("GARBAGE_ARGS for xid 0x{}: {}", Integer.toHexString(xid), e.getMessage());
            place.octetsDone();
            XdrEncoder out = XdrEncoder.create(alloc);
            new RpcReplyHeader.Accepted(xid, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS, 0, 0).encode(out);
            sendReply(xid, info, lists, shape, out.toMessage(), place);
            return;
        }
        dispatch(xid, info, lists, call, shape, place);
    }

    private void atRisk(AtRisk call) {
        synchronized (atRisk) {
            atRisk.addLast(call);
            // The Requester has at most `credits` Calls outstanding (RPC-R-003); twice that covers
            // every Call whose operations can still be in flight and bounds what one connection adds.
            while (atRisk.size() > 2 * settings.credits()) {
                atRisk.removeFirst();
            }
        }
    }

    private void safe(AtRisk call) {
        synchronized (atRisk) {
            atRisk.removeLastOccurrence(call);
        }
    }

    /**
     * RFC 8166 §4.5.3, RPC-R-067: once the connection is gone, records the Calls whose RDMA
     * operation may be what killed it, so that the same Requester's retransmission on its next
     * connection gets ERR_CHUNK instead of the same failure and connection loss again.
     *
     * <p>Only a Terminate <em>received</em> from the Requester with a protection error (RDMAP
     * Remote Protection Error, RFC 5040 §4.8, or a DDP tagged-buffer error, RFC 5041 §7.2) means
     * that one of this Responder's RDMA Reads or Writes against the Requester's memory failed, as
     * §4.5.3 describes (e.g. a chunk no longer registered). A Terminate this end sent means the
     * Requester was at fault (say, it wrote into memory of ours it was never given): its Calls
     * are not to blame, retrying them loops on nothing, and nothing is recorded; nor for an orderly
     * close, an MPA/LLP error or a Terminate of another kind.
     *
     * <p>Candidates are the Calls not known to have survived their RDMA operations: those whose
     * Read chunks were still being pulled, and those whose Reply carried RDMA Writes (a Write
     * completes before the Requester has checked it, and the Requester's RNIC drops everything
     * after the segment it refuses, the Reply's Send included, so a Reply sent is not a Reply
     * received). A Call whose Read chunks were all pulled and whose Reply wrote nothing cannot have
     * caused it; a Call that asked for no RDMA never is a candidate. At most {@code 2 × credits}.
     *
     * <p>When the Terminate echoes the refused message (RFC 5040 §4.8 and Fig. 10; our RNIC does),
     * it names the STag of the Requester's memory that failed: only the candidates whose chunks
     * carry that handle are recorded, normally exactly one Call. If it names an STag no candidate
     * has, nothing is recorded (the operation was not one of those Calls; should a retransmission
     * fail again, its new STag will be named then). Only a Terminate that echoes nothing leaves
     * every candidate recorded.
     */
    private void rememberFailedOperations() {
        QueuePair qp = endpoint.queuePair();
        TerminateReason reason = qp.terminateReason();
        boolean peerFoundOurOperationBad = reason != null && qp.terminateReceived() && reason.errorType() == 0x1
                && (reason.layerCode() == TerminateReason.Layer.RDMAP.code()
                        || reason.layerCode() == TerminateReason.Layer.DDP.code());
        java.util.OptionalInt stag = qp.terminatedStag();
        synchronized (atRisk) {
            if (peerFoundOurOperationBad) {
                for (AtRisk call : atRisk) {
                    if (stag.isEmpty() || call.handles.contains(stag.getAsInt())) {
                        log.debug("xid 0x{} recorded as failed ({}, STag {})", Integer.toHexString(call.xid), reason, stag);
                        failedXids.add(remote, call.xid, call.shape);
                    }
                }
            }
            atRisk.clear();
        }
    }

    private boolean ddpEligibleArgument(RpcCallInfo info) {
        UpperLayerBinding b = settings.binding();
        return info != null && b.covers(info.program(), info.version()) && b.hasDdpEligibleArgument(info);
    }

    private void dispatch(int xid, RpcCallInfo info, ChunkLists lists, XdrMessage call, FailedXids.CallShape shape,
                          ServerCallBudget.Place place) {
        inService.incrementAndGet(); // the idle timeout leaves a connection with a Call in service alone
        dispatcher.dispatch(call, transportInfo).whenComplete((reply, error) -> {
            inService.decrementAndGet();
            place.octetsDone(); // the procedure is done with its arguments, the pulled data among them
            if (error != null && unwrap(error) instanceof RpcDuplicateRequestException) {
                answered(place); // a retransmission whose first reply is not kept: nothing, as knfsd
                log.debug("xid 0x{} dropped: {}", Integer.toHexString(xid), unwrap(error).getMessage());
                return;
            }
            if (error != null) {
                errorFor(xid, place, "the RPC layer cannot answer it: " + unwrap(error));
                return;
            }
            sendReply(xid, info, lists, shape, reply, place);
        });
    }

    /** Sends the Reply to a Call in service, {@code reply} consumed. */
    private void sendReply(int xid, RpcCallInfo info, ChunkLists lists, FailedXids.CallShape shape, XdrMessage reply,
                           ServerCallBudget.Place place) {
        boolean mayWrite = !lists.writeList().isEmpty() || lists.replyChunk().isPresent();
        // Only a Call that gave chunks to write into gets an AtRisk entry (and its set of handles).
        AtRisk writing = mayWrite ? new AtRisk(xid, shape, lists) : null;
        if (mayWrite) {
            atRisk(writing); // the Reply may be RDMA Written into the Requester's memory
        }
        // A Reply exposed as a responder-provided Read chunk holds its Call's count and place until
        // the Requester pulled it (or it expired): what it holds is registered memory, so a
        // Requester that never sends RDMA_DONE meets the credit check instead of piling Replies up.
        replies.send(xid, info, lists, reply, () -> answered(place)).whenComplete((form, e) -> {
            boolean exposed = form == ReplyMarshaller.Form.RESPONDER_READ_CHUNK
                    || (e != null && unwrap(e) instanceof ReplyMarshaller.ExposedReplyFailed);
            if (!exposed) {
                answered(place); // else counted down when its Read chunk is released
            }
            if (e != null) {
                log.debug("Reply to xid 0x{} failed: {}", Integer.toHexString(xid), unwrap(e).toString());
                endpoint.close(); // RFC 8166 §4.5.4, RPC-R-069
                return;
            }
            if (mayWrite && form == ReplyMarshaller.Form.INLINE && lists.writeList().isEmpty()) {
                safe(writing); // the Reply chunk went unused: nothing was written
            }
            switch (form) {
                case ERR_CHUNK -> errChunk.incrementAndGet();
                case REPLY_CHUNK -> replyChunkReplies.incrementAndGet();
                case RESPONDER_READ_CHUNK -> readChunkReplies.incrementAndGet();
                default -> { }
            }
        });
    }

    /** A Call taken into service by {@link #start} was answered, or will never be. */
    private void answered(ServerCallBudget.Place place) {
        if (place.ended()) {
            unanswered.decrementAndGet();
        }
    }

    /**
     * Answers a Call taken into service by {@link #start} with ERR_CHUNK; the Call is answered once
     * that Send completed, as a Reply's is (RPC-R-003).
     */
    private void errorFor(int xid, ServerCallBudget.Place place, String why) {
        log.debug("ERR_CHUNK for xid 0x{}: {}", Integer.toHexString(xid), why);
        place.octetsDone(); // nothing (more) is pulled for a refused Call
        sendError(RpcRdmaHeader.RdmaError.errChunk(xid, VERSION, settings.credits())).whenComplete((v, e) -> answered(place));
    }

    /** Sends {@code error}; the future completes (also on failure, which closes the connection) when the Send did. */
    private CompletableFuture<Void> sendError(RpcRdmaHeader.RdmaError error) {
        (error.error() == org.iwarp4j.rpcrdma.internal.wire.RdmaErrorCode.ERR_VERS ? errVers : errChunk)
                .incrementAndGet();
        return ReplyMarshaller.sendHeader(endpoint, error, alloc).handle((v, e) -> {
            if (e != null) {
                endpoint.close(); // RPC-R-069
            }
            return null;
        });
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /**
     * Messages received that get an answer (Calls, and those answered with RDMA_ERROR) whose answer's
     * Send has not completed: the credits the Requester uses, as this end sees them.
     */
    public int callsUnanswered() {
        return unanswered.get();
    }

    /** Calls handed to the dispatcher and not yet answered by it. */
    public int callsInService() {
        return inService.get();
    }

    public long callsReceived() {
        return calls.get();
    }

    public long discarded() {
        return discarded.get();
    }

    /** Whether the Requester went over its credits (and the connection was closed for it). */
    public boolean overCredits() {
        return overCredits;
    }

    /** Calls unanswered, as a multiple of the credits granted, past which the connection is closed. */
    static final int CREDIT_SLACK = 2;

    public long errChunkSent() {
        return errChunk.get();
    }

    public long errVersSent() {
        return errVers.get();
    }

    public long replyChunkReplies() {
        return replyChunkReplies.get();
    }

    public long responderReadChunkReplies() {
        return readChunkReplies.get();
    }

    /** Calls received within the credits and waiting for room in the server's budget of Calls in service. */
    public int callsWaiting() {
        return admission.waiting();
    }

    public int pullsWaiting() {
        return pulls.waitingCount();
    }

    public long pullsTimedOut() {
        return pulls.timedOut();
    }

    /** Told the XID of each responder-provided Read chunk invalidated for want of pull completion. */
    public void onPullTimeout(java.util.function.IntConsumer listener) {
        pulls.onExpiry(listener);
    }
}
