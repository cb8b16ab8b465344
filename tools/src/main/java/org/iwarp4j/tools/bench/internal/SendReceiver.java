package org.iwarp4j.tools.bench.internal;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * The passive side of the Send bandwidth test, perftest's {@code run_iter_bw_server} on iWARP:
 * keeps {@code rx depth} receives posted on every queue pair, reposts each as it completes, and
 * every {@code rx depth / 3} receives RDMA-writes the count received so far into the client's
 * credit word (4 octets, little-endian as perftest on x86 writes it).
 */
final class SendReceiver {

    /** Most receive completions taken (and reposted together) per batch. */
    static final int MAX_BATCH = 32;

    private final DataEnd end;
    private final List<PingPongDest> clients;
    private final int creditEvery;
    private final long[] received;
    private final int[] sinceCredit;
    /** Receives completed in the current batch and not yet reposted, per queue pair. */
    private final int[] toRepost;
    private long wrongLength;
    private long sizeReceived;
    private int size;

    SendReceiver(DataEnd end, List<PingPongDest> clients) {
        this.end = end;
        this.clients = clients;
        this.creditEvery = Math.max(1, end.settings().rxDepth() / 3);
        this.received = new long[end.queuePairs().size()];
        this.sinceCredit = new int[received.length];
        this.toRepost = new int[received.length];
    }

    /** Posts the initial receives on every queue pair (perftest's {@code ctx_set_recv_wqes}). */
    void postReceives() {
        for (int i = 0; i < received.length; i++) {
            for (int k = 0; k < end.settings().rxDepth(); k++) {
                repost(i);
            }
        }
    }

    /** Starts a size; with {@code restartCount} the credit count restarts from zero, as perftest's server does. */
    void startSize(int size, boolean restartCount) {
        this.size = size;
        if (restartCount) {
            java.util.Arrays.fill(received, 0);
            java.util.Arrays.fill(sinceCredit, 0);
        }
        wrongLength = 0;
        sizeReceived = 0;
    }

    /** Receives completed since {@link #startSize}, on every queue pair together. */
    long receivedForSize() {
        return sizeReceived;
    }

    long wrongLength() {
        return wrongLength;
    }

    /** Serves until a control message arrives, and returns it. */
    byte[] serve(ControlChannel control) throws IOException, InterruptedException {
        while (true) {
            if (!receiveOne(TimeUnit.MILLISECONDS.toNanos(1))) {
                byte[] message = control.tryReceive(0);
                if (message != null) {
                    return message;
                }
            }
        }
    }

    /**
     * Keeps serving until {@code total} receives of this size were counted (the client's count
     * travels on the control connection and may overtake the last Sends), or 30 s pass without one.
     */
    void drainUntil(long total) throws IOException, InterruptedException {
        while (sizeReceived < total) {
            if (!receiveOne(TimeUnit.SECONDS.toNanos(30))) {
                throw new IOException("the client reported " + total + " Sends, " + sizeReceived + " arrived");
            }
        }
    }

    /**
     * Waits up to {@code waitNanos} for a receive, then takes every one that has completed by then
     * (at most {@link #MAX_BATCH}), and reposts them per queue pair in one post call before the
     * credit Writes they earn: one command for the event loop per batch instead of one per
     * message, as an application polling a completion queue in batches does (perftest polls up to
     * 16 at a time). A credit covers only receives reposted before it.
     */
    private boolean receiveOne(long waitNanos) throws IOException, InterruptedException {
        WorkCompletion c = end.receiveCq().poll(waitNanos, TimeUnit.NANOSECONDS);
        if (c == null) {
            drainSendCompletions();
            return false;
        }
        int taken = 0;
        do {
            BandwidthClient.check(c, "receive");
            int i = end.indexOf(c.queuePair());
            if (c.byteLength() != size) {
                wrongLength++;
            }
            toRepost[i]++;
            received[i]++;
            sizeReceived++;
        } while (++taken < MAX_BATCH && (c = end.receiveCq().poll()) != null);
        for (int i = 0; i < toRepost.length; i++) {
            int n = toRepost[i];
            if (n == 0) {
                continue;
            }
            toRepost[i] = 0;
            QueuePair qp = end.queuePairs().get(i);
            ReceiveWorkRequest[] reposts = new ReceiveWorkRequest[n];
            for (int k = 0; k < n; k++) {
                reposts[k] = receive(i);
            }
            qp.postReceive(reposts);
            sinceCredit[i] += n;
            if (sinceCredit[i] >= creditEvery) {
                sinceCredit[i] = 0;
                qp.postSend(SendWorkRequest.rdmaWrite(i, clients.get(i).rkey(), clients.get(i).vaddr(),
                        end.creditSource(i, (int) received[i])));
            }
        }
        drainSendCompletions();
        return true;
    }

    private void drainSendCompletions() throws IOException {
        for (WorkCompletion s; (s = end.sendCq().poll()) != null; ) {
            BandwidthClient.check(s, "credit RDMA Write");
        }
    }

    private void repost(int qp) {
        end.queuePairs().get(qp).postReceive(receive(qp));
    }

    private ReceiveWorkRequest receive(int qp) {
        return new ReceiveWorkRequest(qp, end.target(qp, end.settings().bufferPerQueuePair()));
    }
}
