package org.iwarp4j.tools.bench.internal;

import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import org.iwarp4j.tools.bench.BenchTest;
import org.iwarp4j.tools.bench.LatencyResult;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * The latency ping-pong on one queue pair, both roles, as perftest's {@code run_iter_lat_write}
 * and {@code run_iter_lat_send}. RDMA Write: each side writes the message into the other's target
 * area with an iteration number in its last octet and polls its own target area's last octet for
 * the peer's answer (a Write has no completion at the target). Send: each side answers a received
 * Send with its own. The client times each round trip; perftest reports half of it.
 */
final class PingPong {

    private static final int RECEIVES = 4;
    /** Looks at the answer this often before waiting: about as long as a quick answer takes. */
    private static final int SPINS = 2000;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final DataEnd end;
    private final QueuePair qp;
    private final PingPongDest peer;
    private final boolean write;
    private int size;
    private int counter;
    private int outstandingSends;

    PingPong(DataEnd end, PingPongDest peer) {
        this.end = end;
        this.qp = end.queuePairs().get(0);
        this.peer = peer;
        this.write = end.settings().test() == BenchTest.LAT_WRITE;
    }

    /** Posts the receives a Send ping-pong needs (before the connection or the first message). */
    void postReceives() {
        if (!write) {
            for (int k = 0; k < RECEIVES; k++) {
                repost();
            }
        }
    }

    /** Starts a size: zeroes the target area and the iteration counter (both ends do, before a handshake). */
    void startSize(int size) {
        this.size = size;
        this.counter = 0;
        end.clearTargets(size);
        Pattern.fill(end.memory(), end.sourceOffset(0), size);
    }

    /** Client: {@code iterations} round trips (or for {@code seconds}), the round trips in nanoseconds. */
    LatencyResult measure(long iterations, double seconds, BooleanSupplier stopped)
            throws IOException, InterruptedException {
        long stop = iterations == 0 ? System.nanoTime() + (long) (seconds * 1e9) : Long.MAX_VALUE;
        Histogram rtt = LatencyResult.newRoundTripHistogram();
        long n = 0;
        while ((iterations == 0 ? System.nanoTime() < stop : n < iterations) && !stopped.getAsBoolean()) {
            long t0 = System.nanoTime();
            ping();
            awaitAnswer();
            rtt.recordValue(Math.max(1, System.nanoTime() - t0));
            n++;
        }
        return n == 0 ? null : LatencyResult.of(size, rtt);
    }

    /** Client: round trips for {@code seconds}, not measured. */
    void warmUp(double seconds, BooleanSupplier stopped) throws IOException, InterruptedException {
        long stop = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < stop && !stopped.getAsBoolean()) {
            ping();
            awaitAnswer();
        }
    }

    /** Responder: answers every ping until a control message arrives, and returns it. */
    byte[] serve(ControlChannel control) throws IOException, InterruptedException {
        while (true) {
            if (awaitMessage(TimeUnit.MILLISECONDS.toNanos(1), (byte) (counter + 1))) {
                ping();
            } else {
                byte[] message = control.tryReceive(0);
                if (message != null) {
                    return message;
                }
            }
        }
    }

    /** Round trips completed for this size (iteration counter). */
    int count() {
        return counter;
    }

    /** Checks the last message received: the pattern, and for Writes the last iteration number. */
    String verify() {
        ByteBuf memory = end.memory();
        int at = end.targetOffset(0);
        int patterned = write ? size - 1 : size;
        int mismatch = Pattern.firstMismatch(memory, at, patterned);
        if (mismatch >= 0) {
            return "octet " + mismatch + " of the last " + size + "-octet message differs from the pattern";
        }
        if (write && counter > 0 && memory.getByte(at + size - 1) != (byte) counter) {
            return "the last RDMA Write carried iteration " + memory.getByte(at + size - 1) + ", expected "
                    + (byte) counter;
        }
        return null;
    }

    private void ping() throws IOException, InterruptedException {
        counter++;
        while (outstandingSends >= 2) {
            BandwidthClient.check(end.sendCq().poll(TIMEOUT_NANOS, TimeUnit.NANOSECONDS), "ping");
            outstandingSends--;
        }
        for (WorkCompletion c; (c = end.sendCq().poll()) != null; outstandingSends--) {
            BandwidthClient.check(c, "ping");
        }
        if (write) {
            end.memory().setByte(end.sourceOffset(0) + size - 1, counter);
            qp.postSend(SendWorkRequest.rdmaWrite(counter, peer.rkey(), peer.vaddr(), end.source(0, size)));
        } else {
            qp.postSend(SendWorkRequest.send(counter, end.source(0, size)));
        }
        outstandingSends++;
    }

    private void awaitAnswer() throws IOException, InterruptedException {
        if (!awaitMessage(TIMEOUT_NANOS, (byte) counter)) {
            throw new IOException("no answer to ping " + counter + " within 30 s");
        }
    }

    /**
     * Waits for the peer's next message (for Writes: {@code expected} in the last octet): spins
     * briefly, as perftest polls, then waits without burning a core, so that two ends and their
     * event loops can share few cores.
     *
     * <p>A Send's answer is a receive completion: after the spin this blocks in the completion
     * queue, and the event loop that completes the receive wakes it at once (a futex wake, as the
     * plain-TCP comparison's semaphore is woken). It used to yield and then park 20 µs at a time
     * and look again: a park lasts at least the kernel's timer slack (50 µs by default), so each
     * half round trip that missed the spin took 50-80 µs, on a busy machine nearly always, which is
     * why {@code lat-send} measured 1.85-4.85 times TCP while {@code LoopbackBench} (which answers
     * on the event loop itself) did not. A Write's answer has no completion at its target: only
     * the memory can be watched, so that path still spins, yields, then parks.
     */
    private boolean awaitMessage(long timeoutNanos, byte expected) throws IOException, InterruptedException {
        long start = System.nanoTime();
        int spins = 0;
        int last = end.targetOffset(0) + size - 1;
        while (true) {
            if (write) {
                java.lang.invoke.VarHandle.acquireFence();
                if (end.memory().getByte(last) == expected) {
                    return true;
                }
            } else {
                WorkCompletion c = end.receiveCq().poll();
                if (c == null && spins >= SPINS) {
                    long left = timeoutNanos - (System.nanoTime() - start);
                    c = left > 0 ? end.receiveCq().poll(left, TimeUnit.NANOSECONDS) : null;
                    if (c == null) {
                        return false;
                    }
                }
                if (c != null) {
                    BandwidthClient.check(c, "receive");
                    if (c.byteLength() != size) {
                        throw new IOException("received " + c.byteLength() + " octets, expected " + size);
                    }
                    repost();
                    return true;
                }
            }
            if (++spins > SPINS) {
                if (System.nanoTime() - start > timeoutNanos) {
                    return false;
                }
                if (spins > 20000) {
                    LockSupport.parkNanos(20_000);
                } else {
                    Thread.yield();
                }
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private void repost() {
        qp.postReceive(new ReceiveWorkRequest(0, end.target(0, end.settings().bufferPerQueuePair())));
    }
}
