package org.iwarp4j.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C during a client run: the first SIGINT only asks the run to stop ({@link #getAsBoolean()}),
 * so that it ends the size it is measuring early and the command prints the rows so far, a partial
 * row, and its JSON, then exits 130. A run blocked on its peer does not poll; if it has not ended
 * {@link #GRACE_SECONDS} after the signal, the running thread is interrupted. A second SIGINT exits
 * at once with 130. A JVM that cannot catch SIGINT ({@code -Xrs}) keeps the default: exit 130 at once.
 */
public final class StopOnInterrupt implements AutoCloseable, BooleanSupplier {

    public static final int EXIT_INTERRUPTED = 130;
    static final int GRACE_SECONDS = 5;

    private final Thread worker = Thread.currentThread();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean stopped;
    private Signal signal;
    private SignalHandler previous;

    private StopOnInterrupt(int graceSeconds) {
        this.graceSeconds = graceSeconds;
    }

    private final int graceSeconds;

    /** Catches SIGINT until {@link #close()}; the thread calling this is the one to interrupt. */
    public static StopOnInterrupt install() {
        return install(GRACE_SECONDS);
    }

    /** As {@link #install()}, interrupting the thread {@code graceSeconds} after the signal (0: at once). */
    public static StopOnInterrupt install(int graceSeconds) {
        StopOnInterrupt stop = new StopOnInterrupt(graceSeconds);
        try {
            stop.signal = new Signal("INT");
            stop.previous = Signal.handle(stop.signal, stop::signalled);
        } catch (IllegalArgumentException cannotCatch) {
            stop.signal = null;
        }
        return stop;
    }

    private void signalled(Signal s) {
        if (stopped) {
            Runtime.getRuntime().exit(EXIT_INTERRUPTED);
        }
        stopped = true;
        Thread watchdog = new Thread(() -> {
            try {
                if (!finished.await(graceSeconds, TimeUnit.SECONDS)) {
                    worker.interrupt();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "iwarp-interrupt");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** Whether Ctrl-C was pressed. */
    @Override
    public boolean getAsBoolean() {
        return stopped;
    }

    /** For tests and callers that stop a run without a signal. */
    void requestStop() {
        stopped = true;
    }

    @Override
    public void close() {
        finished.countDown();
        if (signal != null) {
            Signal.handle(signal, previous);
        }
    }
}
