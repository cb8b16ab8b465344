package org.iwarp4j.tools.bench.internal;

import java.util.function.BooleanSupplier;
import org.iwarp4j.tools.bench.BandwidthResult;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * The active side of a bandwidth test, perftest's {@code run_iter_bw}: keeps {@code tx depth}
 * RDMA Writes, RDMA Reads or Sends in flight on every queue pair until each has done its
 * iterations (or the duration is over), counting completions. Sends also respect the server's
 * credits (perftest's iWARP flow control: the server RDMA-writes how many it has received, and a
 * client never has {@code rx depth} un-credited Sends outstanding, since iWARP has no RNR retry).
 */
final class BandwidthClient {

    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Longest wait for a Write or Read completion before the clock and Ctrl-C are looked at again. */
    private static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final DataEnd end;
    private final BenchSettings settings;
    private final List<PingPongDest> remotes;
    private final long[] sent;
    private final boolean cumulativeCredits;
    private long sizeSent;
    private BooleanSupplier stopped = () -> false;

    /**
     * @param cumulativeCredits credits count over the whole session (an iwarp4j server) instead of
     *                          restarting with every size (perftest's server)
     */
    BandwidthClient(DataEnd end, List<PingPongDest> remotes, boolean cumulativeCredits) {
        this.end = end;
        this.settings = end.settings();
        this.remotes = remotes;
        this.sent = new long[settings.queuePairs()];
        this.cumulativeCredits = cumulativeCredits;
    }

    /** Ends warm-ups and measurements early when {@code stopped} says so (Ctrl-C). */
    void stopWhen(BooleanSupplier stopped) {
        this.stopped = stopped;
    }

    /** Messages posted (and completed) for the current size on every queue pair together, warm-up included. */
    long sentForSize() {
        return sizeSent;
    }

    /** Starts a size: Send credits restart from zero unless they count over the whole session. */
    void startSize() {
        sizeSent = 0;
        if (!cumulativeCredits) {
            java.util.Arrays.fill(sent, 0);
            end.resetCredits();
        }
    }

    /** Runs for {@code seconds} and discards the figures. */
    void warmUp(int size, double seconds) throws IOException, InterruptedException {
        if (seconds > 0) {
            phase(size, Long.MAX_VALUE, System.nanoTime() + (long) (seconds * 1e9), null);
        }
    }

    /** The measured run: {@code iterations} per queue pair, or for {@code seconds} when iterations is 0. */
    BandwidthResult measure(int size, long iterations, double seconds, boolean fence)
            throws IOException, InterruptedException {
        long start = System.nanoTime();
        RateSampler sampler = new RateSampler(start);
        long done = phase(size, iterations == 0 ? Long.MAX_VALUE : iterations,
                iterations == 0 ? start + (long) (seconds * 1e9) : Long.MAX_VALUE, sampler);
        if (fence) {
            fence();
        }
        long end = System.nanoTime();
        return BandwidthResult.of(size, done, end - start, sampler.peakBytesPerSecond(end, done, size));
    }

    /**
     * A zero-length RDMA Read on every queue pair: its response comes back only after the peer has
     * processed everything before it on the stream (RFC 5040 §5.5), so the clock stops when the
     * data is placed, not when it was handed to TCP. Zero-length Reads are not checked against
     * the STag (RFC 5041 §5.2), so any STag does.
     */
    private void fence() throws IOException, InterruptedException {
        List<QueuePair> qps = end.queuePairs();
        for (int i = 0; i < qps.size(); i++) {
            qps.get(i).postSend(SendWorkRequest.rdmaRead(Long.MIN_VALUE, remotes.get(i).rkey(),
                    remotes.get(i).vaddr(), end.target(i, 0)));
        }
        for (int i = 0; i < qps.size(); i++) {
            WorkCompletion c = end.sendCq().poll(STALL_NANOS, TimeUnit.NANOSECONDS);
            check(c, "the fencing RDMA Read");
        }
    }

    private long phase(int size, long perQueuePair, long endNanos, RateSampler sampler)
            throws IOException, InterruptedException {
        List<QueuePair> qps = end.queuePairs();
        int q = qps.size();
        int depth = settings.depth();
        int rxDepth = settings.rxDepth();
        long[] posted = new long[q];
        long[] completed = new long[q];
        int[] inFlight = new int[q];
        long completedTotal = 0;
        long lastProgress = System.nanoTime();
        boolean stop = false;
        List<SendWorkRequest> batch = new ArrayList<>(depth);
        boolean send = settings.test() == BenchTest.SEND;
        while (true) {
            long now = System.nanoTime();
            if (now >= endNanos || (!stop && stopped.getAsBoolean())) {
                stop = true;
            }
            boolean anyInFlight = false;
            boolean posting = false;
            for (int i = 0; i < q; i++) {
                // Every request that may go now, in one post call: one command for the queue pair's
                // event loop (one hand-off, one flush) instead of one per message.
                batch.clear();
                while (!stop && posted[i] < perQueuePair && inFlight[i] < depth
                        && (settings.test() != BenchTest.SEND || sent[i] + 1 - end.credit(i) < rxDepth)) {
                    batch.add(request(i, size));
                    posted[i]++;
                    sent[i]++;
                    sizeSent++;
                    inFlight[i]++;
                }
                if (!batch.isEmpty()) {
                    qps.get(i).postSend(batch.toArray(new SendWorkRequest[0]));
                    posting = true;
                }
                anyInFlight |= inFlight[i] > 0;
            }
            boolean allPosted = true;
            for (int i = 0; i < q; i++) {
                allPosted &= posted[i] >= perQueuePair;
            }
            if (!anyInFlight && (stop || allPosted)) {
                return completedTotal;
            }
            // When nothing could be posted, wait for a completion: Writes and Reads can only go on
            // after one (a short timed wait would wake the thread for nothing, a futex call and a
            // context switch each time); Send credits arrive without a completion, so a Send client
            // blocks only briefly before it looks at its credit word again.
            WorkCompletion c = posting ? end.sendCq().poll()
                    : end.sendCq().poll(send ? 200_000 : IDLE_WAIT_NANOS, TimeUnit.NANOSECONDS);
            while (c != null) {
                check(c, settings.test().operation());
                int i = (int) (c.workRequestId() >>> 48);
                inFlight[i]--;
                completed[i]++;
                completedTotal++;
                lastProgress = now;
                c = end.sendCq().poll();
            }
            if (sampler != null) {
                sampler.record(System.nanoTime(), completedTotal);
            }
            if (now - lastProgress > STALL_NANOS) {
                throw new IOException(settings.test().operation() + "s stalled: no completion for 30 s"
                        + (settings.test() == BenchTest.SEND ? " (no credits from the server?)" : ""));
            }
        }
    }

    private SendWorkRequest request(int qp, int size) {
        long id = ((long) qp << 48) | (sent[qp] & 0xffff_ffff_ffffL);
        PingPongDest remote = remotes.get(qp);
        return switch (settings.test()) {
            case WRITE -> SendWorkRequest.rdmaWrite(id, remote.rkey(), remote.vaddr(), end.source(qp, size));
            case READ -> SendWorkRequest.rdmaRead(id, remote.rkey(), remote.vaddr(), end.target(qp, size));
            case SEND -> SendWorkRequest.send(id, end.source(qp, size));
            default -> throw new IllegalStateException(settings.test() + " is not a bandwidth test");
        };
    }

    static void check(WorkCompletion c, String what) throws IOException {
        if (c == null) {
            throw new IOException(what + ": no completion within 30 s");
        }
        if (!c.isSuccess()) {
            throw new IOException(what + " failed: " + c);
        }
    }
}
