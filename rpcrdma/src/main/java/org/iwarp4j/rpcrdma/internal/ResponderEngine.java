package org.iwarp4j.rpcrdma.internal;

import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.UpperLayerBinding;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.HeaderLimits;
import org.iwarp4j.rpcrdma.internal.wire.ReadChunk;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;
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
 * credit comes back.
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
    private final java.util.ArrayDeque<Integer> recentPeerMemory = new java.util.ArrayDeque<>();
    private final AtomicLong calls = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger inService = new java.util.concurrent.atomic.AtomicInteger();
    private final AtomicLong discarded = new AtomicLong();
    private final AtomicLong errChunk = new AtomicLong();
    private final AtomicLong errVers = new AtomicLong();
    private final AtomicLong replyChunkReplies = new AtomicLong();
    private final AtomicLong readChunkReplies = new AtomicLong();

    public ResponderEngine(RdmaEndpoint endpoint, RpcDispatcher dispatcher, RpcRdmaSettings settings,
                           SocketAddress local, SocketAddress remote, FailedXids failedXids, ByteBufAllocator alloc) {
        this.endpoint = endpoint;
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
            backward.connectionLost();
            pulls.closeAll();
            rememberFailedOperations();
        });
    }

    /** Receives needed: Calls, backward Replies, and one pull completion per draft Reply in flight. */
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
                    sendError(error);
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
                sendError(RpcRdmaHeader.RdmaError.errChunk(h.xid(), h.version(), settings.credits())); // RPC-R-070
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

    /** Serves one Call; {@code message} (reader index at the inline Payload stream) is consumed. */
    private void serve(RpcRdmaHeader h, ChunkLists lists, ByteBuf message) {
        int xid = h.xid();
        if (failedXids.remove(remote, xid)) {
            message.release();
            errorFor(xid, "its RDMA operation failed on an earlier connection (RFC 8166 §4.5.3)");
            return;
        }
        boolean longCall = h instanceof RpcRdmaHeader.RdmaNomsg;
        List<ReadChunk> chunks = lists.readChunks();
        long pulled = chunks.stream().mapToLong(ReadChunk::length).sum();
        if (pulled > settings.maxChunkSize()) {
            // RPC-R-077: what one Call makes this end allocate is bounded, not only each chunk.
            message.release();
            errorFor(xid, "Read chunks of " + pulled + " octets in all, more than " + settings.maxChunkSize());
            return;
        }
        ReadChunk positionZero = chunks.stream().filter(c -> c.position() == 0).findFirst().orElse(null);
        List<ReadChunk> reduced = new ArrayList<>(chunks);
        reduced.remove(positionZero);
        if (longCall != (positionZero != null)) {
            message.release();
            errorFor(xid, longCall ? "RDMA_NOMSG Call without a Position-Zero Read chunk"
                    : "RDMA_MSG Call with a Position-Zero Read chunk");
            return;
        }
        RpcCallInfo inlineInfo = longCall ? null : RpcMessages.callInfo(message);
        if (!longCall && !reduced.isEmpty() && !ddpEligibleArgument(inlineInfo)) {
            message.release();
            errorFor(xid, "Read chunk for " + inlineInfo + ", which has no DDP-eligible argument (RFC 8166 §6.1)");
            return;
        }
        calls.incrementAndGet();
        if (!chunks.isEmpty() || !lists.writeList().isEmpty() || lists.replyChunk().isPresent()) {
            touchedPeerMemory(xid);
        }
        List<ReadChunk> toPull = new ArrayList<>(chunks);
        CallAssembler.pull(endpoint, toPull).whenComplete((data, error) -> {
            if (error != null) {
                message.release();
                log.debug("RDMA Read for xid 0x{} failed: {}", Integer.toHexString(xid), error.toString());
                endpoint.close();
                return;
            }
            ByteBuf base;
            List<ByteBuf> others = new ArrayList<>(data);
            if (longCall) {
                message.release();
                base = others.remove(toPull.indexOf(positionZero));
            } else {
                base = message;
            }
            RpcCallInfo info = longCall ? RpcMessages.callInfo(base) : inlineInfo;
            if (longCall && !reduced.isEmpty() && !ddpEligibleArgument(info)) {
                base.release();
                others.forEach(ByteBuf::release);
                errorFor(xid, "Read chunk for " + info + ", which has no DDP-eligible argument (RFC 8166 §6.1)");
                return;
            }
            XdrMessage call;
            try {
                call = CallAssembler.rebuild(base, reduced, others);
            } catch (IllegalArgumentException e) {
                errorFor(xid, e.getMessage());
                return;
            }
            dispatch(xid, info, lists, call);
        });
    }

    /** This XID's RPC reads or writes the Requester's memory. */
    private void touchedPeerMemory(int xid) {
        synchronized (recentPeerMemory) {
            recentPeerMemory.addLast(xid);
            while (recentPeerMemory.size() > 2 * settings.credits()) {
                recentPeerMemory.removeFirst();
            }
        }
    }

    /**
     * RFC 8166 §4.5.3, RPC-R-067: when the Requester ended the connection with a Terminate for a
     * protection error, an RDMA Read or Write of one of the last RPCs that used its memory caused it
     * (an RDMA Write completes before the peer has checked it, so which one is not known). Those
     * XIDs get ERR_CHUNK when they come again on a new connection instead of the same failure.
     */
    private void rememberFailedOperations() {
        TerminateReason reason = endpoint.queuePair().terminateReason();
        boolean protection = reason != null && reason.errorType() == 0x1
                && (reason.layerCode() == TerminateReason.Layer.RDMAP.code()
                        || reason.layerCode() == TerminateReason.Layer.DDP.code());
        if (!protection) {
            return;
        }
        synchronized (recentPeerMemory) {
            for (int xid : recentPeerMemory) {
                failedXids.add(remote, xid);
            }
            recentPeerMemory.clear();
        }
    }

    private boolean ddpEligibleArgument(RpcCallInfo info) {
        UpperLayerBinding b = settings.binding();
        return info != null && b.covers(info.program(), info.version()) && b.hasDdpEligibleArgument(info);
    }

    private void dispatch(int xid, RpcCallInfo info, ChunkLists lists, XdrMessage call) {
        inService.incrementAndGet(); // the idle timeout leaves a connection with a Call in service alone
        dispatcher.dispatch(call, transportInfo).whenComplete((reply, error) -> {
            inService.decrementAndGet();
            if (error != null) {
                errorFor(xid, "the RPC layer cannot answer it: " + unwrap(error));
                return;
            }
            replies.send(xid, info, lists, reply).whenComplete((form, e) -> {
                if (e != null) {
                    log.debug("Reply to xid 0x{} failed: {}", Integer.toHexString(xid), unwrap(e).toString());
                    endpoint.close(); // RFC 8166 §4.5.4
                    return;
                }
                switch (form) {
                    case ERR_CHUNK -> errChunk.incrementAndGet();
                    case REPLY_CHUNK -> replyChunkReplies.incrementAndGet();
                    case RESPONDER_READ_CHUNK -> readChunkReplies.incrementAndGet();
                    default -> { }
                }
            });
        });
    }

    private void errorFor(int xid, String why) {
        log.debug("ERR_CHUNK for xid 0x{}: {}", Integer.toHexString(xid), why);
        sendError(RpcRdmaHeader.RdmaError.errChunk(xid, VERSION, settings.credits()));
    }

    private void sendError(RpcRdmaHeader.RdmaError error) {
        (error.error() == org.iwarp4j.rpcrdma.internal.wire.RdmaErrorCode.ERR_VERS ? errVers : errChunk)
                .incrementAndGet();
        ReplyMarshaller.sendHeader(endpoint, error, alloc).whenComplete((v, e) -> {
            if (e != null) {
                endpoint.close(); // RPC-R-069
            }
        });
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
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
