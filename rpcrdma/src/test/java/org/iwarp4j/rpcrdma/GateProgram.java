package org.iwarp4j.rpcrdma;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;

/**
 * A test program whose procedure 1 (HOLD) answers only when the test opens it, so that a test can
 * see how many Calls the Responder is serving at once.
 */
final class GateProgram {

    static final int PROGRAM = 0x2049_5703;
    static final int VERSION = 1;
    static final int HOLD = 1;

    final AtomicInteger serving = new AtomicInteger();
    final AtomicInteger maxServing = new AtomicInteger();
    final AtomicInteger served = new AtomicInteger();
    private final LinkedBlockingQueue<CompletableFuture<XdrMessage>> held = new LinkedBlockingQueue<>();

    RpcProgram program() {
        return program(false);
    }

    /** With HOLD registered as non-idempotent: the dispatcher answers its retransmissions with its first reply. */
    RpcProgram nonIdempotentProgram() {
        return program(true);
    }

    /** A program of the given number with {@code procedure} held as HOLD is (e.g. the echo program's SINK, whose argument a binding places). */
    RpcProgram holding(int program, int version, int procedure) {
        return RpcProgram.builder(program, version).procedure(procedure, holdProcedure()).build();
    }

    private RpcProgram program(boolean nonIdempotent) {
        org.iwarp4j.oncrpc.RpcProcedure hold = holdProcedure();
        RpcProgram.Builder b = RpcProgram.builder(PROGRAM, VERSION);
        return (nonIdempotent ? b.nonIdempotentProcedure(HOLD, hold) : b.procedure(HOLD, hold)).build();
    }

    private org.iwarp4j.oncrpc.RpcProcedure holdProcedure() {
        return (ctx, args) -> {
            int now = serving.incrementAndGet();
            maxServing.accumulateAndGet(now, Math::max);
            served.incrementAndGet();
            CompletableFuture<XdrMessage> result = new CompletableFuture<>();
            synchronized (this) {
                held.add(result);
                notifyAll();
            }
            return result;
        };
    }

    /** Waits for the next held Call and answers it. */
    void releaseOne() throws InterruptedException {
        releaseOne(results -> { });
    }

    /** Waits for the next held Call and answers it with what {@code results} encodes. */
    void releaseOne(java.util.function.Consumer<XdrEncoder> results) throws InterruptedException {
        CompletableFuture<XdrMessage> f = held.poll(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        if (f == null) {
            throw new AssertionError("no call arrived");
        }
        serving.decrementAndGet();
        XdrEncoder out = XdrEncoder.create();
        results.accept(out);
        f.complete(out.toMessage());
    }

    /** Waits until {@code n} Calls are being held. */
    synchronized void awaitHeld(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RpcRdmaPair.WAIT_SECONDS);
        while (held.size() < n) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new AssertionError(held.size() + " calls held, expected " + n);
            }
            wait(left);
        }
    }

    int held() {
        return held.size();
    }

    /** An RDMA_MSG Call to HOLD without chunks, granting {@code credits}. */
    static byte[] holdCall(int xid, int credits) {
        return Messages.concat(Messages.fixed(xid, 1, credits, 0), Messages.words(0, 0, 0),
                Messages.call(xid, PROGRAM, VERSION, HOLD, new byte[0]));
    }
}
