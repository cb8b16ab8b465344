package org.iwarp4j.tools.rping;

import java.util.function.BooleanSupplier;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletionOpcode;
import org.iwarp4j.tools.rping.internal.PingData;
import org.iwarp4j.tools.rping.internal.RpingFailure;
import org.iwarp4j.tools.rping.internal.RpingLog;
import org.iwarp4j.tools.rping.internal.RpingRdmaInfo;

/**
 * The server's side of rping's exchange with one connected client, Linux rping's {@code
 * rping_test_server}, on that client's {@link RpingEndpoint}:
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
 * It ends when the client disconnects between iterations (rping's "server DISCONNECT EVENT...");
 * then {@code -C} (which Linux's server ignores) is the number of iterations the client must have
 * completed. Used by {@link RpingServer} for its one client and by {@link RpingPersistentServer}
 * for each of its clients.
 */
final class ServerPingLoop {

    private final RpingOptions options;
    private final RpingLog log;
    private final RpingEndpoint endpoint;
    private final BooleanSupplier closed;
    private final String failedPrefix;

    /**
     * {@code closed} says whether the server is being closed (a failure is then reported as such);
     * {@code client} names the client in the failure line when a server has several, else null.
     */
    ServerPingLoop(RpingOptions options, RpingLog log, RpingEndpoint endpoint, BooleanSupplier closed, String client) {
        this.options = options;
        this.log = log;
        this.endpoint = endpoint;
        this.closed = closed;
        this.failedPrefix = client == null ? "rping server failed: " : "rping server failed (client " + client + "): ";
    }

    /** Serves pings until the client disconnects between two (success if it did {@code -C}), or fails. */
    RpingResult run(NegotiatedParameters negotiated) throws InterruptedException {
        int completed = 0;
        int verified = 0;
        try {
            while (true) {
                RpingRdmaInfo source;
                try {
                    source = endpoint.receive("the client's start buffer (its first Send of a ping)");
                } catch (RpingFailure e) {
                    if (!e.disconnected() || closed.getAsBoolean()) {
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
                endpoint.send(RpingRdmaInfo.GO_AHEAD, "the go ahead after the RDMA Read");
                log.debug("server posted go ahead");
                writeBack(length);
                endpoint.send(RpingRdmaInfo.GO_AHEAD, "the go ahead after the RDMA Write");
                log.debug("server posted go ahead");
                completed++;
            }
        } catch (RpingFailure e) {
            String failure = (closed.getAsBoolean() ? "the server was closed: " + e.getMessage() : e.getMessage())
                    + " (" + completed + " iterations completed)";
            log.error(failedPrefix + failure);
            endpoint.disconnect();
            return new RpingResult(completed, verified, negotiated, failure);
        }
        endpoint.disconnect();
        if (completed < options.count()) {
            String failure = "the client disconnected after " + completed + " of " + options.count() + " iterations";
            log.error(failedPrefix + failure);
            return new RpingResult(completed, verified, negotiated, failure);
        }
        return new RpingResult(completed, verified, negotiated, null);
    }

    /** RDMA Reads the client's advertised start buffer into {@code rdma_buf}; returns the octets read. */
    private int read(RpingRdmaInfo source) throws RpingFailure, InterruptedException {
        log.debug("Received %s from peer", source);
        log.debug("server received sink adv"); // sic: rping's words for the start buffer too
        int length = checkedLength(source);
        endpoint.postSend(SendWorkRequest.rdmaRead(RpingEndpoint.RDMA_ID, source.rkey(), source.buf(),
                endpoint.rdmaMr.sge(0, length)), "the RDMA Read of the client's start buffer");
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
        endpoint.postSend(SendWorkRequest.rdmaWrite(RpingEndpoint.RDMA_ID, sink.rkey(), sink.buf(),
                endpoint.rdmaMr.sge(0, writeLength)), "the RDMA Write into the client's sink");
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
}
