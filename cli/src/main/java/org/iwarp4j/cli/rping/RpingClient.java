package org.iwarp4j.cli.rping;

import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.cli.rping.internal.PingData;
import org.iwarp4j.cli.rping.internal.RpingFailure;
import org.iwarp4j.cli.rping.internal.RpingLog;
import org.iwarp4j.cli.rping.internal.RpingRdmaInfo;
import org.iwarp4j.mpa.NegotiatedParameters;
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
            throw new RpingFailure(ConnectFailures.describe(e.getCause(), options.socketAddress()));
        }
    }

    private RpingResult ping(RpingEndpoint endpoint, NegotiatedParameters negotiated) throws InterruptedException {
        int size = options.size();
        int completed = 0;
        int verified = 0;
        boolean firstGoAheadPending = false;
        try {
            for (long ping = 0; options.count() == 0 || ping < options.count(); ping++) {
                byte[] data = PingData.of(ping, size);
                endpoint.startBuf.setBytes(0, data);
                endpoint.rdmaBuf.setZero(0, size);

                RpingRdmaInfo start = RpingEndpoint.describe(endpoint.startMr, size);
                log.debug("RDMA addr %x rkey %x len %d", start.buf(), start.rkey(), start.size());
                endpoint.send(start);
                firstGoAheadPending = true;
                endpoint.receive("the server's go ahead after its RDMA Read");
                firstGoAheadPending = false;

                RpingRdmaInfo sink = RpingEndpoint.describe(endpoint.rdmaMr, size);
                log.debug("RDMA addr %x rkey %x len %d", sink.buf(), sink.rkey(), sink.size());
                endpoint.send(sink);
                endpoint.receive("the server's go ahead after its RDMA Write");
                completed++;

                if (options.validate()) {
                    int at = PingData.firstDifference(data, endpoint.rdmaBuf, 0);
                    if (at >= 0) {
                        log.error("data mismatch!");
                        String failure = String.format("ping %d: the data written back differs from the data sent "
                                        + "at octet %d of %d (sent 0x%02x, received 0x%02x)", ping, at, size,
                                data[at], endpoint.rdmaBuf.getByte(at));
                        log.error("rping client failed: " + failure);
                        endpoint.disconnect();
                        return new RpingResult(completed, verified, negotiated, failure);
                    }
                    verified++;
                }
                if (options.verbose()) {
                    log.out("ping data: " + PingData.cString(endpoint.rdmaBuf, 0, size));
                }
            }
        } catch (RpingFailure e) {
            if (e.disconnected()) {
                log.error("client DISCONNECT EVENT...");
                if (options.count() == 0 && firstGoAheadPending) {
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
}
