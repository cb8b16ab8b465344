package org.iwarp4j.tools.rping;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.iwarp4j.tools.internal.RateLimitedLines;
import org.iwarp4j.tools.rping.internal.RpingFailure;
import org.iwarp4j.tools.rping.internal.RpingLog;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.ConnectionRequest;
import org.iwarp4j.rdmap.ConnectionDecision;
import org.iwarp4j.rdmap.Listener;

/**
 * The passive side of rping ({@code rping -s}) for one client: listens, accepts the first MPA
 * Request and serves that client's pings ({@link ServerPingLoop}: RDMA Read of its start buffer,
 * RDMA Write back into its sink) until it disconnects. One client per server, as rping without
 * {@code -P}: later requests are rejected, each with a line on the error stream, rate-limited.
 * {@link RpingPersistentServer} is {@code -P}.
 */
public final class RpingServer implements AutoCloseable {

    private final RpingOptions options;
    private final RpingLog log;
    /** The line for each request rejected: a peer can make as many as it likes. */
    private final RateLimitedLines rejections;
    private final RpingEndpoint endpoint;
    private final Listener listener;
    private final AtomicBoolean accepted = new AtomicBoolean();
    private final CompletableFuture<Void> closing = new CompletableFuture<>();
    private final CountDownLatch served = new CountDownLatch(1);
    private final AtomicBoolean serving = new AtomicBoolean();
    private volatile boolean closed;

    private RpingServer(RpingOptions options, RpingLog log) throws InterruptedException {
        this.options = options;
        this.log = log;
        this.rejections = new RateLimitedLines(log::error, "rping-server-lines");
        this.endpoint = new RpingEndpoint(options, log);
        try {
            endpoint.postReceive();
            listener = endpoint.rnic.listen(options.socketAddress(), options.mpaSettings(), this::connectRequest);
        } catch (Exception e) {
            // A bind failure arrives as Netty rethrows it: possibly a checked exception, undeclared.
            endpoint.close();
            throw e;
        }
        log.debug("rdma_bind_addr successful");
        log.debug("rdma_listen on %s", localAddress());
    }

    /**
     * Listens on the options' address and port; a client may connect from now on.
     *
     * <p>If the address cannot be bound, the socket's exception propagates as Netty raised it (a
     * {@link java.net.BindException}, undeclared).
     */
    public static RpingServer bind(RpingOptions options, PrintWriter out, PrintWriter err) throws InterruptedException {
        if (!options.server()) {
            throw new IllegalArgumentException("client options given to the server");
        }
        return new RpingServer(options, new RpingLog(out, err, options.debug()));
    }

    /** The bound address (the port is the one chosen when the options asked for port 0). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    /**
     * Runs on an event loop: the first request gets the queue pair, any later one a reject, whose
     * line is rate-limited and written off the event loop ({@link RateLimitedLines}).
     */
    private ConnectionDecision connectRequest(ConnectionRequest request) {
        if (closed || !accepted.compareAndSet(false, true)) {
            rejections.print("rejecting a connection request from " + request.remoteAddress()
                    + ": this rping server serves one client");
            return request.reject(new byte[0]);
        }
        log.debug("cma_event type RDMA_CM_EVENT_CONNECT_REQUEST from %s", request.remoteAddress());
        log.debug("accepting client connection request");
        return request.accept(endpoint.queuePair);
    }

    /** Waits for one client and serves it until it disconnects; blocks until then. */
    public RpingResult serve() throws InterruptedException {
        if (!serving.compareAndSet(false, true)) {
            throw new IllegalStateException("serve() runs once");
        }
        try {
            NegotiatedParameters negotiated;
            try {
                negotiated = awaitClient();
            } catch (RpingFailure e) {
                log.error("connect error: " + e.getMessage());
                return new RpingResult(0, 0, null, "connect error: " + e.getMessage());
            }
            log.debug("ESTABLISHED: %s", negotiated);
            return new ServerPingLoop(options, log, endpoint, () -> closed, null).run(negotiated);
        } finally {
            served.countDown();
        }
    }

    private NegotiatedParameters awaitClient() throws RpingFailure, InterruptedException {
        CompletableFuture<Object> either = CompletableFuture.anyOf(endpoint.queuePair.established(), closing);
        try {
            if (options.timeout() == null) {
                either.get();
            } else {
                either.get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
            }
        } catch (TimeoutException e) {
            throw new RpingFailure("no client connected within " + options.timeout().toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new RpingFailure(ConnectFailures.describe(e.getCause(), localAddress(), options.mpaSettings()));
        }
        if (closed) {
            throw new RpingFailure("the server was closed before a client connected");
        }
        return endpoint.queuePair.negotiated();
    }

    /** Waits until the lines of the requests rejected so far are written (tests). */
    boolean awaitLinesWritten(long timeout, TimeUnit unit) throws InterruptedException {
        return rejections.awaitWritten(timeout, unit);
    }

    /** Stops listening and ends a running {@link #serve()}, then frees everything. */
    @Override
    public void close() {
        closed = true;
        closing.complete(null);
        listener.close();
        endpoint.rnic.close();
        if (serving.get()) {
            try {
                served.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        endpoint.close();
        rejections.close();
    }
}
