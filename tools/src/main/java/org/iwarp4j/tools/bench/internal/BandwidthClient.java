package org.iwarp4j.tools.bench.internal;

import java.util.function.BooleanSupplier;
import org.iwarp4j.tools.bench.BandwidthResult;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import org.iwarp4j.tools.bench.WorkRequestFailedException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.ScatterGatherElement;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * The active side of a bandwidth test, perftest's {@code run_iter_bw}: keeps {@code tx depth}
 * RDMA Writes, RDMA Reads or Sends in flight on every queue pair until each has done its
 * iterations (or the duration is over), counting completions; Reads are reposted in batches of
 * half the depth ({@link #refill}). Sends also respect the server's
 * credits (perftest's iWARP flow control: the server RDMA-writes how many it has received, and a
 * client never has {@code rx depth} un-credited Sends outstanding, since iWARP has no RNR retry).
 *
 * <p>How the client waits when it can post nothing depends on what holds it back. With {@code tx
 * depth} requests in flight only a completion lets it go on, and a completion wakes it: it waits
 * up to {@link #IDLE_WAIT_NANOS}. Only when the credits hold it back does it look again after
 * {@link #CREDIT_WAIT_NANOS}, since a credit is an RDMA Write into its memory, which completes
 * nothing at the target (RFC 5040 §5.3). Sends used to wait in the short slices always: on a
 * busy machine most of them ran out with 128 Sends still in flight, a timed futex wait and a
 * context switch each for nothing (docs/performance-log.md, "Fourth session").
 *
 * <p>Like perftest ({@code cq_mod}), the client asks for a completion only now and then: its queue
 * pairs signal per request ({@link DataEnd#newQueuePair}) and it signals one request in {@link
 * #signalInterval} and the last of every post call; a completion then stands for every request of
 * its queue pair up to it (completions are in posting order, RFC 5040 §5.5 #15).
 *
 * <p>Between iwarp4j ends that both stamp ({@link Pattern}), every measured phase is made to prove
 * that it placed data: before it (outside its time) the target is cleared ({@link
 * #prepareMeasurement}), and its last message on every queue pair is the stamped one, which the
 * verification looks for. Every message of a Write test used to land on the same octets and the
 * check only compared them with the pattern, which the warm-up had already put there: a measured
 * phase that placed nothing passed.
 */
final class BandwidthClient {

    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Longest wait for a Write or Read completion before the clock and Ctrl-C are looked at again. */
    private static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** How soon a Send client held back by its credits looks at its credit words again. */
    private static final long CREDIT_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final DataEnd end;
    private final BenchSettings settings;
    private final List<PingPongDest> remotes;
    private final long[] sent;
    private final boolean cumulativeCredits;
    private final boolean stamped;
    /**
     * Whether this size's warm-up or an earlier window may have placed data in the peer's target
     * since the server zeroed it (after the last size's verdict, or at the start).
     */
    private boolean peerTargetUsed;
    private long sizeSent;
    private BooleanSupplier stopped = () -> false;

    /** What a request moves: the pattern, zeros (clearing the target), or the stamped last message. */
    enum Body {
        PATTERN,
        ZEROS,
        STAMPED
    }

    /**
     * @param cumulativeCredits credits count over the whole session (an iwarp4j server) instead of
     *                          restarting with every size (perftest's server)
     * @param stamped           the server stamps too: clear its target before each measured phase and
     *                          end the phase with the stamped message ({@link #prepareMeasurement})
     */
    BandwidthClient(DataEnd end, List<PingPongDest> remotes, boolean cumulativeCredits, boolean stamped) {
        this.end = end;
        this.settings = end.settings();
        this.remotes = remotes;
        this.sent = new long[settings.queuePairs()];
        this.cumulativeCredits = cumulativeCredits;
        this.stamped = stamped;
    }

    /** Ends warm-ups and measurements early when {@code stopped} says so (Ctrl-C). */
    void stopWhen(BooleanSupplier stopped) {
        this.stopped = stopped;
    }

    /** Messages posted (and completed) for the current size on every queue pair together, warm-up included. */
    long sentForSize() {
        return sizeSent;
    }

    /**
     * Whether a Send client may post one more: afterwards it has fewer than {@code rxDepth}
     * Sends the server has not credited ({@code credit}: the receives it reported completed, each
     * reposted before it reported it), so the server always has a receive posted for every Send
     * in flight, as perftest's client keeps {@code scnt - credit < rx_depth}.
     */
    static boolean creditAllows(long sent, int credit, int rxDepth) {
        return sent + 1 - credit < rxDepth;
    }

    /** Starts a size: Send credits restart from zero unless they count over the whole session. */
    void startSize() {
        sizeSent = 0;
        peerTargetUsed = false;
        if (!cumulativeCredits) {
            java.util.Arrays.fill(sent, 0);
            end.resetCredits();
        }
    }

    /** Runs for {@code seconds} and discards the figures. */
    void warmUp(int size, double seconds) throws IOException, InterruptedException {
        if (seconds > 0) {
            peerTargetUsed = true;
            phase(size, Long.MAX_VALUE, System.nanoTime() + (long) (seconds * 1e9), null, false);
        }
    }

    /**
     * Before a measured phase, outside its time and CPU figures, when both ends stamp: clears the
     * target so that only the phase's own messages can be found there afterwards. Read clears its
     * own (every Read before has completed, so placed); Write and Send send the peer's target one
     * message of zeros (from this end's zeroed target area, counted as any message), fenced so that
     * it is placed before the phase starts, and then stamp that area: the phase's last message. The
     * zeros are sent only when this size's warm-up or an earlier window ran: otherwise the server
     * has zeroed its target itself (after every size's verdict), and a run of {@code -n N} without
     * warm-up still sends exactly N messages, as perftest's server counts them.
     */
    void prepareMeasurement(int size) throws IOException, InterruptedException {
        if (!stamped) {
            return;
        }
        if (settings.test() == BenchTest.READ) {
            end.clearTargets(size);
            return;
        }
        if (peerTargetUsed) {
            phase(size, 1, Long.MAX_VALUE, null, Body.ZEROS, false);
            fence();
            peerTargetUsed = false;
        }
        end.stampTargets(size);
    }

    /**
     * After a measured phase (fenced: its messages are all placed, so its sources are free): a Write
     * or Send client's stamped last-message source is zeroed again for the next clearing.
     */
    void measurementDone(int size) {
        if (stamped && settings.test() != BenchTest.READ) {
            end.clearTargets(size);
        }
    }

    /**
     * The measured run: {@code iterations} per queue pair, or for {@code seconds} when iterations is
     * 0; with stamps, the last message of every queue pair the stamped one.
     */
    BandwidthResult measure(int size, long iterations, double seconds, boolean fence)
            throws IOException, InterruptedException {
        peerTargetUsed = true;
        long start = System.nanoTime();
        RateSampler sampler = new RateSampler(start);
        long done = phase(size, iterations == 0 ? Long.MAX_VALUE : iterations,
                iterations == 0 ? start + (long) (seconds * 1e9) : Long.MAX_VALUE, sampler, stamped);
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
            check(c, "the fencing RDMA Read", c == null ? null : "zero-length RDMA Read (the fence) of queue pair "
                    + end.queuePairs().indexOf(c.queuePair()));
        }
    }

    private long phase(int size, long perQueuePair, long endNanos, RateSampler sampler, boolean closing)
            throws IOException, InterruptedException {
        return phase(size, perQueuePair, endNanos, sampler, Body.PATTERN, closing);
    }

    /**
     * Posts {@code body} messages until {@code perQueuePair} per queue pair or {@code endNanos};
     * with {@code closing}, each queue pair's last is {@link Body#STAMPED}: the last of its count,
     * or one more once the time is up (counted and timed as any). Returns the messages completed.
     */
    private long phase(int size, long perQueuePair, long endNanos, RateSampler sampler, Body body, boolean closing)
            throws IOException, InterruptedException {
        List<QueuePair> qps = end.queuePairs();
        int q = qps.size();
        int depth = settings.depth();
        int rxDepth = settings.rxDepth();
        long[] posted = new long[q];
        long[] completed = new long[q];
        int[] inFlight = new int[q];
        // Requests of each queue pair known done (its count of sent ones when the last completion
        // came), and the unsignalled ones posted since its last signalled one.
        long[] doneThrough = new long[q];
        int[] unsignalled = new int[q];
        // With closing, the last message of each queue pair: the stamped one, posted once the others are.
        long bodies = closing ? perQueuePair - 1 : perQueuePair;
        boolean[] closed = new boolean[q];
        for (int i = 0; i < q; i++) {
            doneThrough[i] = sent[i]; // a phase starts with nothing in flight
        }
        int signalInterval = signalInterval(depth);
        long completedTotal = 0;
        long lastProgress = System.nanoTime();
        boolean stop = false;
        List<SendWorkRequest> batch = new ArrayList<>(depth);
        boolean send = settings.test() == BenchTest.SEND;
        boolean read = settings.test() == BenchTest.READ;
        while (true) {
            long now = System.nanoTime();
            if (now >= endNanos || (!stop && stopped.getAsBoolean())) {
                stop = true;
            }
            boolean anyInFlight = false;
            boolean posting = false;
            boolean creditBound = false;
            for (int i = 0; i < q; i++) {
                // Every request that may go now, in one post call: one command for the queue pair's
                // event loop (one hand-off, one flush) instead of one per message.
                batch.clear();
                if (read && !refill(inFlight[i], depth)) {
                    anyInFlight |= inFlight[i] > 0;
                    continue;
                }
                while (!stop && posted[i] < bodies && inFlight[i] < depth
                        && (!send || creditAllows(sent[i], end.credit(i), rxDepth))) {
                    boolean signalled = ++unsignalled[i] >= signalInterval;
                    batch.add(request(i, size, body).withSignalled(signalled));
                    if (signalled) {
                        unsignalled[i] = 0;
                    }
                    posted[i]++;
                    sent[i]++;
                    sizeSent++;
                    inFlight[i]++;
                }
                if (closing && !closed[i] && (stop || posted[i] >= bodies) && inFlight[i] < depth
                        && (!send || creditAllows(sent[i], end.credit(i), rxDepth))) {
                    batch.add(request(i, size, Body.STAMPED)); // the last of the post call: signalled below
                    unsignalled[i]++;
                    closed[i] = true;
                    posted[i]++;
                    sent[i]++;
                    sizeSent++;
                    inFlight[i]++;
                }
                if (unsignalled[i] > 0 && !batch.isEmpty()) {
                    // The last of a post call is signalled: whatever stops the posting (a full
                    // window, the credits, the clock, the iterations), a completion will come
                    // for everything posted, and the client never waits for one that cannot.
                    int last = batch.size() - 1;
                    batch.set(last, batch.get(last).withSignalled(true));
                    unsignalled[i] = 0;
                }
                if (!batch.isEmpty()) {
                    try {
                        qps.get(i).postSend(batch.toArray(new SendWorkRequest[0]));
                    } catch (IllegalStateException notPostable) {
                        throw queuePairFailed(i, batch.get(0).id(), notPostable, size);
                    }
                    posting = true;
                }
                boolean more = (!stop && posted[i] < bodies) || (closing && !closed[i]);
                creditBound |= send && more && inFlight[i] < depth;
                anyInFlight |= inFlight[i] > 0;
            }
            boolean allPosted = true;
            for (int i = 0; i < q; i++) {
                allPosted &= posted[i] >= perQueuePair && (!closing || closed[i]);
            }
            if (!anyInFlight && (stop && (!closing || allClosed(closed)) || allPosted)) {
                return completedTotal;
            }
            // When nothing could be posted, wait for a completion: with tx depth in flight only
            // one lets the client go on (a short timed wait would wake the thread for nothing, a
            // futex call and a context switch each time); Send credits arrive without a completion,
            // so a client the credits hold back blocks only briefly before it looks at them again.
            WorkCompletion c = posting ? end.sendCq().poll()
                    : end.sendCq().poll(creditBound ? CREDIT_WAIT_NANOS : IDLE_WAIT_NANOS, TimeUnit.NANOSECONDS);
            while (c != null) {
                if (!c.isSuccess()) {
                    check(c, settings.test().operation(), workRequest(c.workRequestId(), size));
                }
                // In posting order: this completion ends its request and every unsignalled one before it.
                int i = (int) (c.workRequestId() >>> 48);
                long through = (c.workRequestId() & 0xffff_ffff_ffffL) + 1;
                int done = (int) (through - doneThrough[i]);
                doneThrough[i] = through;
                inFlight[i] -= done;
                completed[i] += done;
                completedTotal += done;
                lastProgress = now;
                c = end.sendCq().poll();
            }
            // Only at a completion: with one request signalled in signalInterval the total moves in
            // steps, and a window sampled between steps would span one step more than its gaps
            // (a peak reading up to 1/k high for a window of k steps).
            if (sampler != null && lastProgress == now) {
                sampler.record(System.nanoTime(), completedTotal);
            }
            if (now - lastProgress > STALL_NANOS) {
                throw new IOException(settings.test().operation() + "s stalled: no completion for 30 s"
                        + (settings.test() == BenchTest.SEND ? " (no credits from the server?)" : ""));
            }
        }
    }

    /**
     * Whether a Read client posts now: once half its tx depth (or all of it) is free, not after
     * every completion. perftest learns of completions only every {@code cq_mod} (100) work
     * requests and then posts that many at once. Reads complete a few at a time (the Read
     * Responses of one socket read), and posting each few costs the requester's event loop a
     * command, a flush and a {@code writev} of Read Requests, and the responder one
     * {@code writev} of Read Responses per few. Writes need no such rule: their completions come in
     * large batches already (the promises of one gathering write). Half the depth keeps the
     * pipeline at least half full (64 Reads of 128 in flight).
     */
    static boolean refill(int inFlight, int depth) {
        return depth - inFlight >= Math.max(1, depth / 2);
    }

    /**
     * How many requests in a row may go without a completion: half the tx depth. perftest signals
     * one in {@code cq_mod} (100), capped at the tx depth; signalling only every {@code depth}-th
     * would tell the client of free slots only when the whole window has drained, with nothing in
     * flight until it posts again, while every half depth keeps the other half in flight (the
     * refill rule for Reads is the same). Each completion costs the event loop an object, a queue
     * entry and maybe a wake-up, and the client a poll: this makes it two per window instead of
     * {@code depth}.
     */
    static int signalInterval(int depth) {
        return Math.max(1, depth / 2);
    }

    private static boolean allClosed(boolean[] closed) {
        for (boolean c : closed) {
            if (!c) {
                return false;
            }
        }
        return true;
    }

    /**
     * Queue pair {@code qp}'s next request. Writes and Sends move the pattern from the source area,
     * zeros or the stamped message from this end's target area ({@link #prepareMeasurement}); Reads
     * read the peer's target area, the stamped message its source area ({@link DataEnd#sourceDistance}).
     */
    private SendWorkRequest request(int qp, int size, Body body) {
        long id = ((long) qp << 48) | (sent[qp] & 0xffff_ffff_ffffL);
        PingPongDest remote = remotes.get(qp);
        ScatterGatherElement local = body == Body.PATTERN ? end.source(qp, size) : end.target(qp, size);
        return switch (settings.test()) {
            case WRITE -> SendWorkRequest.rdmaWrite(id, remote.rkey(), remote.vaddr(), local);
            case READ -> SendWorkRequest.rdmaRead(id, remote.rkey(),
                    remote.vaddr() + (body == Body.STAMPED ? end.sourceDistance() : 0), end.target(qp, size));
            case SEND -> SendWorkRequest.send(id, local);
            default -> throw new IllegalStateException(settings.test() + " is not a bandwidth test");
        };
    }

    /**
     * A queue pair refused a post: it failed (or its connection went away) after the last
     * completion this thread polled. Its failed completions, if it had requests outstanding, say
     * why; the first one found in the next seconds becomes the error, so that the diagnosis is the
     * same as when it is polled. With nothing outstanding there is no such completion (the requests
     * before the failure all succeeded), and the refusal itself is the error, with the same
     * diagnosis of both ends' queue pairs.
     */
    private WorkRequestFailedException queuePairFailed(int qp, long refusedId, IllegalStateException notPostable,
                                                       int size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            WorkCompletion c = end.sendCq().poll(left, TimeUnit.NANOSECONDS);
            if (c != null && !c.isSuccess()) {
                return WorkRequestFailedException.completed(settings.test().operation(),
                        workRequest(c.workRequestId(), size), c);
            }
        }
        WorkRequestFailedException refused = WorkRequestFailedException.refused(settings.test().operation(),
                workRequest(refusedId, size), end.queuePairs().get(qp), notPostable.getMessage());
        refused.initCause(notPostable);
        return refused;
    }

    /** The request {@link #request} made with work request id {@code id}, in words, for a failure's diagnosis. */
    private String workRequest(long id, int size) {
        int qp = (int) (id >>> 48);
        long sequence = id & 0xffff_ffff_ffffL;
        PingPongDest remote = remotes.get(qp);
        String where = settings.test() == BenchTest.SEND ? "into the peer's next receive"
                : String.format("remote STag %08x, TO 0x%x", remote.rkey(), remote.vaddr());
        return String.format("%s #%d of queue pair %d (QP %d), %d octets, %s, id 0x%x", settings.test().operation(),
                sequence, qp, end.queuePairs().get(qp).number(), size, where, id);
    }

    static void check(WorkCompletion c, String what) throws IOException {
        check(c, what, null);
    }

    /** @param workRequest the request as posted, in words; {@code null}: only its completion is known */
    static void check(WorkCompletion c, String what, String workRequest) throws IOException {
        if (c == null) {
            throw new IOException(what + ": no completion within 30 s");
        }
        if (!c.isSuccess()) {
            throw WorkRequestFailedException.completed(what, workRequest, c);
        }
    }
}
