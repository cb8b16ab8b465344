package org.iwarp4j.rpcrdma;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.internal.ServerCallBudget;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.internal.FailedXids;
import org.iwarp4j.rpcrdma.internal.IdleTimeout;
import org.iwarp4j.rpcrdma.internal.KeptBufferQuota;
import org.iwarp4j.rpcrdma.internal.RdmaEndpoint;
import org.iwarp4j.rpcrdma.internal.ReplySendTimeout;
import org.iwarp4j.rpcrdma.internal.ResponderEngine;
import org.iwarp4j.rpcrdma.internal.ResponderMeters;

/**
 * Serves an {@link RpcDispatcher} over RPC-over-RDMA Version 1 (RFC 8166): listens on an iWARP
 * {@link Rnic}, answers each MPA Request with this end's RFC 8797 private data and makes one
 * {@link RpcRdmaResponder} per connection.
 *
 * <p>Limits: the connection caps of the {@link Rnic} ({@link Rnic.Builder#maxConnectionsPerListener},
 * {@link Rnic.Builder#maxConnectionsPerAddress}); a connection idle for
 * {@link RpcRdmaSettings#idleTimeout()} is closed; an RDMA Read the Requester does not answer within
 * {@link RpcRdmaSettings#rdmaReadTimeout()} fails its Call and aborts the connection; a connection
 * whose Replies make no progress for {@link RpcRdmaSettings#maxReplySendTime()} (its Requester
 * reads nothing) is aborted, which gives back the places in service its Calls held.
 *
 * <pre>{@code
 * RpcDispatcher dispatcher = new RpcDispatcher().register(EchoProgram.create());
 * RpcRdmaSettings settings = RpcRdmaSettings.builder().binding(new EchoBinding()).build();
 * try (RpcRdmaServer server = RpcRdmaServer.listen(rnic, new InetSocketAddress(20049), dispatcher, settings)) {
 *     ...
 * }
 * }</pre>
 */
public final class RpcRdmaServer implements AutoCloseable {

    private final Listener listener;
    private final List<RpcRdmaResponder> responders = new CopyOnWriteArrayList<>();
    private volatile Consumer<RpcRdmaResponder> onConnection = r -> { };
    private final java.util.concurrent.atomic.AtomicLong idleClosed = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong replySendTimedOut = new java.util.concurrent.atomic.AtomicLong();
    /** Calls in service on all connections together ({@link RpcRdmaSettings#serverCallsInService()}). */
    private final ServerCallBudget budget;
    /** Kept data buffers of all connections together ({@link RpcRdmaSettings#serverKeptDataBuffers()}). */
    private final KeptBufferQuota keptQuota;
    /**
     * Starts the Calls that waited for room in the budget once it frees; its one thread is made
     * only when a connection first waits.
     */
    private final ExecutorService admissions = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "rpcrdma-admission");
        t.setDaemon(true);
        return t;
    });

    private RpcRdmaServer(Rnic rnic, SocketAddress address, RpcDispatcher dispatcher, RpcRdmaSettings settings,
                          ByteBufAllocator alloc) throws InterruptedException {
        FailedXids failed = FailedXids.forServer();
        int receives = ResponderEngine.receivesNeeded(settings);
        SocketAddress[] local = new SocketAddress[1];
        ResponderMeters meters = ResponderMeters.of(rnic.meterRegistry().orElse(null));
        this.budget = new ServerCallBudget(settings.serverCallsInService(), settings.serverCallsInServicePerClient(),
                Long.MAX_VALUE, Long.MAX_VALUE, settings.serverReadChunkOctets(), settings.serverReadChunkOctetsPerClient());
        this.keptQuota = new KeptBufferQuota(settings.serverKeptDataBuffers());
        this.listener = rnic.listen(address, settings.mpa(), request -> {
            RdmaEndpoint endpoint = RdmaEndpoint.accept(rnic, settings, receives, request.privateData(), keptQuota);
            ResponderEngine engine = new ResponderEngine(endpoint, dispatcher, settings, local[0],
                    request.remoteAddress(), failed, alloc, meters, budget, admissions);
            RpcRdmaResponder responder = new RpcRdmaResponder(engine, request.remoteAddress());
            responders.add(responder);
            endpoint.closeFuture().whenComplete((q, e) -> responders.remove(responder));
            endpoint.queuePair().established().thenRun(() -> {
                IdleTimeout.watch(endpoint, () -> engine.callsInService() > 0 || engine.callsWaiting() > 0,
                        settings.idleTimeout(),
                        idleClosed::incrementAndGet);
                ReplySendTimeout.watch(endpoint, settings.maxReplySendTime(), replySendTimedOut::incrementAndGet);
                onConnection.accept(responder);
            });
            return request.accept(endpoint.queuePair(), endpoint.localPrivateData());
        });
        local[0] = listener.localAddress();
    }

    /** Listens on {@code address} (port 0 for any; NFS/RDMA uses 20049). */
    public static RpcRdmaServer listen(Rnic rnic, SocketAddress address, RpcDispatcher dispatcher,
                                       RpcRdmaSettings settings) throws InterruptedException {
        return listen(rnic, address, dispatcher, settings, PooledByteBufAllocator.DEFAULT);
    }

    /** As {@link #listen(Rnic, SocketAddress, RpcDispatcher, RpcRdmaSettings)}, the Responders allocating from {@code alloc} (tests watch it). */
    static RpcRdmaServer listen(Rnic rnic, SocketAddress address, RpcDispatcher dispatcher, RpcRdmaSettings settings,
                                ByteBufAllocator alloc) throws InterruptedException {
        return new RpcRdmaServer(rnic, address, dispatcher, settings, alloc);
    }

    public SocketAddress localAddress() {
        return listener.localAddress();
    }

    /** The connections now open. */
    public List<RpcRdmaResponder> responders() {
        return List.copyOf(responders);
    }

    /** Connections closed by the idle timeout ({@link RpcRdmaSettings#idleTimeout()}). */
    public long idleClosedConnections() {
        return idleClosed.get();
    }

    /** Connections aborted because their Replies made no progress ({@link RpcRdmaSettings#maxReplySendTime()}). */
    public long replyTimeoutClosedConnections() {
        return replySendTimedOut.get();
    }

    /** Calls in service on all connections now: taken up and not yet answered. */
    public int callsInService() {
        return budget.callsInService();
    }

    /**
     * Connections now waiting for room in the server's budget of Calls in service: a place, their
     * client's share, or octets for their next Call's Read chunks.
     */
    public int connectionsWaitingForBudget() {
        return budget.waiting();
    }

    /** Calls in service now of the client at {@code address} (all its connections; the port is ignored). */
    public int callsInService(InetAddress address) {
        return budget.callsInService(address);
    }

    /** Octets the Read chunks of the Calls in service now were taken up with ({@link RpcRdmaSettings#serverReadChunkOctets()}). */
    public long readChunkOctetsInService() {
        return budget.callOctetsHeld();
    }

    /** Kept data buffers held by all connections now. */
    public int keptDataBuffers() {
        return keptQuota.held();
    }

    /** Called with each new connection once it is established (e.g. to make backward Calls). */
    public void onConnection(Consumer<RpcRdmaResponder> callback) {
        this.onConnection = java.util.Objects.requireNonNull(callback);
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        listener.close();
        for (RpcRdmaResponder r : responders) {
            r.close();
        }
        admissions.shutdown(); // a Call it would start now meets a closed connection and is dropped
    }
}
