package org.iwarp4j.tools.bench.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.EnumSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.mpa.MpaSettings;

/**
 * perftest's rdma_cm control connection ({@code perftest_comm} with {@code use_rdma_cm}): one
 * queue pair on which each message is one Send into the one receive the peer keeps posted
 * ({@code post_one_recv_wqe}: {@link PingPongDest#LENGTH} octets). {@link #exchange} is
 * {@code ctx_xchg_data}: the client sends first and then receives, the server the other way round,
 * so there is never more than one message in flight each way.
 */
public final class ControlChannel implements AutoCloseable {

    /** perftest posts a receive of {@code sizeof(struct pingpong_dest)}; nothing longer may be sent. */
    public static final int MAX_MESSAGE = PingPongDest.LENGTH;
    /** What a {@link PingPongDest} is called in errors. */
    public static final String HANDSHAKE = "a pingpong_dest handshake";

    private final QueuePair queuePair;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final ByteBuf memory = Unpooled.directBuffer(2 * MAX_MESSAGE).writeZero(2 * MAX_MESSAGE);
    private final MemoryRegion region;
    private final boolean client;
    private final long timeoutNanos;

    /** A control queue pair in state IDLE with its receive posted: connect it, or accept a request with it. */
    public ControlChannel(Rnic rnic, MpaSettings mpa, boolean client, long timeoutSeconds) {
        this.client = client;
        this.timeoutNanos = TimeUnit.SECONDS.toNanos(timeoutSeconds);
        ProtectionDomain pd = rnic.allocateProtectionDomain();
        region = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
        sendCq = rnic.createCompletionQueue(4);
        receiveCq = rnic.createCompletionQueue(4);
        queuePair = rnic.createQueuePair(QueuePairSettings.builder(pd, sendCq).receiveCompletionQueue(receiveCq)
                .sendQueueDepth(2).receiveQueueDepth(2).mpa(mpa).build());
        queuePair.postReceive(new ReceiveWorkRequest(0, region.sge(0, MAX_MESSAGE)));
    }

    public QueuePair queuePair() {
        return queuePair;
    }

    /**
     * {@code ctx_xchg_data}: our message for theirs, in the order of our role. perftest exchanges
     * the same {@code sizeof} each way, so theirs must have as many octets as ours; {@code what}
     * names it for the error if not.
     */
    public byte[] exchange(byte[] mine, String what) throws IOException, InterruptedException {
        if (client) {
            send(mine);
            return receive(mine.length, what);
        }
        byte[] theirs = receive(mine.length, what);
        send(mine);
        return theirs;
    }

    /** {@code ctx_hand_shake}: exchanges {@link PingPongDest}s. */
    public PingPongDest handShake(PingPongDest mine) throws IOException, InterruptedException {
        return PingPongDest.decode(exchange(mine.encode(), HANDSHAKE));
    }

    public void send(byte[] message) throws IOException, InterruptedException {
        if (message.length > MAX_MESSAGE) {
            throw new IllegalArgumentException("control messages have at most " + MAX_MESSAGE + " octets");
        }
        memory.setBytes(MAX_MESSAGE, message);
        queuePair.postSend(SendWorkRequest.send(1, region.sge(MAX_MESSAGE, message.length)));
        WorkCompletion c = sendCq.poll(timeoutNanos, TimeUnit.NANOSECONDS);
        if (c == null || !c.isSuccess()) {
            throw new IOException("control message not sent: " + (c == null ? "timeout" : c));
        }
    }

    /** The next message, waiting up to the timeout; it must be {@code what}, of {@code length} octets. */
    public byte[] receive(int length, String what) throws IOException, InterruptedException {
        byte[] message = tryReceive(timeoutNanos, length, what);
        if (message == null) {
            throw new IOException("no control message from the peer within "
                    + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s (waiting for " + what + ")");
        }
        return message;
    }

    /**
     * The next message if one arrives within {@code nanos}, else {@code null}; reposts the receive.
     * Every message is checked here, against the one length the protocol allows at this point: two
     * ends given other sizes or another test fall out of step, and a message of another kind
     * decoded as this one would be nonsense (a server's handshake reads as an OK verdict).
     */
    public byte[] tryReceive(long nanos, int length, String what) throws IOException, InterruptedException {
        WorkCompletion c = nanos <= 0 ? receiveCq.poll() : receiveCq.poll(nanos, TimeUnit.NANOSECONDS);
        if (c == null) {
            return null;
        }
        if (!c.isSuccess()) {
            throw new IOException("control connection failed while waiting for " + what + ": " + c);
        }
        byte[] message = ByteBufUtil.getBytes(memory, 0, c.byteLength());
        try {
            queuePair.postReceive(new ReceiveWorkRequest(0, region.sge(0, MAX_MESSAGE)));
        } catch (IllegalStateException closedMeanwhile) {
            // the peer closed after its last message (perftest does after the closing handshake)
        }
        if (message.length != length) {
            throw new IOException("the peer sent a " + message.length + "-octet control message where " + what
                    + " of " + length + " octets was due: do both ends run the same test with the same -s/-a?");
        }
        return message;
    }

    /**
     * Waits up to {@code nanos} for the peer to close the connection; whether it did. The end that
     * received the last message leaves the close to the end that sent it: Linux siw, having put a
     * Send's last segment on the wire, looks for a peer close before it looks at whether that
     * segment was the last, so a close arriving in between fails a Send delivered whole
     * ({@code IBV_WC_LOC_QP_OP_ERR}, perftest's "Bad wc status 2" after its report).
     */
    public boolean awaitPeerClose(long nanos) throws InterruptedException {
        try {
            queuePair.closeFuture().get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    @Override
    public void close() {
        try {
            queuePair.close().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            // closing anyway
        }
        region.close();
        memory.release();
    }
}
