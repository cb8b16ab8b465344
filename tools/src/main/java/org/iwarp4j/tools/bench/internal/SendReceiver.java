package org.iwarp4j.tools.bench.internal;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * The passive side of the Send bandwidth test, perftest's {@code run_iter_bw_server} on iWARP:
 * keeps {@code rx depth} receives posted on every queue pair, reposts each as it completes, and
 * every {@code rx depth / 3} receives RDMA-writes the count received so far into the client's
 * credit word (4 octets, little-endian as perftest on x86 writes it).
 *
 * <p>An iwarp4j client gets its credits more often, every {@code rx depth / 4} receives (see
 * {@link #creditInterval}): the Writes carry the same count into the same word, so a client of
 * any version reads them alike, and a perftest client sees perftest's interval.
 *
 * <p>The receives are answered on the event loop that completes them, through the completion
 * queues' listeners ({@link #start}): the repost and, when due, the credit Write are posted right
 * there. The repost, on the queue pair's own loop, takes effect before {@code postReceive} returns
 * (no work command); the credit Write reaches the engine in the drain the loop runs at the end of
 * its turn, so it never counts a receive that is not posted. No thread of the server takes part: a thread polling the
 * completion queue cost a wake-up per loop turn that completed receives and a command back to the
 * loop per batch, the largest share of a Send run (docs/performance-log.md, fifth session). The
 * serving thread only waits for the client's control messages and reads the counts.
 *
 * <p>Threads: each queue pair's {@link Inbound} is written by that queue pair's event loop alone
 * (a run with several queue pairs may have several loops) and publishes its count with a release
 * store ({@link AtomicLong#lazySet}), which the serving thread reads; receives placed before a
 * count are visible to a thread that has read it ({@link #drainUntil} before verifying the data).
 */
final class SendReceiver {

    /** How often a thread waiting for the client's control message looks for a failed completion. */
    private static final long FAILURE_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How long the last Sends of a size may take to arrive after the client's count did. */
    private static final long DRAIN_STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final DataEnd end;
    private final List<PingPongDest> clients;
    private final int creditEvery;
    private final Inbound[] inbound;
    /** Each queue pair's count at the start of the current size (the serving thread's alone). */
    private final long[] sizeStart;
    /** The first failed completion or post, reported by the serving thread. */
    private final AtomicReference<IOException> failure = new AtomicReference<>();
    /** The message size of the current size: a receive of another length is counted as wrong. */
    private volatile int size;

    /** @param iwarp4jClient the client is iwarp4j's (not perftest): it gets credits more often */
    SendReceiver(DataEnd end, List<PingPongDest> clients, boolean iwarp4jClient) {
        this.end = end;
        this.clients = clients;
        this.creditEvery = creditInterval(end.settings().rxDepth(), iwarp4jClient);
        List<QueuePair> qps = end.queuePairs();
        this.inbound = new Inbound[qps.size()];
        for (int i = 0; i < inbound.length; i++) {
            inbound[i] = new Inbound(i, qps.get(i), end.receive(i));
        }
        this.sizeStart = new long[inbound.length];
    }

    /**
     * Receives reposted per credit Write. perftest's server writes one every {@code rx depth / 3}
     * (170 of the default 512), and so does this one for a perftest client. An iwarp4j client gets
     * one every {@code rx depth / 4} (128): a client may have at most {@code rx depth} un-credited
     * Sends, and those not yet credited for the interval's sake are Sends it cannot post while the
     * socket buffers and the server's backlog hold the rest, so a shorter interval leaves it held
     * back by its credits less often. Each Write costs both event loops work a WRITE test does
     * not have: a flush and a system call on the server's, a wake-up, a socket read and a decode
     * on the client's, code that runs too seldom to be compiled well. With tx depth (128) Sends
     * in flight, a quarter of rx depth per credit still leaves the client held back by its credits
     * in a few hundredths of its waits; an eighth (64, until the ninth session) wrote twice as
     * many Writes for none (docs/performance-log.md, "Ninth session (2026-11-27 i): SEND at 64 KiB").
     */
    static int creditInterval(int rxDepth, boolean iwarp4jClient) {
        return Math.max(1, rxDepth / (iwarp4jClient ? 4 : 3));
    }

    /**
     * Takes the completions on the event loops from now on; before the client can send. The
     * initial receives were posted while the queue pairs were IDLE ({@link DataEnd#postReceives}).
     */
    void start() {
        end.receiveCq().setListener(this::received);
        end.sendCq().setListener(this::creditWritten);
    }

    /**
     * Hands the completion queues back to polling: the receives still posted complete as flushed
     * when the queue pairs close, and are neither reposted nor reported then.
     */
    void stop() {
        end.receiveCq().setListener(null);
        end.sendCq().setListener(null);
    }

    /**
     * Starts a size; with {@code restartCount} the credit count restarts from zero, as perftest's
     * server does. Between sizes no Send is on its way (the client waits for the handshake that
     * follows), so the counts read here are where the size starts.
     */
    void startSize(int size, boolean restartCount) {
        this.size = size;
        for (Inbound in : inbound) {
            long now = in.count.get();
            sizeStart[in.index] = now;
            in.wrongAtSizeStart = in.wrongLength.get();
            if (restartCount) {
                in.creditBase = now;
            }
        }
    }

    /** Receives completed since {@link #startSize}, on every queue pair together. */
    long receivedForSize() {
        long n = 0;
        for (Inbound in : inbound) {
            n += in.count.get() - sizeStart[in.index];
        }
        return n;
    }

    /** Receives of this size whose length was not the size's. */
    long wrongLength() {
        long n = 0;
        for (Inbound in : inbound) {
            n += in.wrongLength.get() - in.wrongAtSizeStart;
        }
        return n;
    }

    /**
     * Waits until a control message arrives ({@code what}, of {@code length} octets), and returns
     * it; the event loops serve the Sends meanwhile. Throws if a receive or a credit Write failed.
     */
    byte[] serve(ControlChannel control, int length, String what) throws IOException, InterruptedException {
        while (true) {
            byte[] message = control.tryReceive(FAILURE_CHECK_NANOS, length, what);
            throwIfFailed(); // also with a message: a perftest client's path has no drainUntil after it
            if (message != null) {
                return message;
            }
        }
    }

    /**
     * Waits until {@code total} receives of this size were counted (the client's count travels on
     * the control connection and may overtake the last Sends), or 30 s pass without one. Once per
     * size, when the client has sent all: this looks at the counts in 100 µs naps rather than have
     * every receive's listener ask whether a thread waits.
     */
    void drainUntil(long total) throws IOException {
        long seen = receivedForSize();
        long lastProgress = System.nanoTime();
        while (seen < total) {
            throwIfFailed();
            LockSupport.parkNanos(100_000);
            long now = receivedForSize();
            if (now != seen) {
                seen = now;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > DRAIN_STALL_NANOS) {
                throw new IOException("the client reported " + total + " Sends, " + seen + " arrived");
            }
        }
        throwIfFailed();
    }

    private void throwIfFailed() throws IOException {
        IOException e = failure.get();
        if (e != null) {
            throw e;
        }
    }

    /**
     * A receive completed (event loop of its queue pair): repost it, and write a credit once
     * {@link #creditEvery} more were reposted. The repost is in place when {@code postReceive}
     * returns, the Write goes out in the drain at the end of the turn: a credit never counts a
     * receive that is not posted.
     */
    private void received(WorkCompletion c) {
        Inbound in = inboundOf(c.queuePair());
        if (in == null || !c.isSuccess()) {
            fail(c, "receive");
            return;
        }
        if (c.byteLength() != size) {
            in.wrongLength.lazySet(in.wrongLength.get() + 1);
        }
        long received = ++in.received;
        try {
            in.qp.postReceive(in.receive);
            long credited = received - in.creditBase;
            if (credited % creditEvery == 0) {
                PingPongDest client = clients.get(in.index);
                in.qp.postSend(SendWorkRequest.rdmaWrite(in.index, client.rkey(), client.vaddr(),
                        end.creditSource(in.index, (int) credited)));
            }
        } catch (IllegalStateException e) { // failed meanwhile (its completions say why), or a queue full
            failure.compareAndSet(null, new IOException("queue pair " + in.index + ": " + e.getMessage(), e));
        }
        in.count.lazySet(received); // after the placement and the repost: a reader sees both
    }

    /** A credit Write completed (event loop): only a failure matters. */
    private void creditWritten(WorkCompletion c) {
        if (!c.isSuccess()) {
            fail(c, "credit RDMA Write");
        }
    }

    private void fail(WorkCompletion c, String what) {
        try {
            BandwidthClient.check(c, what);
        } catch (IOException e) {
            failure.compareAndSet(null, e);
        }
    }

    /**
     * The queue pairs are few (one per {@code -q}): a look along them costs less than a hash.
     * {@code null} (a failure, reported by the serving thread) for a queue pair not of this test.
     */
    private Inbound inboundOf(QueuePair qp) {
        for (Inbound in : inbound) {
            if (in.qp == qp) {
                return in;
            }
        }
        failure.compareAndSet(null, new IOException("a receive completed on queue pair " + qp.number()
                + ", not one of this test's"));
        return null;
    }

    /** One queue pair's receive side; the plain fields belong to its event loop. */
    private static final class Inbound {
        final int index;
        final QueuePair qp;
        /** The receive posted again and again: immutable, and every one of this queue pair's is the same. */
        final ReceiveWorkRequest receive;
        /** Receives completed successfully (event loop only). */
        long received;
        /** {@link #received}, published for the serving thread. */
        final AtomicLong count = new AtomicLong();
        final AtomicLong wrongLength = new AtomicLong();
        /** The count the credits are counted from: 0, or where a perftest client's current size began. */
        volatile long creditBase;
        /** {@link #wrongLength} at the start of the size (serving thread only). */
        long wrongAtSizeStart;

        Inbound(int index, QueuePair qp, ReceiveWorkRequest receive) {
            this.index = index;
            this.qp = qp;
            this.receive = receive;
        }
    }
}
