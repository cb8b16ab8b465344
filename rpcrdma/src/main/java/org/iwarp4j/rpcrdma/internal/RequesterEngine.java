package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.Timeout;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcException;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaErrorException;
import org.iwarp4j.rpcrdma.RpcRdmaProtocolException;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.HeaderLimits;
import org.iwarp4j.rpcrdma.internal.wire.RdmaErrorCode;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Requester side of RPC-over-RDMA (RFC 8166): marshals Calls ({@link CallMarshaller}), keeps
 * the credit rules, matches Replies by XID, fences registered memory before an RPC completes,
 * reconnects and retransmits, and serves backward-direction Calls (RFC 8167).
 *
 * <p>Credits (§3.3.1, §3.3.3): one Call until the first Reply, then never more Calls without a
 * Reply than the smaller of what this end requests and what the last Reply granted (RPC-R-003,
 * RPC-R-004, RPC-R-012). A grant of 0 is taken as 1, a larger grant than requested as the request
 * (RPC-R-006). A Call whose caller gave up keeps its credit until its Reply arrives: the Responder
 * still holds a Receive for it. Once such Calls hold every credit, nothing more could be sent, so
 * the connection is ended to get them back (as Linux's xprtrdma disconnects on an RPC timeout).
 *
 * <p>Connection loss (§4.5.5): the Calls without a Reply are sent again on a new connection, at
 * most {@link RpcRdmaSettings#maxRetransmissions()} times each; a connection is made again only
 * for a Call, and attempts after one that brought no Reply are spaced by {@link
 * RpcRdmaSettings#reconnectDelay()}, as {@code RpcTcpClientTransport} and Linux's RPC client do.
 *
 * <p>Threads: {@link #call} from any thread; Replies arrive on the connection's event loop. State is
 * guarded by one lock; futures are completed outside it.
 */
public final class RequesterEngine {

    private static final Logger log = LoggerFactory.getLogger(RequesterEngine.class);
    /** How many opening octets of an undecodable message {@link #state()} shows: the header of a short Reply. */
    private static final int DISCARD_EXCERPT = 48;

    private final Rnic rnic;
    private final SocketAddress server;
    private final RpcRdmaSettings settings;
    private final ByteBufAllocator alloc;
    private final RpcRdmaHeaderDecoder decoder;
    private final Object lock = new Object();
    private final Map<Integer, Outstanding> sent = new LinkedHashMap<>();
    private final ArrayDeque<Outstanding> waiting = new ArrayDeque<>();
    private final Set<Integer> abandoned = new HashSet<>();
    private final BackwardService backward;
    private RdmaEndpoint endpoint;
    private RdmaEndpoint connecting;
    private CallMarshaller marshaller;
    private int granted = RpcRdmaConstants.INITIAL_CREDITS;
    private int maxInFlight;
    private long unknownXidReplies;
    private long discardedReplies;
    /** Why the last discarded message was discarded, for {@link #state()}; {@code null} before the first. */
    private String lastDiscarded;
    private long retransmissions;
    private int connections;
    /** A connection attempt is scheduled or under way for the Calls waiting. */
    private boolean reconnecting;
    /** When the last connection attempt began ({@link System#nanoTime()}). */
    private long lastAttemptNanos;
    /** The next attempt waits this long after the last began: 0 until a connection brought no Reply. */
    private long reconnectDelayNanos;
    /** The attempt waiting for its delay, if any. */
    private Timeout scheduledReconnect;
    private boolean closed;

    public RequesterEngine(Rnic rnic, SocketAddress server, RpcRdmaSettings settings, ByteBufAllocator alloc) {
        this.rnic = rnic;
        this.server = server;
        this.settings = settings;
        this.alloc = alloc;
        this.decoder = new RpcRdmaHeaderDecoder(new HeaderLimits(settings.maxReadSegments(), settings.maxWriteChunks(),
                settings.maxChunkSegments(), settings.maxChunkSize()));
        this.backward = new BackwardService(settings);
    }

    /** Connects the first time. */
    public CompletableFuture<Void> start() {
        return connect().thenApply(e -> null);
    }

    private CompletableFuture<RdmaEndpoint> connect() {
        // RPC-R-009: one Receive per Call this end may have outstanding (it never sends more than its
        // own request, creditLimit()) plus the backward Calls the Responder may send: every Reply
        // and backward Call finds a Receive, and each is posted again as soon as it is taken.
        RdmaEndpoint e = RdmaEndpoint.forRequester(rnic, settings, settings.credits() + settings.backchannelCredits());
        synchronized (lock) {
            if (closed) {
                e.close();
                return CompletableFuture.failedFuture(new RpcTransportException("RPC-over-RDMA transport closed"));
            }
            connecting = e; // closed by close() if it closes first
            lastAttemptNanos = System.nanoTime();
        }
        return e.connect(server).thenApply(connected -> {
            attach(connected);
            return connected;
        });
    }

    private void attach(RdmaEndpoint e) {
        e.onMessage(this::received);
        boolean closeNow;
        synchronized (lock) {
            closeNow = closed;
            if (connecting == e) {
                connecting = null;
            }
            if (!closeNow) {
                endpoint = e;
                marshaller = new CallMarshaller(settings, e, alloc);
                backward.attach(e);
                granted = RpcRdmaConstants.INITIAL_CREDITS;
                reconnecting = false;
                connections++;
            }
        }
        if (closeNow) {
            e.close();
            return;
        }
        e.closeFuture().whenComplete((q, x) -> connectionLost(e));
        pump();
    }

    // ------------------------------------------------------------------ calls

    /** Sends {@code call} (consumed) and completes with its Reply (the caller releases it). */
    public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
        Outstanding o = new Outstanding(info, call);
        long reconnectIn = -1;
        synchronized (lock) {
            if (closed || (endpoint == null && !reconnecting && !settings.reconnect())) {
                call.release();
                return CompletableFuture.failedFuture(new RpcTransportException(closed
                        ? "RPC-over-RDMA transport closed" : "RPC-over-RDMA connection lost"));
            }
            waiting.add(o);
            if (endpoint == null && !reconnecting) {
                // lost while idle, or an earlier attempt failed: connect for this Call
                reconnectIn = nextAttemptIn();
            }
        }
        if (reconnectIn >= 0) {
            reconnectAfter(reconnectIn);
        }
        o.future.whenComplete((r, e) -> {
            if (o.future.isCancelled()) {
                cancelled(o);
            }
        });
        pump();
        return o.future;
    }

    /** Sends waiting Calls while credits allow. */
    private void pump() {
        List<Runnable> afterLock = new ArrayList<>();
        synchronized (lock) {
            while (!waiting.isEmpty() && endpoint != null && endpoint.isOpen() && !reconnecting
                    && inFlight() < creditLimit()) {
                Outstanding o = waiting.poll();
                if (o.future.isDone()) {
                    o.call.release();
                    continue;
                }
                ByteBuf[] send = new ByteBuf[1];
                try {
                    o.attempt = marshaller.marshal(o.info, o.call, send);
                } catch (RuntimeException e) {
                    o.call.release();
                    afterLock.add(() -> o.future.completeExceptionally(e instanceof RpcException ? e
                            : new RpcTransportException("cannot send " + o.info + ": " + e, e)));
                    continue;
                }
                if (o.sends++ > 0) {
                    retransmissions++;
                }
                sent.put(o.info.xid(), o);
                maxInFlight = Math.max(maxInFlight, inFlight());
                RdmaEndpoint via = endpoint;
                via.send(send[0], OptionalInt.empty()).whenComplete((v, e) -> {
                    if (e != null && via.isOpen()) {
                        log.debug("Send of {} failed: {}", o.info, e.toString());
                        via.close(); // the Call may or may not have left: only a new connection can tell
                    }
                });
            }
        }
        afterLock.forEach(Runnable::run);
    }

    private int inFlight() {
        return sent.size() + abandoned.size();
    }

    /** Calls that may be without a Reply now: the smaller of the request and the grant in force. */
    private int creditLimit() {
        return Math.min(settings.credits(), granted);
    }

    /**
     * The connection to end because Calls given up on hold every credit (under the lock), or
     * {@code null}. Their Replies may never come (the Responder dropped them, or sent one this end
     * could not use), and until they do nothing more may be sent (RPC-R-003); a new connection
     * starts with no Call outstanding (RFC 8166 §3.3.1), and the Calls without a Reply are sent
     * again on it.
     */
    private RdmaEndpoint wedged() {
        return endpoint != null && !abandoned.isEmpty() && abandoned.size() >= creditLimit() ? endpoint : null;
    }

    private static void endWedged(RdmaEndpoint wedged) {
        if (wedged != null) {
            log.debug("Calls given up on hold every credit of {}; ending the connection to get them back",
                    wedged.queuePair());
            wedged.abort(); // a Responder that answers nothing may read nothing either: no graceful close
        }
    }

    private void cancelled(Outstanding o) {
        OutgoingCall attempt = null;
        RdmaEndpoint wedged = null;
        synchronized (lock) {
            if (waiting.remove(o)) {
                o.call.release();
                return;
            }
            if (sent.remove(o.info.xid(), o)) {
                abandoned.add(o.info.xid()); // the Responder still holds a Receive for it
                attempt = o.attempt;
                o.attempt = null;
                wedged = wedged();
            }
        }
        endWedged(wedged);
        if (attempt != null) {
            // RPC-R-057: a cancelled RPC's memory is fenced now, before anything else may reuse it.
            OutgoingCall a = attempt;
            a.registrations().fence(OptionalInt.empty()).whenComplete((v, e) -> {
                a.registrations().release();
                o.call.release();
            });
        }
    }

    // ------------------------------------------------------------------ replies

    private void received(RdmaEndpoint.Received r) {
        ByteBuf m = r.message();
        try {
            HeaderDecodeResult result = decoder.decode(m);
            if (result instanceof HeaderDecodeResult.Rejected rejected) {
                // RPC-R-060: a Requester never answers; RPC-R-063: an RDMA_ERROR it cannot decode is
                // dropped here too (HeaderProblem.UNDECODABLE_ERROR), the Call it names ended as above.
                // The opening octets go with it: a header from a peer we interoperate with that we cannot
                // decode is a bug on one side, and the timeout message is all a failed run may keep.
                discarded(String.format("xid 0x%08x: header error %s: %s (%d octets, starting %s)", rejected.xid(),
                        rejected.problem(), rejected.detail(), m.readableBytes(),
                        ByteBufUtil.hexDump(m, m.readerIndex(), Math.min(m.readableBytes(), DISCARD_EXCERPT))),
                        rejected.problem().namesACall() ? OptionalInt.of(rejected.xid()) : OptionalInt.empty());
                return;
            }
            RpcRdmaHeader h = ((HeaderDecodeResult.Decoded) result).header();
            if (h instanceof RpcRdmaHeader.RdmaMsgp || h instanceof RpcRdmaHeader.RdmaDone) {
                discarded(String.format("xid 0x%08x: %s is discarded (RFC 8166 §4.6)", h.xid(), h.procedure()),
                        OptionalInt.of(h.xid())); // RPC-R-070, RPC-R-071
                return;
            }
            if (h instanceof RpcRdmaHeader.RdmaMsg && RpcMessages.messageType(m) == RpcMessages.CALL) {
                backward.call(h, m.retain());
                return;
            }
            reply(h, m, r.invalidatedStag());
        } finally {
            m.release();
        }
    }

    /**
     * A message dropped for its header, never answered (RFC 8166 §4.5, RPC-R-060). One of version 1
     * whose XID can be trusted ({@code xid}) and is that of a Call in flight ends that Call with
     * {@link RpcRdmaProtocolException}: the Responder answered it, freeing its Receive and so its
     * credit, and will not answer it again on this connection; waiting for the caller's timeout
     * would hold a credit for nothing. Linux's xprtrdma likewise completes such an RPC with EIO.
     */
    private void discarded(String why, OptionalInt xid) {
        Outstanding o = null;
        OutgoingCall attempt = null;
        synchronized (lock) {
            discardedReplies++;
            lastDiscarded = why;
            if (xid.isPresent()) {
                o = sent.remove(xid.getAsInt());
                if (o != null) {
                    attempt = o.attempt;
                } else {
                    abandoned.remove(xid.getAsInt());
                }
            }
        }
        log.debug("Reply discarded: {}", why);
        if (o != null) {
            finish(o, attempt, null, new RpcRdmaProtocolException("the Reply to " + o.info + " was malformed and "
                    + "discarded (RFC 8166 §4.5): " + why), OptionalInt.empty());
        }
        pump();
    }

    private void reply(RpcRdmaHeader h, ByteBuf payload, OptionalInt invalidated) {
        Outstanding o;
        RdmaEndpoint via;
        boolean givenUp = false;
        RdmaEndpoint wedged;
        synchronized (lock) {
            via = endpoint;
            granted = clampGrant(h.credits());
            o = sent.remove(h.xid());
            if (o == null) {
                givenUp = abandoned.remove(h.xid());
                if (!givenUp) {
                    unknownXidReplies++;
                    log.debug("Reply with unknown XID 0x{} discarded", Integer.toHexString(h.xid()));
                }
            } else {
                reconnectDelayNanos = 0; // the Responder serves Calls: a lost connection is made again at once
            }
            wedged = wedged(); // a smaller grant may leave nothing to the Calls not given up on
        }
        endWedged(wedged);
        if (o != null) {
            complete(o, h, payload, invalidated);
        } else if (givenUp && settings.responderReadChunks() && via != null && h instanceof RpcRdmaHeader.RdmaNomsg n
                && !n.chunks().readList().isEmpty()) {
            // RRC-R-008. Only for a Call of ours given up on: a message for an XID never sent (or
            // answered already) gets nothing, or a Responder could have this end post a Send for
            // every message it sends; its own timeout releases such a chunk (RRC-R-011).
            ResponderReadChunks.notifyPulled(via, settings, h.xid(), n.chunks());
        }
        pump();
    }

    private int clampGrant(int credits) {
        long c = Integer.toUnsignedLong(credits);
        return (int) Math.max(1, Math.min(c, settings.credits()));
    }

    private void complete(Outstanding o, RpcRdmaHeader h, ByteBuf payload, OptionalInt invalidated) {
        OutgoingCall attempt = o.attempt;
        XdrMessage reply = null;
        RuntimeException error = null;
        try {
            if (h instanceof RpcRdmaHeader.RdmaError e) {
                error = new RpcRdmaErrorException(e.xid(), e.error() == RdmaErrorCode.ERR_VERS
                        ? RpcRdmaErrorException.Code.ERR_VERS : RpcRdmaErrorException.Code.ERR_CHUNK, e.low(), e.high(),
                        e.version());
            } else {
                ChunkLists lists = h instanceof RpcRdmaHeader.RdmaMsg m ? m.chunks() : ((RpcRdmaHeader.RdmaNomsg) h).chunks();
                if (!lists.readList().isEmpty() && h instanceof RpcRdmaHeader.RdmaNomsg && settings.responderReadChunks()) {
                    ResponderReadChunks.pull(endpoint(), settings, h, lists, attempt).whenComplete((pulled, x) ->
                            finish(o, attempt, pulled, x == null ? null : unwrap(x), invalidated));
                    return;
                }
                reply = ReplyAssembler.assemble(h, lists, payload, attempt);
            }
        } catch (RpcRdmaProtocolException e) {
            error = e;
        }
        finish(o, attempt, reply, error, invalidated);
    }

    /** Fences the RPC's memory, then completes it (RPC-R-025, RPC-R-057, RPC-R-068). */
    private void finish(Outstanding o, OutgoingCall attempt, XdrMessage reply, Throwable error, OptionalInt invalidated) {
        RdmaEndpoint via = endpoint();
        attempt.registrations().fence(invalidated).whenComplete((v, fenceError) -> {
            if (fenceError != null && via != null) {
                log.warn("cannot invalidate the memory of {}; closing the connection (RFC 8166 §4.5.4)", o.info);
                via.close();
            }
            attempt.registrations().release();
            o.call.release();
            if (error != null) {
                o.future.completeExceptionally(error);
            } else if (!o.future.complete(reply)) {
                reply.release();
            }
        });
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    private RdmaEndpoint endpoint() {
        synchronized (lock) {
            return endpoint;
        }
    }

    // ------------------------------------------------------------------ connection loss

    private void connectionLost(RdmaEndpoint lost) {
        List<Outstanding> failed = new ArrayList<>();
        List<Outstanding> exhausted = new ArrayList<>();
        long reconnectIn = -1;
        synchronized (lock) {
            if (lost != endpoint) {
                return;
            }
            List<Outstanding> unanswered = new ArrayList<>(sent.values());
            sent.clear();
            abandoned.clear();
            for (Outstanding o : unanswered) {
                o.attempt.registrations().release(); // the peer can no longer reach them
                o.attempt = null;
            }
            if (settings.reconnect() && !closed) {
                for (int i = unanswered.size() - 1; i >= 0; i--) {
                    Outstanding o = unanswered.get(i);
                    if (o.sends > settings.maxRetransmissions()) {
                        exhausted.add(o); // a Call the server loses the connection for cannot make a loop
                    } else {
                        waiting.addFirst(o); // retransmitted first, in their order
                    }
                }
                // Only Calls need a connection: an idle Requester whose server closed its
                // connection (an idle timeout) holding another at once would hold one for ever.
                if (!waiting.isEmpty()) {
                    reconnectIn = nextAttemptIn();
                }
            } else {
                failed.addAll(unanswered);
                failed.addAll(waiting);
                waiting.clear();
            }
            endpoint = null;
        }
        backward.connectionLost();
        fail(failed, "RPC-over-RDMA connection lost");
        fail(exhausted, "RPC-over-RDMA connection lost with the call outstanding, after it was sent "
                + (settings.maxRetransmissions() + 1) + " times");
        if (reconnectIn >= 0) {
            reconnectAfter(reconnectIn);
        }
    }

    /**
     * Marks an attempt to connect again as under way and returns how long it waits (under the
     * lock): until the delay in force has passed since the last attempt began, which then doubles
     * (from {@link RpcRdmaSettings#reconnectDelay()} up to {@link RpcRdmaSettings#maxReconnectDelay()})
     * until a Reply comes. Linux's RPC client counts so too (xprt_reconnect_delay): the first loss
     * of a connection that served Calls is made good at once, a server that accepts and closes
     * every connection, or refuses them, gets one attempt per delay.
     */
    private long nextAttemptIn() {
        reconnecting = true;
        long wait = Math.max(0, lastAttemptNanos + reconnectDelayNanos - System.nanoTime());
        reconnectDelayNanos = reconnectDelayNanos == 0 ? settings.reconnectDelay().toNanos()
                : Math.min(2 * reconnectDelayNanos, settings.maxReconnectDelay().toNanos());
        return wait;
    }

    /** Connects again in {@code nanos}, if Calls are waiting then. */
    private void reconnectAfter(long nanos) {
        if (nanos == 0) {
            reconnect();
            return;
        }
        Timeout t = LimitTimers.TIMER.newTimeout(x -> reconnectIfWaiting(), nanos, TimeUnit.NANOSECONDS);
        synchronized (lock) {
            scheduledReconnect = t; // for close(); if it ran already, cancelling it does nothing
        }
    }

    private void reconnectIfWaiting() {
        synchronized (lock) {
            scheduledReconnect = null;
            if (closed || waiting.isEmpty()) {
                reconnecting = false; // the Calls were given up meanwhile: the next one connects
                return;
            }
        }
        reconnect();
    }

    /** Connects again; if that fails, the Calls waiting for it fail (a later Call tries again). */
    private void reconnect() {
        connect().whenComplete((e, x) -> {
            if (x != null) {
                log.debug("reconnect to {} failed: {}", server, x.toString());
                List<Outstanding> all;
                synchronized (lock) {
                    reconnecting = false;
                    all = new ArrayList<>(waiting);
                    waiting.clear();
                }
                fail(all, "RPC-over-RDMA connection lost and reconnecting failed: " + unwrap(x));
            }
        });
    }

    private static void fail(List<Outstanding> calls, String why) {
        for (Outstanding o : calls) {
            o.call.release();
            o.future.completeExceptionally(new RpcTransportException(why));
        }
    }

    // ------------------------------------------------------------------ control and state

    /** Serves backward-direction Calls with {@code dispatcher} (RFC 8167); {@code null} stops serving them. */
    public void backchannel(RpcDispatcher dispatcher) {
        backward.dispatcher(dispatcher);
    }

    public void close() {
        RdmaEndpoint e;
        RdmaEndpoint pending;
        List<Outstanding> failed;
        Timeout scheduled;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            e = endpoint;
            pending = connecting;
            connecting = null;
            failed = new ArrayList<>(waiting);
            waiting.clear();
            scheduled = scheduledReconnect;
            scheduledReconnect = null;
        }
        if (scheduled != null) {
            scheduled.cancel();
        }
        fail(failed, "RPC-over-RDMA transport closed");
        if (e != null) {
            e.close();
        }
        if (pending != null) {
            pending.close();
        }
    }

    /** The connection now, or {@code null} between connections. */
    public RdmaEndpoint currentEndpoint() {
        return endpoint();
    }

    /** The most Calls that were ever without a Reply at once. */
    public int maxCallsInFlight() {
        synchronized (lock) {
            return maxInFlight;
        }
    }

    /** The grant in force: 1 before the first Reply of a connection, then the last Reply's (clamped). */
    public int grantedCredits() {
        synchronized (lock) {
            return granted;
        }
    }

    public long unknownXidReplies() {
        synchronized (lock) {
            return unknownXidReplies;
        }
    }

    public long discardedReplies() {
        synchronized (lock) {
            return discardedReplies;
        }
    }

    public long retransmissions() {
        synchronized (lock) {
            return retransmissions;
        }
    }

    /** Connections made so far: 1 plus successful reconnects. */
    public int connections() {
        synchronized (lock) {
            return connections;
        }
    }

    public int callsWaitingForCredit() {
        synchronized (lock) {
            return waiting.size();
        }
    }

    /**
     * The connection, the Calls sent and not answered (and those abandoned, whose Receive the
     * Responder still holds), those waiting for a credit, the grant, and the messages discarded
     * with why the last one was: what tells a Reply that never came from one that could not be
     * sent (RFC 8166 §3.3.1) or one that came and could not be decoded.
     */
    public String state() {
        synchronized (lock) {
            String connection = endpoint != null ? (endpoint.isOpen() ? "open" : "closing")
                    : reconnecting ? "lost, reconnecting" : closed ? "closed" : "lost";
            return "connection " + connections + " " + connection
                    + (endpoint != null ? " (" + endpoint.queuePair() + ")" : "") + ", "
                    + sent.size() + " calls awaiting a reply, " + abandoned.size() + " abandoned, "
                    + waiting.size() + " waiting for a credit, " + granted + " credits granted, "
                    + unknownXidReplies + " replies with an unknown xid, " + discardedReplies + " discarded"
                    + (lastDiscarded == null ? "" : " (the last: " + lastDiscarded + ")");
        }
    }

    /** One Call from {@link #call} until it completes. */
    private static final class Outstanding {
        final RpcCallInfo info;
        final XdrMessage call;
        final CompletableFuture<XdrMessage> future = new CompletableFuture<>();
        OutgoingCall attempt;
        /** Times sent, each on a connection of its own. */
        int sends;

        Outstanding(RpcCallInfo info, XdrMessage call) {
            this.info = info;
            this.call = call;
        }
    }
}
