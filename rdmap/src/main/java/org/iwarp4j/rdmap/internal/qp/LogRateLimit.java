package org.iwarp4j.rdmap.internal.qp;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How often one kind of warning may reach the log: at most {@code burst} messages per interval,
 * the rest counted and the count handed to the next message let through (as Linux's {@code
 * net_ratelimit} and its "callbacks suppressed"). A peer that can make this end warn — by closing
 * connections inside an FPDU, or by opening more than the caps allow — must not be able to fill
 * the disk by doing it in a loop. Thread-safe: queue pairs of one RNIC fail on several event loops.
 */
public final class LogRateLimit {

    private final int burst;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private long intervalStart;
    private int logged;
    private long suppressed;
    private long suppressedTotal;

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
     * Asks to log one message: the number of messages suppressed since the last one let through
     * (zero or more) if this one may be logged, or -1 if it must not be (it is counted).
     */
    public synchronized long admit() {
        long now = nanoClock.getAsLong();
        if (now - intervalStart >= intervalNanos) {
            intervalStart = now;
            logged = 0;
        }
        if (logged < burst) {
            logged++;
            long before = suppressed;
            suppressed = 0;
            return before;
        }
        suppressed++;
        suppressedTotal++;
        return -1;
    }

    /** Messages suppressed since this limit was made. */
    public synchronized long suppressedTotal() {
        return suppressedTotal;
    }
}
