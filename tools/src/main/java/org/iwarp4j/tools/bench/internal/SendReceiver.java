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

    private final DataEnd end;
    private final List<PingPongDest> clients;
    private final int creditEvery;
    private final long[] received;
    private final int[] sinceCredit;
    private long wrongLength;
    private long sizeReceived;
    private int size;

    SendReceiver(DataEnd end, List<PingPongDest> clients) {
        this.end = end;
        this.clients = clients;
        this.creditEvery = Math.max(1, end.settings().rxDepth() / 3);
        this.received = new long[end.queuePairs().size()];
        this.sinceCredit = new int[received.length];
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

    private boolean receiveOne(long waitNanos) throws IOException, InterruptedException {
        WorkCompletion c = end.receiveCq().poll(waitNanos, TimeUnit.NANOSECONDS);
        if (c == null) {
            drainSendCompletions();
            return false;
        }
        BandwidthClient.check(c, "receive");
        int i = end.indexOf(c.queuePair());
        if (c.byteLength() != size) {
            wrongLength++;
        }
        repost(i);
        received[i]++;
        sizeReceived++;
        if (++sinceCredit[i] == creditEvery) {
            sinceCredit[i] = 0;
            QueuePair qp = end.queuePairs().get(i);
            qp.postSend(SendWorkRequest.rdmaWrite(i, clients.get(i).rkey(), clients.get(i).vaddr(),
                    end.creditSource(i, (int) received[i])));
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
        end.queuePairs().get(qp).postReceive(new ReceiveWorkRequest(qp,
                end.target(qp, end.settings().bufferPerQueuePair())));
    }
}
