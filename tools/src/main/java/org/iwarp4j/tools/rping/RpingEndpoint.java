package org.iwarp4j.tools.rping;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.tools.rping.internal.CompletionPoller;
import org.iwarp4j.tools.rping.internal.RpingFailure;
import org.iwarp4j.tools.rping.internal.RpingLog;
import org.iwarp4j.tools.rping.internal.RpingRdmaInfo;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.rdmap.WorkCompletionOpcode;

/**
 * What one rping end owns ({@code rping_setup_qp} + {@code rping_setup_buffers}): an RNIC with one
 * event loop (or, for each client of a persistent server, a share of the server's RNIC), a
 * protection domain, one completion queue for both queues, a queue pair of rping's depths, and
 * rping's buffers, each registered with rping's rights: {@code recv_buf} (local write), {@code
 * send_buf} (none), {@code rdma_buf} (local write, remote read and write) and, on the client,
 * {@code start_buf} (the same). The buffers are ours: released by {@link #close()}.
 */
final class RpingEndpoint implements AutoCloseable {

    static final long RECEIVE_ID = 1;
    static final long SEND_ID = 2;
    static final long RDMA_ID = 3;

    private static final long CLOSE_TIMEOUT_SECONDS = 10;

    final Rnic rnic;
    final QueuePair queuePair;
    final CompletionPoller completions;
    final ByteBuf rdmaBuf;
    final MemoryRegion rdmaMr;
    final ByteBuf startBuf;
    final MemoryRegion startMr;
    private final RpingLog log;
    private final ByteBuf recvBuf;
    private final MemoryRegion recvMr;
    private final ByteBuf sendBuf;
    private final MemoryRegion sendMr;
    private final boolean ownsRnic;
    private boolean closed;
    /** {@code recv_buf} could not be posted again after the last message: the peer had disconnected. */
    private boolean receiveNotReposted;

    /** An end with an RNIC of its own, closed with it; every wait bounded by the options' timeout, if any. */
    RpingEndpoint(RpingOptions options, RpingLog log) {
        this(options, log, null, options.timeout());
    }

    /**
     * An end on {@code shared} (left open by {@link #close()}), or on an RNIC of its own when null;
     * {@code waitLimit} bounds each wait for a completion ({@code null}: for ever, as rping).
     */
    RpingEndpoint(RpingOptions options, RpingLog log, Rnic shared, java.time.Duration waitLimit) {
        this.log = log;
        recvBuf = zeroed(RpingRdmaInfo.LENGTH);
        sendBuf = zeroed(RpingRdmaInfo.LENGTH);
        rdmaBuf = zeroed(options.size());
        startBuf = options.server() ? null : zeroed(options.size());
        ownsRnic = shared == null;
        try {
            rnic = shared != null ? shared : Rnic.builder().eventLoopThreads(1)
                    .capture(org.iwarp4j.tools.pcap.PcapRecording.recorder(options.pcap())).build();
        } catch (RuntimeException e) {
            releaseBuffers();
            throw e;
        }
        try {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            log.debug("created pd %d", pd.id());
            CompletionQueue cq = rnic.createCompletionQueue(RpingConstants.COMPLETION_QUEUE_CAPACITY);
            log.debug("created cq of %d entries", cq.capacity());
            queuePair = rnic.createQueuePair(QueuePairSettings.builder(pd, cq)
                    .sendQueueDepth(RpingConstants.SEND_QUEUE_DEPTH)
                    .receiveQueueDepth(RpingConstants.RECEIVE_QUEUE_DEPTH)
                    .mpa(options.mpaSettings())
                    .build());
            log.debug("created qp %d", queuePair.number());
            recvMr = pd.register(recvBuf, EnumSet.of(Access.LOCAL_WRITE));
            sendMr = pd.register(sendBuf, EnumSet.noneOf(Access.class));
            EnumSet<Access> rdmaAccess = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
            rdmaMr = pd.register(rdmaBuf, rdmaAccess);
            startMr = startBuf == null ? null : pd.register(startBuf, rdmaAccess);
            log.debug("allocated & registered buffers...");
            completions = new CompletionPoller(cq, waitLimit, log);
        } catch (RuntimeException e) {
            if (ownsRnic) {
                rnic.close();
            }
            releaseBuffers();
            throw e;
        }
    }

    private static ByteBuf zeroed(int length) {
        return Unpooled.directBuffer(length, length).writeZero(length);
    }

    /** Posts {@code recv_buf} before the connection is up: one receive is all rping ever has posted. */
    void postReceive() {
        queuePair.postReceive(receiveRequest());
    }

    private ReceiveWorkRequest receiveRequest() {
        return new ReceiveWorkRequest(RECEIVE_ID, recvMr.sge());
    }

    /**
     * Sends {@code info} from {@code send_buf}, which is rewritten in place as in rping: safe,
     * because each end sends its next message only after the peer answered the previous one.
     */
    void send(RpingRdmaInfo info, String what) throws RpingFailure {
        info.set(sendBuf, 0);
        postSend(SendWorkRequest.send(SEND_ID, sendMr.sge()), what);
    }

    /**
     * Posts one send-queue request; {@code what} names it if the queue pair refuses it because the
     * connection has ended (see {@link #refusedPost}).
     */
    void postSend(SendWorkRequest request, String what) throws RpingFailure {
        try {
            queuePair.postSend(request);
        } catch (IllegalStateException e) {
            throw refusedPost(e, what);
        }
    }

    /**
     * A queue pair past RTS refuses every post with an {@link IllegalStateException}: the peer
     * closed the connection (or a Terminate ended it) after this end's last completion. Posted a
     * moment earlier, the request would have completed as flushed, and {@link CompletionPoller}
     * would have reported that end; the refusal is reported the same way, so that a peer closing
     * between two steps is rping's DISCONNECT event, not an exception. Refused while the queue pair
     * is still IDLE or RTS (a full queue, an RDMA Read with ORD 0), the post is this end's mistake
     * and the exception is rethrown.
     */
    private RpingFailure refusedPost(IllegalStateException refused, String what) {
        QueuePairState state = queuePair.state();
        if (state == QueuePairState.IDLE || state == QueuePairState.RTS) {
            throw refused;
        }
        TerminateReason reason = queuePair.terminateReason();
        if (reason == null) {
            return RpingFailure.disconnected("the peer disconnected before this end could post " + what);
        }
        return new RpingFailure("the connection was terminated (" + reason + ") before this end could post " + what);
    }

    /** The {@code rping_rdma_info} describing {@code region}, as rping's {@code rping_format_send}. */
    static RpingRdmaInfo describe(MemoryRegion region, int size) {
        return new RpingRdmaInfo(region.baseTaggedOffset(), region.stag(), size);
    }

    /**
     * Waits for the peer's next Send, checks it is exactly one {@code rping_rdma_info} ("Received
     * bogus data" otherwise, as rping), reposts the receive and returns the message.
     */
    RpingRdmaInfo receive(String what) throws RpingFailure, InterruptedException {
        if (receiveNotReposted) {
            // No receive is posted: the wait would see no completion, ever.
            throw RpingFailure.disconnected("the peer disconnected while this end waited for " + what);
        }
        WorkCompletion c = completions.await(WorkCompletionOpcode.RECEIVE, what);
        if (c.byteLength() != RpingRdmaInfo.LENGTH) {
            throw new RpingFailure("Received bogus data, size " + c.byteLength() + " (an rping message has "
                    + RpingRdmaInfo.LENGTH + " octets)");
        }
        RpingRdmaInfo info = RpingRdmaInfo.get(recvBuf, 0);
        try {
            queuePair.postReceive(receiveRequest());
        } catch (IllegalStateException e) {
            RpingFailure refused = refusedPost(e, "the receive for the peer's next Send");
            if (!refused.disconnected()) {
                throw refused;
            }
            // The message arrived whole before the peer closed: it completes this step (the
            // client's last go ahead completes its last ping); the next step reports the disconnect.
            receiveNotReposted = true;
        }
        return info;
    }

    /** rping's {@code rping_disconnect}: an orderly close, posted work first (RFC 5040 §6.2). */
    void disconnect() throws InterruptedException {
        try {
            queuePair.close().get(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            log.debug("disconnect did not finish cleanly: %s", e);
        }
    }

    /** Closes the connection, deregisters and releases the buffers; safe to call twice. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (ownsRnic) {
            rnic.close();
        } else {
            // A share of a persistent server's RNIC: this client's connection goes, the RNIC stays
            // (or is already closed, when the server gave up waiting for this client: then its
            // event loop refuses the abort, and the connection went with it).
            try {
                queuePair.abort();
            } catch (RuntimeException alreadyClosed) {
                log.debug("abort after the RNIC closed: %s", alreadyClosed);
            }
        }
        recvMr.close();
        sendMr.close();
        rdmaMr.close();
        if (startMr != null) {
            startMr.close();
        }
        releaseBuffers();
    }

    private void releaseBuffers() {
        recvBuf.release();
        sendBuf.release();
        rdmaBuf.release();
        if (startBuf != null) {
            startBuf.release();
        }
    }
}
