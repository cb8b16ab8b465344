package org.iwarp4j.tools.rpc;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.iwarp4j.oncrpc.sample.EchoClient;

/**
 * A closed loop of calls: keeps {@code inFlight} calls without a reply, issuing the next as a
 * reply arrives, for a number of calls or a time. The clock stops when the last reply is in.
 */
public final class CallLoop {

    /** A reply later than this ends the run with a failure (the RPC client's own timeout is 30 s). */
    private static final long REPLY_WAIT_SECONDS = 60;

    private final EchoClient echo;
    private final int inFlight;

    public CallLoop(EchoClient echo, int inFlight) {
        this.echo = echo;
        this.inFlight = inFlight;
    }

    /**
     * {@code calls} calls (or, when 0, as many as fit in {@code seconds}) of {@code procedure} with
     * {@code payload} (not consumed); fails with the first call that failed.
     */
    public RpcRate run(EchoProcedure procedure, ByteBuf payload, int payloadCrc, long calls, double seconds)
            throws IOException, InterruptedException {
        Semaphore slots = new Semaphore(inFlight);
        AtomicLong unverified = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long durationNanos = (long) (seconds * 1e9);
        long start = System.nanoTime();
        long issued = 0;
        while (failure.get() == null
                && (calls > 0 ? issued < calls : System.nanoTime() - start < durationNanos)) {
            acquire(slots, 1, procedure);
            issued++;
            procedure.call(echo, payload, payloadCrc).whenComplete((ok, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else if (!ok) {
                    unverified.incrementAndGet();
                }
                slots.release();
            });
        }
        acquire(slots, inFlight, procedure);
        long nanos = System.nanoTime() - start;
        Throwable e = failure.get();
        if (e != null) {
            Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                    ? e.getCause() : e;
            throw new IOException(procedure + " of " + payload.readableBytes() + " octets failed: " + cause, cause);
        }
        return new RpcRate(payload.readableBytes(), issued, nanos, unverified.get());
    }

    private static void acquire(Semaphore slots, int n, EchoProcedure procedure)
            throws IOException, InterruptedException {
        if (!slots.tryAcquire(n, REPLY_WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new IOException(procedure + ": no reply within " + REPLY_WAIT_SECONDS + " s");
        }
    }
}
