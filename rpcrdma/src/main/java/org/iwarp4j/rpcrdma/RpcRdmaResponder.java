package org.iwarp4j.rpcrdma;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.rpcrdma.internal.ResponderEngine;

/**
 * The server end of one RPC-over-RDMA connection (RFC 8166), made by an {@link RpcRdmaServer} for
 * each Requester that connects: it serves the server's {@link org.iwarp4j.oncrpc.RpcDispatcher}
 * and can call back into the Requester in the backward direction (RFC 8167).
 */
public final class RpcRdmaResponder implements AutoCloseable {

    private final ResponderEngine engine;
    private final SocketAddress remoteAddress;

    RpcRdmaResponder(ResponderEngine engine, SocketAddress remoteAddress) {
        this.engine = engine;
        this.remoteAddress = remoteAddress;
    }

    /** The Requester's address. */
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /**
     * A transport for backward-direction Calls to the Requester on this connection, inline only; use
     * it with an {@link org.iwarp4j.oncrpc.RpcClient}. Closing it does nothing; it ends with the connection.
     */
    public RpcClientTransport backchannel() {
        return engine.backward();
    }

    public int callInlineThreshold() {
        return engine.endpoint().thresholds().callThreshold();
    }

    public int replyInlineThreshold() {
        return engine.endpoint().thresholds().replyThreshold();
    }

    /** Replies are sent with Send with Invalidate (both ends set the RFC 8797 R bit). */
    public boolean remoteInvalidation() {
        return engine.endpoint().remoteInvalidation();
    }

    public long callsReceived() {
        return engine.callsReceived();
    }

    /** Calls received within the credits and not yet taken into service: waiting for room in the server's budget. */
    public int callsWaiting() {
        return engine.callsWaiting();
    }

    /** Messages dropped without an answer: too short, RDMA_ERROR, RDMA_DONE. */
    public long discarded() {
        return engine.discarded();
    }

    public long errChunkSent() {
        return engine.errChunkSent();
    }

    public long errVersSent() {
        return engine.errVersSent();
    }

    /**
     * Whether the Requester had more than twice its credits of messages unanswered (Calls, and
     * messages answered with RDMA_ERROR whose Send has not completed), for which this connection
     * was closed (RPC-R-003, RFC 8166 §3.3.1).
     */
    public boolean overCredits() {
        return engine.overCredits();
    }

    /** Replies that went through the Reply chunk (Long Replies). */
    public long replyChunkReplies() {
        return engine.replyChunkReplies();
    }

    /** Replies sent as responder-provided Read chunks (the draft). */
    public long responderReadChunkReplies() {
        return engine.responderReadChunkReplies();
    }

    /** Responder-provided Read chunks not yet pulled. */
    public int pullsWaiting() {
        return engine.pullsWaiting();
    }

    /** Told the XID of each responder-provided Read chunk invalidated for want of pull completion (tests). */
    void onPullTimeout(java.util.function.IntConsumer listener) {
        engine.onPullTimeout(listener);
    }

    /** Responder-provided Read chunks invalidated for want of pull completion. */
    public long pullsTimedOut() {
        return engine.pullsTimedOut();
    }

    /** The connection's engine side (tests in this package tap it). */
    org.iwarp4j.rpcrdma.internal.RdmaEndpoint endpoint() {
        return engine.endpoint();
    }

    /** The connection's queue pair (tests, diagnostics). */
    public org.iwarp4j.rdmap.QueuePair queuePair() {
        return engine.endpoint().queuePair();
    }

    /** Completes when the connection is gone. */
    public CompletableFuture<?> closeFuture() {
        return engine.endpoint().closeFuture();
    }

    @Override
    public void close() {
        engine.endpoint().close();
    }
}
