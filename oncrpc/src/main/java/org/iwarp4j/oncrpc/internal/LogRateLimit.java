package org.iwarp4j.oncrpc.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How often one kind of warning that a client can provoke may reach the log: at most {@code
 * burst} messages per interval, the rest counted and the count handed to the next message let
 * through (Linux's {@code net_ratelimit} and its "callbacks suppressed"). A client that makes the
 * server warn once per connection or per call — resetting its connections, a call that fails in
 * the program — must not be able to fill the disk by doing it in a loop. The iWARP stack's RNIC
 * applies the same rule to its own warnings; ONC RPC does not depend on that stack, so it keeps
 * this one. Thread-safe: connections of one server run on several event loops.
 */
public final class LogRateLimit {

    private final int burst;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private long intervalStart;
    private int admitted;
    private long held;
    private long heldTotal;

    /**
     * @param burst     messages let through per interval
     * @param nanoClock {@link System#nanoTime()}, or a test's clock
     */
    public LogRateLimit(int burst, long interval, TimeUnit unit, LongSupplier nanoClock) {
        if (burst < 1 || interval < 1) {
            throw new IllegalArgumentException("burst and interval must be positive: " + burst + ", " + interval);
        }
        this.burst = burst;
        this.intervalNanos = unit.toNanos(interval);
        this.nanoClock = nanoClock;
        this.intervalStart = nanoClock.getAsLong();
    }

    /**
     * One message asks to be logged: returns how many were held back since the last one let
     * through (zero or more) if it may be logged now, or -1 if it is held back (and counted).
     */
    public synchronized long admit() {
        long now = nanoClock.getAsLong();
        if (now - intervalStart >= intervalNanos) {
            intervalStart = now;
            admitted = 0;
        }
        if (admitted == burst) {
            held++;
            heldTotal++;
            return -1;
        }
        admitted++;
        long heldSinceLast = held;
        held = 0;
        return heldSinceLast;
    }

    /** Messages held back since this limit was made. */
    public synchronized long heldTotal() {
        return heldTotal;
    }
}
