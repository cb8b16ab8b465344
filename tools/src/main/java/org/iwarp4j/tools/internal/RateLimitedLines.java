package org.iwarp4j.tools.internal;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.iwarp4j.oncrpc.internal.LogRateLimit;

/**
 * The lines a remote peer can make a server print, one for each thing it does (a connection
 * request refused, a connection ended): at most {@link #BURST} every {@link #INTERVAL_SECONDS}
 * seconds (Linux's {@code net_ratelimit}, and this project's RNIC and RPC servers for their
 * warnings), so that a peer doing the thing in a loop cannot flood the terminal or fill a log
 * file. The lines held back are counted, and one line, {@code ... suppressed K similar lines},
 * goes out before the next line let through, or at {@link #close()}.
 *
 * <p>The lines are written by a thread of this object's own, never by the caller: the callers
 * include event loops, and writing to standard output blocks while a terminal is paused (Ctrl-S)
 * or the reader of a pipe lags, which would hold every connection of the loop. At most {@link
 * #QUEUED_LINES} lines wait for that thread; the lines beyond, while it is blocked, are counted
 * as held back too. The thread is started with the first line and ends at {@link #close()}.
 */
public final class RateLimitedLines implements AutoCloseable {

    public static final int BURST = 10;
    public static final int INTERVAL_SECONDS = 5;
    static final int QUEUED_LINES = 64;
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final Consumer<String> sink;
    private final LogRateLimit limit;
    private final int queuedLines;
    private final String threadName;
    private final Object lock = new Object();
    /** Lines waiting for the thread (guarded by {@link #lock}, as are the fields below). */
    private final ArrayDeque<String> queue = new ArrayDeque<>();
    /** Lines held back since the last summary was queued. */
    private long held;
    private Thread thread;
    /** The thread is writing a line it has taken off the queue. */
    private boolean writing;
    private boolean closed;

    /**
     * @param sink       writes one line (a PrintWriter's println and flush, say); called on this
     *                   object's thread, one line at a time
     * @param threadName the name of that thread
     */
    public RateLimitedLines(Consumer<String> sink, String threadName) {
        this(sink, threadName, System::nanoTime);
    }

    /** With another clock (tests). */
    public RateLimitedLines(Consumer<String> sink, String threadName, LongSupplier nanoClock) {
        this(sink, threadName, BURST, INTERVAL_SECONDS, TimeUnit.SECONDS, nanoClock, QUEUED_LINES);
    }

    /** With another limit, clock and queue (tests). */
    public RateLimitedLines(Consumer<String> sink, String threadName, int burst, long interval, TimeUnit unit,
                     LongSupplier nanoClock, int queuedLines) {
        if (queuedLines < 2) {
            throw new IllegalArgumentException("room for a summary and a line is needed: " + queuedLines);
        }
        this.sink = sink;
        this.threadName = threadName;
        this.limit = new LogRateLimit(burst, interval, unit, nanoClock);
        this.queuedLines = queuedLines;
    }

    /** Hands {@code line} over to be written, or counts it as held back; never waits for the writing. */
    public void print(String line) {
        synchronized (lock) {
            if (closed) {
                // Nothing reads the queue any more, and a summary has been written.
                return;
            }
            if (limit.admit() < 0 || queue.size() + (held > 0 ? 2 : 1) > queuedLines) {
                held++;
                return;
            }
            queueSummary();
            queue.add(line);
            wakeWriter();
        }
    }

    private void queueSummary() {
        if (held > 0) {
            queue.add("... suppressed " + held + " similar line" + (held == 1 ? "" : "s"));
            held = 0;
        }
    }

    private void wakeWriter() {
        if (thread == null) {
            thread = new Thread(this::write, threadName);
            thread.setDaemon(true);
            thread.start();
        }
        lock.notifyAll();
    }

    private void write() {
        while (true) {
            String line;
            synchronized (lock) {
                while (queue.isEmpty() && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                line = queue.poll();
                if (line == null) {
                    return;
                }
                writing = true;
            }
            try {
                sink.accept(line);
            } finally {
                synchronized (lock) {
                    writing = false;
                    lock.notifyAll();
                }
            }
        }
    }

    /** Waits until every line handed over so far has been written; false if the time ran out first. */
    public boolean awaitWritten(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (!queue.isEmpty() || writing) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
        return true;
    }

    /**
     * Writes the count of the lines held back since the last summary, if any, and ends the thread
     * once the queue is written; waits for that {@value #CLOSE_WAIT_SECONDS} seconds at most (a
     * writer blocked for longer is left to finish alone: its thread does not keep the JVM alive).
     * Lines handed over afterwards are dropped.
     */
    @Override
    public void close() {
        Thread writer;
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (held > 0) {
                queueSummary();
                wakeWriter();
            }
            closed = true;
            lock.notifyAll();
            writer = thread;
        }
        if (writer == null) {
            return;
        }
        try {
            writer.join(TimeUnit.SECONDS.toMillis(CLOSE_WAIT_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
