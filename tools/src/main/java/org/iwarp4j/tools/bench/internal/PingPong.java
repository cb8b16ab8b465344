package org.iwarp4j.tools.bench.internal;

import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import org.iwarp4j.tools.bench.BenchTest;
import org.iwarp4j.tools.bench.LatencyResult;
import org.iwarp4j.tools.bench.PollMode;
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

    /**
     * Receives kept posted; half of them are posted again at a time, just before a Send, so that
     * reposting rarely costs the event loop a wake-up of its own (a receive posted alone, after
     * each message, woke it once more per message).
     */
    private static final int RECEIVES = 16;
    /** lat-write with {@link PollMode#EVENT}: looks at the memory this often before yielding. */
    private static final int SPINS = 2000;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final DataEnd end;
    private final QueuePair qp;
    private final PingPongDest peer;
    private final boolean write;
    private int size;
    private int counter;
    private int outstandingSends;
    private final PollMode poll;
    private final int receives;
    private int consumedReceives;
    private final int receiveLength;

    PingPong(DataEnd end, PingPongDest peer) {
        this.end = end;
        this.qp = end.queuePairs().get(0);
        this.peer = peer;
        this.write = end.settings().test() == BenchTest.LAT_WRITE;
        this.poll = end.settings().poll();
        // The receive queue holds rxDepth + 4 (DataEnd): at least 5.
        this.receives = Math.min(RECEIVES, end.settings().rxDepth() + 4);
        this.receiveLength = end.settings().bufferPerQueuePair(); // a stream over the sizes: not per message
    }

    /** Posts the receives a Send ping-pong needs (before the connection or the first message). */
    void postReceives() {
        if (!write) {
            repost(receives);
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

    /** Responder: answers every ping until a control message ({@code what}) arrives, and returns it. */
    byte[] serve(ControlChannel control, int length, String what) throws IOException, InterruptedException {
        while (true) {
            if (awaitMessage(TimeUnit.MILLISECONDS.toNanos(1), (byte) (counter + 1))) {
                ping();
            } else {
                byte[] message = control.tryReceive(0, length, what);
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
        if (consumedReceives >= receives / 2) {
            repost(consumedReceives); // queued just before the Send: the two mostly share one drain
            consumedReceives = 0;
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
     * Waits for the peer's next message (for Writes: {@code expected} in the last octet), as the
     * run's {@link PollMode} says.
     *
     * <p>{@link PollMode#BUSY} (perftest's default) polls the receive completion queue, or the
     * target memory, without ever giving the core away: no thread has to be woken for the answer.
     * {@link PollMode#EVENT} (perftest's {@code -e}) blocks in the completion queue, and the event
     * loop that completes the receive wakes the thread (a futex wake, as the plain-TCP comparison's
     * semaphore is woken). A Write's answer has no completion at its target: there only the memory
     * can be watched, so in this mode that path spins briefly, yields, then parks 20 µs at a time
     * (a park lasts at least the kernel's timer slack, 50 µs by default, which is why the Send path
     * no longer parks: on a busy machine nearly every half round trip missed a short spin and paid
     * it, and {@code lat-send} measured 1.85-4.85 times TCP).
     */
    private boolean awaitMessage(long timeoutNanos, byte expected) throws IOException, InterruptedException {
        long start = System.nanoTime();
        boolean busy = poll == PollMode.BUSY;
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
                if (c == null && !busy) {
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
                    consumedReceives++;
                    return true;
                }
            }
            spins++;
            if (busy) {
                if ((spins & 0x3ff) == 0) {
                    if (System.nanoTime() - start > timeoutNanos) {
                        return false;
                    }
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
                BusyWait.step(spins);
            } else if (spins > SPINS) {
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

    /** Posts {@code n} receives in one call: one work-queue drain on the event loop for all of them. */
    private void repost(int n) {
        ReceiveWorkRequest[] batch = new ReceiveWorkRequest[n];
        for (int k = 0; k < n; k++) {
            batch[k] = new ReceiveWorkRequest(0, end.target(0, receiveLength));
        }
        qp.postReceive(batch);
    }
}
