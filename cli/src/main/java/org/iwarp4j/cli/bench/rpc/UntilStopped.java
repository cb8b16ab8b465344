package org.iwarp4j.cli.bench.rpc;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A server command's wait: until the process is stopped (SIGINT/SIGTERM run the shutdown hook) or
 * the waiting thread is interrupted (tests). The hook holds the JVM until the command has closed
 * its server and printed its last lines ({@link #close()}), at most 10 s.
 */
public final class UntilStopped implements AutoCloseable {

    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;

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

    /** Blocks until stopped; returns normally (with the interrupt flag set if interrupted). */
    public void await() {
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The command is done: lets a stopping JVM halt, or removes the hook if the JVM goes on. */
    @Override
    public void close() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running
        }
    }
}
