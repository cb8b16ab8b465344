package org.iwarp4j.tools.bench.internal;

import org.iwarp4j.tools.bench.BenchSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.ScatterGatherElement;

/**
 * One end's data-path resources, laid out as perftest lays out its buffer: one registered region of
 * {@code 2 × queue pairs × BUFF_SIZE} octets; queue pair {@code i} offers the peer its target area
 * at {@code i × BUFF_SIZE} (what its {@code pingpong_dest} advertises) and sends from its source
 * area at {@code (queue pairs + i) × BUFF_SIZE}, which holds the {@link Pattern}. A second small
 * region holds the Send test's credit words (perftest's {@code ctrl_buf}/{@code credit_buf}).
 *
 * <p>Between iwarp4j ends (both stamping, see {@link Pattern}) the areas perftest leaves unused hold
 * the stamped last message of each measured phase: a Write or Send client's own target area (which
 * no peer writes into in those tests) is its source, first zeroed for the message that clears the
 * peer's target and then {@linkplain #stampTargets stamped}; a Read server's source area (which no
 * one reads in a perftest Read test) is {@linkplain #stampSources stamped} for the client's last
 * Read, which reads it {@link #sourceDistance} beyond the target the server advertised.
 */
public final class DataEnd implements AutoCloseable {

    private final BenchSettings settings;
    private final int buffer;
    private final ByteBuf memory;
    private final ByteBuf creditMemory;
    private final ProtectionDomain pd;
    private final MemoryRegion region;
    private final MemoryRegion creditRegion;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final List<QueuePair> queuePairs = new ArrayList<>();
    /** The size the source areas' stamp is for ({@link #stampSources}); 0: none. */
    private int stampedSources;

    public DataEnd(Rnic rnic, BenchSettings settings) {
        this.settings = settings;
        this.buffer = settings.bufferPerQueuePair();
        int q = settings.queuePairs();
        long total = 2L * q * buffer;
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("message size × queue pairs too large for one region");
        }
        memory = Unpooled.directBuffer((int) total).writeZero((int) total);
        for (int i = 0; i < q; i++) {
            Pattern.fill(memory, sourceOffset(i), buffer);
        }
        creditMemory = Unpooled.directBuffer(8 * q).writeZero(8 * q);
        pd = rnic.allocateProtectionDomain();
        region = pd.register(memory, EnumSet.allOf(Access.class));
        creditRegion = pd.register(creditMemory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        int depth = settings.depth();
        sendCq = rnic.createCompletionQueue(q * (depth + settings.rxDepth() / 3 + 8));
        receiveCq = rnic.createCompletionQueue(q * (settings.rxDepth() + 8));
    }

    /**
     * A new queue pair in IDLE (for connect or accept); a failed connect needs a new one. It
     * signals per request, so that the bandwidth client can leave most requests unsignalled, as
     * perftest does; every other request here is signalled (the default of a request).
     */
    public QueuePair newQueuePair(Rnic rnic) {
        QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, sendCq).receiveCompletionQueue(receiveCq)
                .signalAllSends(false)
                .sendQueueDepth(settings.depth() + settings.rxDepth() / 3 + 4)
                .receiveQueueDepth(settings.rxDepth() + 4).mpa(settings.mpa()).build());
        return qp;
    }

    /**
     * The receive work request for queue pair {@code qp}'s Sends: its whole target area, with
     * the queue pair's index as the id. The same request is posted again after every receive.
     */
    public ReceiveWorkRequest receive(int qp) {
        return new ReceiveWorkRequest(qp, target(qp, buffer));
    }

    /**
     * Posts rx depth receives on {@code qp}, the {@code index}th queue pair (perftest's {@code
     * ctx_set_recv_wqes}). Called while the queue pair is still IDLE: the work waits in its queue
     * and reaches the engine when the connection is established, before the engine reads the
     * first FPDU, so the peer's first Send always finds a receive whatever the threads' timing.
     * Posted after RTS instead, the receives would depend on the event loop running its task
     * before it reads a Send that comes one control-channel round trip later.
     */
    public void postReceives(QueuePair qp, int index) {
        ReceiveWorkRequest receive = receive(index);
        for (int k = 0; k < settings.rxDepth(); k++) {
            qp.postReceive(receive);
        }
    }

    public void add(QueuePair qp) {
        queuePairs.add(qp);
    }

    public List<QueuePair> queuePairs() {
        return queuePairs;
    }

    public int indexOf(QueuePair qp) {
        return queuePairs.indexOf(qp);
    }

    public MemoryRegion region() {
        return region;
    }

    public ByteBuf memory() {
        return memory;
    }

    public int targetOffset(int qp) {
        return qp * buffer;
    }

    public int sourceOffset(int qp) {
        return (settings.queuePairs() + qp) * buffer;
    }

    public ScatterGatherElement target(int qp, int length) {
        return region.sge(targetOffset(qp), length);
    }

    public ScatterGatherElement source(int qp, int length) {
        return region.sge(sourceOffset(qp), length);
    }

    /** Where queue pair {@code qp}'s peer may write or read: the target area's tagged offset. */
    public long targetAddress(int qp) {
        return region.baseTaggedOffset() + targetOffset(qp);
    }

    public MemoryRegion creditRegion() {
        return creditRegion;
    }

    /** The credit word a Send server writes to (perftest's {@code credit_buf[i]}, host order). */
    public int creditOffset(int qp) {
        return 4 * (settings.queuePairs() + qp);
    }

    public long creditAddress(int qp) {
        return creditRegion.baseTaggedOffset() + creditOffset(qp);
    }

    /** Reads credit word {@code qp}, written by the peer's RNIC on another thread. */
    public int credit(int qp) {
        java.lang.invoke.VarHandle.acquireFence();
        return creditMemory.getIntLE(creditOffset(qp));
    }

    public void resetCredits() {
        for (int i = 0; i < settings.queuePairs(); i++) {
            creditMemory.setIntLE(creditOffset(i), 0);
        }
    }

    /** perftest's {@code ctrl_buf[i]}: the value a Send server's credit Write carries. */
    public ScatterGatherElement creditSource(int qp, int receivedCount) {
        creditMemory.setIntLE(4 * qp, receivedCount);
        return creditRegion.sge(4L * qp, 4);
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue receiveCq() {
        return receiveCq;
    }

    public BenchSettings settings() {
        return settings;
    }

    /** Zeroes the target areas (before a size is measured, so stale octets cannot pass verification). */
    public void clearTargets(int length) {
        for (int i = 0; i < settings.queuePairs(); i++) {
            memory.setZero(targetOffset(i), Math.min(length, buffer));
        }
    }

    /** The first queue pair whose target area's first {@code length} octets differ from the pattern, or -1. */
    public String verifyTargets(int length) {
        for (int i = 0; i < settings.queuePairs(); i++) {
            int at = Pattern.firstMismatch(memory, targetOffset(i), length);
            if (at >= 0) {
                return "queue pair " + i + ": octet " + at + " of " + length + " differs from the pattern";
            }
        }
        return null;
    }

    /**
     * The first queue pair whose target area does not hold the stamped {@code size}-octet message
     * (the measured phase's last, {@link Pattern#fillStamped}), in words; {@code null} if all do.
     */
    public String verifyStamped(int size) {
        for (int i = 0; i < settings.queuePairs(); i++) {
            int at = Pattern.firstStampedMismatch(memory, targetOffset(i), size);
            if (at >= 0) {
                return "queue pair " + i + ": octet " + at + " of " + size + " differs from the measured phase's"
                        + " last message (" + (Pattern.firstMismatch(memory, targetOffset(i), size) < 0
                        ? "the plain pattern: a message from before the phase" : "it was not placed whole") + ")";
            }
        }
        return null;
    }

    /** Fills every target area's first {@code size} octets with the stamped message: a client's last-message source. */
    public void stampTargets(int size) {
        for (int i = 0; i < settings.queuePairs(); i++) {
            Pattern.fillStamped(memory, targetOffset(i), Math.min(size, buffer));
        }
    }

    /**
     * Stamps every source area for a {@code size}-octet message (a Read server, for the client's
     * last Read of the size), the stamp of the last size stamped put back to the plain pattern.
     * Only while no Read is in flight: a Read Response of memory being changed fails its CRC.
     */
    public void stampSources(int size) {
        for (int i = 0; i < settings.queuePairs(); i++) {
            if (stampedSources > 0) {
                Pattern.unstamp(memory, sourceOffset(i), stampedSources);
            }
            Pattern.stamp(memory, sourceOffset(i), Math.min(size, buffer)); // the pattern is there already
        }
        stampedSources = Math.min(size, buffer);
    }

    /**
     * How far beyond its target area a queue pair's source area lies: the same at both iwarp4j
     * ends (given the same settings), so that a Read client finds the stamped source of the target
     * its server advertised (the region's STag covers both).
     */
    public long sourceDistance() {
        return (long) settings.queuePairs() * buffer;
    }

    @Override
    public void close() {
        for (QueuePair qp : queuePairs) {
            try {
                qp.close().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                // the connection is going away anyway
            }
        }
        region.close();
        creditRegion.close();
        memory.release();
        creditMemory.release();
    }
}
