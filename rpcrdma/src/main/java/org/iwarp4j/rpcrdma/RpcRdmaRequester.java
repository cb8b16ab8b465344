package org.iwarp4j.rpcrdma;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.internal.DataMemory;
import org.iwarp4j.rpcrdma.internal.RdmaEndpoint;
import org.iwarp4j.rpcrdma.internal.RequesterEngine;

/**
 * The client end of RPC-over-RDMA Version 1 (RFC 8166), an {@link RpcClientTransport} for an
 * {@link RpcClient}: one connection to a Responder over an iWARP {@link Rnic}.
 *
 * <pre>{@code
 * RpcRdmaSettings settings = RpcRdmaSettings.builder().binding(new EchoBinding()).build();
 * try (RpcRdmaRequester transport = RpcRdmaRequester.connect(rnic, serverAddress, settings).get();
 *      RpcClient client = RpcClient.builder(transport).build()) {
 *     EchoClient echo = new EchoClient(client);
 *     echo.sink(data).get();           // data travels in a Read chunk when it does not fit inline
 * }
 * }</pre>
 *
 * What it does for each Call: sends it inline when header and message fit the call inline
 * threshold; otherwise moves the DDP-eligible items the binding allows into Read chunks, or the
 * whole message into a Position-Zero Read chunk (Long Call); provides Write chunks and a Reply
 * chunk sized by the binding; never has more Calls without a Reply than the credits granted (one
 * before the first Reply); registers memory per Call and invalidates it before the Call completes,
 * locally or by the Responder's Send with Invalidate. A Reply with an unknown XID is discarded
 * (counted in {@link #unknownXidReplies()}). An RDMA_ERROR fails the Call with {@link
 * RpcRdmaErrorException}, a malformed Reply naming it with {@link RpcRdmaProtocolException}. If
 * the connection is lost the Requester reconnects, when Calls wait for a connection, and
 * retransmits the Calls without a Reply, each a bounded number of times (see {@link
 * RpcRdmaSettings#reconnect()}); Calls given up on that hold every credit end the connection.
 */
public final class RpcRdmaRequester implements RpcClientTransport {

    /** {@link #name()}. */
    public static final String TRANSPORT_NAME = "rdma";

    private final RequesterEngine engine;
    private final SocketAddress server;

    private RpcRdmaRequester(RequesterEngine engine, SocketAddress server) {
        this.engine = engine;
        this.server = server;
    }

    /** Connects to the Responder at {@code server}; completes when the first connection is up. */
    public static CompletableFuture<RpcRdmaRequester> connect(Rnic rnic, SocketAddress server,
                                                              RpcRdmaSettings settings) {
        RequesterEngine engine = new RequesterEngine(rnic, server, settings, PooledByteBufAllocator.DEFAULT);
        return engine.start().thenApply(v -> new RpcRdmaRequester(engine, server));
    }

    @Override
    public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
        return engine.call(info, call);
    }

    /**
     * Serves backward-direction Calls the Responder sends on this connection (RFC 8167) with
     * {@code dispatcher}; {@code null} stops. Needs {@link RpcRdmaSettings#backchannelCredits()} > 0.
     */
    public RpcRdmaRequester backchannel(RpcDispatcher dispatcher) {
        engine.backchannel(dispatcher);
        return this;
    }

    @Override
    public String name() {
        return TRANSPORT_NAME;
    }

    /**
     * Direct buffers from {@link DataMemory#ALLOCATOR}: a caller's WRITE data is registered as a
     * Read chunk straight from the buffer it filled, and 1 MiB buffers from the pooled allocator
     * made it create and zero a 4 MiB arena chunk every few Calls.
     */
    @Override
    public ByteBufAllocator alloc() {
        return DataMemory.ALLOCATOR;
    }

    public SocketAddress remoteAddress() {
        return server;
    }

    /** The inline thresholds of the current connection: call (this end to the Responder) and reply. */
    public int callInlineThreshold() {
        RdmaEndpoint e = engine.currentEndpoint();
        return e == null ? 0 : e.thresholds().callThreshold();
    }

    public int replyInlineThreshold() {
        RdmaEndpoint e = engine.currentEndpoint();
        return e == null ? 0 : e.thresholds().replyThreshold();
    }

    /** Whether both ends announced remote invalidation on the current connection (RFC 8797 §4.1). */
    public boolean remoteInvalidation() {
        RdmaEndpoint e = engine.currentEndpoint();
        return e != null && e.remoteInvalidation();
    }

    /** The credit grant in force (1 until the first Reply of a connection). */
    public int grantedCredits() {
        return engine.grantedCredits();
    }

    /** The most Calls that were ever without a Reply at once; never more than the credits granted. */
    public int maxCallsInFlight() {
        return engine.maxCallsInFlight();
    }

    /** Calls queued because no credit was free. */
    public int callsWaitingForCredit() {
        return engine.callsWaitingForCredit();
    }

    /** Replies discarded because no Call had their XID. */
    public long unknownXidReplies() {
        return engine.unknownXidReplies();
    }

    /**
     * Replies discarded for their header (RFC 8166 §4.5: a Requester never answers); one that
     * names a Call in flight ends it.
     */
    public long discardedReplies() {
        return engine.discardedReplies();
    }

    /** Calls sent again on a new connection (each at most {@link RpcRdmaSettings#maxRetransmissions()} times). */
    public long retransmissions() {
        return engine.retransmissions();
    }

    /** Connections made: 1 plus reconnects. */
    public int connections() {
        return engine.connections();
    }

    @Override
    public String state() {
        return engine.state();
    }

    /** The current connection's queue pair, or {@code null} between connections (tests, diagnostics). */
    public org.iwarp4j.rdmap.QueuePair queuePair() {
        RdmaEndpoint e = engine.currentEndpoint();
        return e == null ? null : e.queuePair();
    }

    /** The current connection's engine side (tests in this package tap it). */
    RdmaEndpoint endpoint() {
        return engine.currentEndpoint();
    }

    /** Closes the connection; Calls without a Reply fail. */
    @Override
    public void close() {
        engine.close();
    }
}
