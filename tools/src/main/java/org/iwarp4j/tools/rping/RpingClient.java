package org.iwarp4j.tools.rping;

import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.tools.rping.internal.PingData;
import org.iwarp4j.tools.rping.internal.RpingFailure;
import org.iwarp4j.tools.rping.internal.RpingLog;
import org.iwarp4j.tools.rping.internal.RpingRdmaInfo;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.QueuePair;

/**
 * The active side of rping ({@code rping -c}), the same protocol as Linux rping's client:
 *
 * <ol>
 *   <li>fill the start buffer with the ping data ({@link PingData}) and Send its
 *       {@code {addr, rkey, len}} (RDMAP Send, RFC 5040 §5.3);</li>
 *   <li>wait for the server's "go ahead" Send: it has RDMA Read the start buffer;</li>
 *   <li>Send the sink buffer's {@code {addr, rkey, len}};</li>
 *   <li>wait for the second "go ahead": the server has RDMA Written the data into the sink;</li>
 *   <li>with {@code -V} compare sink and start buffers ("data mismatch!" ends the run), with
 *       {@code -v} print {@code ping data: ...}.</li>
 * </ol>
 *
 * After {@code -C} iterations (never, without it) the client disconnects: an orderly close.
 */
public final class RpingClient {

    private final RpingOptions options;
    private final RpingLog log;

    /** @param out ping data and debug lines; @param err errors (both flushed line by line) */
    public RpingClient(RpingOptions options, PrintWriter out, PrintWriter err) {
        if (options.server()) {
            throw new IllegalArgumentException("server options given to the client");
        }
        this.options = options;
        this.log = new RpingLog(out, err, options.debug());
    }

    /** Connects, pings, disconnects; blocks until done. Interrupting the thread ends the run. */
    public RpingResult run() throws InterruptedException {
        try (RpingEndpoint endpoint = new RpingEndpoint(options, log)) {
            endpoint.postReceive();
            NegotiatedParameters negotiated;
            try {
                negotiated = connect(endpoint.queuePair);
            } catch (RpingFailure e) {
                log.error("connect error: " + e.getMessage());
                return new RpingResult(0, 0, null, "connect error: " + e.getMessage());
            }
            log.debug("ESTABLISHED: %s", negotiated);
            log.debug("rdma_connect successful");
            return ping(endpoint, negotiated);
        }
    }

    private NegotiatedParameters connect(QueuePair queuePair) throws RpingFailure, InterruptedException {
        CompletableFuture<QueuePair> established = queuePair.connect(options.socketAddress());
        try {
            if (options.timeout() == null) {
                established.get();
            } else {
                established.get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
            }
            return queuePair.negotiated();
        } catch (TimeoutException e) {
            throw new RpingFailure("no connection to " + options.socketAddress() + " within "
                    + options.timeout().toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new RpingFailure(ConnectFailures.describe(e.getCause(), options.socketAddress(), options.mpaSettings()));
        }
    }

    /**
     * Pings over {@code endpoint}, connected; {@link #run()} once the connection is up, and tests
     * on an endpoint they connected themselves, to hold the first ping back until the peer has done
     * its part (closed the connection, say).
     */
    RpingResult ping(RpingEndpoint endpoint, NegotiatedParameters negotiated) throws InterruptedException {
        int size = options.size();
        int completed = 0;
        int verified = 0;
        boolean betweenPings = true;
        try {
            for (long ping = 0; options.count() == 0 || ping < options.count(); ping++) {
                byte[] data = PingData.of(ping, size);
                endpoint.startBuf.setBytes(0, data);
                endpoint.rdmaBuf.setZero(0, size);
                advertise(endpoint, endpoint.startMr, "the Send of the start buffer",
                        "the server's go ahead after its RDMA Read");
                betweenPings = false;
                advertise(endpoint, endpoint.rdmaMr, "the Send of the sink buffer",
                        "the server's go ahead after its RDMA Write");
                betweenPings = true;
                completed++;
                if (options.validate()) {
                    verify(ping, data, endpoint);
                    verified++;
                }
                if (options.verbose()) {
                    log.out("ping data: " + PingData.cString(endpoint.rdmaBuf, 0, size));
                }
            }
        } catch (RpingFailure e) {
            if (e.disconnected()) {
                log.error("client DISCONNECT EVENT...");
                if (options.count() == 0 && betweenPings) {
                    // An endless run ends when the server goes away between pings: rping's normal end.
                    return new RpingResult(completed, verified, negotiated, null);
                }
            }
            String failure = e.getMessage() + " (" + completed + " iterations completed)";
            log.error("rping client failed: " + failure);
            endpoint.disconnect();
            return new RpingResult(completed, verified, negotiated, failure);
        }
        endpoint.disconnect();
        return new RpingResult(completed, verified, negotiated, null);
    }

    /** Sends {addr, rkey, len} of {@code region} and waits for the server's "go ahead". */
    private void advertise(RpingEndpoint endpoint, MemoryRegion region, String send, String goAhead)
            throws RpingFailure, InterruptedException {
        RpingRdmaInfo info = RpingEndpoint.describe(region, options.size());
        log.debug("RDMA addr %x rkey %x len %d", info.buf(), info.rkey(), info.size());
        endpoint.send(info, send);
        endpoint.receive(goAhead);
    }

    /** rping's {@code -V}: the sink must hold exactly what the start buffer held. */
    private void verify(long ping, byte[] sent, RpingEndpoint endpoint) throws RpingFailure {
        int at = PingData.firstDifference(sent, endpoint.rdmaBuf, 0);
        if (at >= 0) {
            log.error("data mismatch!");
            throw new RpingFailure(String.format("ping %d: the data written back differs from the data sent at octet"
                            + " %d of %d (sent 0x%02x, received 0x%02x)", ping, at, sent.length, sent[at],
                    endpoint.rdmaBuf.getByte(at)));
        }
    }
}
