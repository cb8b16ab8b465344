package org.iwarp4j.tools.rping;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.iwarp4j.tools.rping.internal.PingData;
import org.iwarp4j.tools.rping.internal.RpingFailure;
import org.iwarp4j.tools.rping.internal.RpingLog;
import org.iwarp4j.tools.rping.internal.RpingRdmaInfo;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.ConnectionRequest;
import org.iwarp4j.rdmap.ConnectionDecision;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletionOpcode;

/**
 * The passive side of rping ({@code rping -s}), Linux rping's server loop for one client:
 *
 * <ol>
 *   <li>wait for the client's start buffer {@code {addr, rkey, len}} (a Send);</li>
 *   <li>RDMA Read {@code len} octets of it into {@code rdma_buf} (RFC 5040 §5.2); {@code -v}
 *       prints {@code server ping data: ...};</li>
 *   <li>Send "go ahead";</li>
 *   <li>wait for the client's sink buffer {@code {addr, rkey, len}};</li>
 *   <li>RDMA Write the data back, {@code strlen + 1} octets (RFC 5040 §5.1);</li>
 *   <li>Send "go ahead" and start over.</li>
 * </ol>
 *
 * The run ends when the client disconnects between iterations (rping's "server DISCONNECT
 * EVENT..."); then {@code -C} (which Linux's server ignores) is the number of iterations the client
 * must have completed. One client per server, as rping without {@code -P}: later requests are
 * rejected.
 */
public final class RpingServer implements AutoCloseable {

    private final RpingOptions options;
    private final RpingLog log;
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

    /** Runs on an event loop: the first request gets the queue pair, any later one a reject. */
    private ConnectionDecision connectRequest(ConnectionRequest request) {
        if (closed || !accepted.compareAndSet(false, true)) {
            log.error("rejecting a connection request from " + request.remoteAddress()
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
            return pong(negotiated);
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

    private RpingResult pong(NegotiatedParameters negotiated) throws InterruptedException {
        int completed = 0;
        int verified = 0;
        try {
            while (true) {
                RpingRdmaInfo source;
                try {
                    source = endpoint.receive("the client's start buffer (its first Send of a ping)");
                } catch (RpingFailure e) {
                    if (!e.disconnected() || closed) {
                        throw e;
                    }
                    log.error("server DISCONNECT EVENT...");
                    break;
                }
                int length = read(source);
                if (options.validate()) {
                    verify(completed, length);
                    verified++;
                }
                endpoint.send(RpingRdmaInfo.GO_AHEAD);
                log.debug("server posted go ahead");
                writeBack(length);
                endpoint.send(RpingRdmaInfo.GO_AHEAD);
                log.debug("server posted go ahead");
                completed++;
            }
        } catch (RpingFailure e) {
            String failure = (closed ? "the server was closed: " + e.getMessage() : e.getMessage())
                    + " (" + completed + " iterations completed)";
            log.error("rping server failed: " + failure);
            endpoint.disconnect();
            return new RpingResult(completed, verified, negotiated, failure);
        }
        endpoint.disconnect();
        if (completed < options.count()) {
            String failure = "the client disconnected after " + completed + " of " + options.count() + " iterations";
            log.error("rping server failed: " + failure);
            return new RpingResult(completed, verified, negotiated, failure);
        }
        return new RpingResult(completed, verified, negotiated, null);
    }

    /** RDMA Reads the client's advertised start buffer into {@code rdma_buf}; returns the octets read. */
    private int read(RpingRdmaInfo source) throws RpingFailure, InterruptedException {
        log.debug("Received %s from peer", source);
        log.debug("server received sink adv"); // sic: rping's words for the start buffer too
        int length = checkedLength(source);
        endpoint.queuePair.postSend(SendWorkRequest.rdmaRead(RpingEndpoint.RDMA_ID, source.rkey(), source.buf(),
                endpoint.rdmaMr.sge(0, length)));
        log.debug("server posted rdma read req ");
        endpoint.completions.await(WorkCompletionOpcode.RDMA_READ, "the RDMA Read of the client's start buffer");
        log.debug("server received read complete");
        if (options.verbose()) {
            log.out("server ping data: " + PingData.cString(endpoint.rdmaBuf, 0, length));
        }
        return length;
    }

    /** -V on the server (our addition): what was read must be rping's ping data for this ping. */
    private void verify(int ping, int length) throws RpingFailure {
        byte[] expected = PingData.of(ping, length);
        int at = PingData.firstDifference(expected, endpoint.rdmaBuf, 0);
        if (at >= 0) {
            log.error("data mismatch!");
            throw new RpingFailure(String.format("ping %d: the data read is not rping's ping data at octet %d of %d"
                    + " (expected 0x%02x, read 0x%02x)", ping, at, length, expected[at], endpoint.rdmaBuf.getByte(at)));
        }
    }

    /** Waits for the client's sink buffer and RDMA Writes the data back: rping's {@code strlen + 1} octets. */
    private void writeBack(int length) throws RpingFailure, InterruptedException {
        RpingRdmaInfo sink = endpoint.receive("the client's sink buffer (its second Send of a ping)");
        log.debug("Received %s from peer", sink);
        log.debug("server received sink adv");
        // The data with its NUL, as rping; never more than was read.
        int writeLength = Math.min(PingData.cStringLength(endpoint.rdmaBuf, 0, length) + 1, length);
        if (Integer.compareUnsigned(writeLength, sink.size()) > 0) {
            throw new RpingFailure("the client's sink buffer of " + Integer.toUnsignedString(sink.size())
                    + " octets is smaller than the " + writeLength + " octets to write back");
        }
        endpoint.queuePair.postSend(SendWorkRequest.rdmaWrite(RpingEndpoint.RDMA_ID, sink.rkey(), sink.buf(),
                endpoint.rdmaMr.sge(0, writeLength)));
        log.debug("rdma write from lkey %x laddr %x len %d", endpoint.rdmaMr.stag(), endpoint.rdmaMr.baseTaggedOffset(),
                writeLength);
        endpoint.completions.await(WorkCompletionOpcode.RDMA_WRITE, "the RDMA Write into the client's sink");
        log.debug("server rdma write complete ");
    }

    /** The client's {@code len}, which must fit {@code rdma_buf} (rping's server would fail its Read). */
    private int checkedLength(RpingRdmaInfo source) throws RpingFailure {
        if (source.size() < 1 || source.size() > options.size()) {
            throw new RpingFailure("the client's ping data of " + Integer.toUnsignedString(source.size())
                    + " octets does not fit this server's buffer of " + options.size() + " octets (-S)");
        }
        return source.size();
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
    }
}
