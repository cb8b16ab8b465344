package org.iwarp4j.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * A server command's wait: until the process is stopped or the waiting thread is interrupted
 * (tests). Stopped means, with {@link #UntilStopped(String)}, that the JVM is shutting down
 * (SIGINT/SIGTERM run the shutdown hook): the hook holds the JVM until the command has closed its
 * server and printed its last lines ({@link #close()}), at most 10 s, and the exit status is the
 * signal's (130, 143). With {@link #onSignals(String)} SIGINT and SIGTERM themselves are caught
 * ({@code sun.misc.Signal}, module jdk.unsupported): the JVM does not begin to shut down, {@link
 * #await()} returns and the command ends as usual, so a server stopped with Ctrl-C exits 0 after
 * its totals; a second signal exits at once with the signal's status. A signal this JVM cannot
 * catch (run with {@code -Xrs}, or absent on the platform) falls back to the hook.
 */
public final class UntilStopped implements AutoCloseable {

    private static final String[] STOP_SIGNALS = {"INT", "TERM"};

    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;
    /** Signals caught by this object and the handlers they had before, to put back on close. */
    private final List<Signal> caught = new ArrayList<>();
    private final List<SignalHandler> previous = new ArrayList<>();

    /** Stopped when the JVM shuts down: the exit status is the signal's. */
    public UntilStopped(String name) {
        hook = new Thread(() -> {
            stop.countDown();
            try {
                finished.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Stopped by SIGINT or SIGTERM without the JVM shutting down: the command's own status stands. */
    public static UntilStopped onSignals(String name) {
        UntilStopped until = new UntilStopped(name);
        for (String signal : STOP_SIGNALS) {
            try {
                Signal s = new Signal(signal);
                SignalHandler before = Signal.handle(s, until::signalled);
                until.caught.add(s);
                until.previous.add(before);
            } catch (IllegalArgumentException cannotCatch) {
                // -Xrs or no such signal here: the shutdown hook still stops the wait
            }
        }
        return until;
    }

    private void signalled(Signal signal) {
        if (stop.getCount() == 0) {
            // stopped twice (closing hangs?): leave at once, as an uncaught signal would
            Runtime.getRuntime().exit(128 + signal.getNumber());
        }
        stop.countDown();
    }

    /** Blocks until stopped; returns normally (with the interrupt flag set if interrupted). */
    public void await() {
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The command is done: lets a stopping JVM halt, or removes the hook if the JVM goes on, and
     * gives caught signals their handlers back.
     */
    @Override
    public void close() {
        finished.countDown();
        for (int i = 0; i < caught.size(); i++) {
            Signal.handle(caught.get(i), previous.get(i));
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running
        }
    }
}
