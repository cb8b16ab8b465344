package org.iwarp4j.interop.peer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lines a peer command writes to stdout and stderr, pumped by two daemon threads, so that
 * a test can wait for a line (a server's "listening") instead of sleeping. Text only.
 * The first stderr line {@code @@iwarp4j-pid N}, written by the wrapper around every command,
 * is kept out of the output and reported as {@link #pid()}.
 */
final class CommandOutput {

    static final String PID_MARKER = "@@iwarp4j-pid ";
    private static final Pattern PID_LINE = Pattern.compile(Pattern.quote(PID_MARKER) + "(\\d+)");

    private record Line(boolean stderr, String text) {
    }

    private final List<Line> lines = new ArrayList<>();
    private final CompletableFuture<Long> pid = new CompletableFuture<>();
    private int openStreams = 2;

    CommandOutput(InputStream stdout, InputStream stderr, String name) {
        pump(stdout, false, name + "-stdout");
        pump(stderr, true, name + "-stderr");
    }

    private void pump(InputStream in, boolean stderr, String threadName) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    add(stderr, line);
                }
            } catch (IOException e) {
                add(true, "[iwarp4j harness: reading the command's output failed: " + e + "]");
            } finally {
                ended();
            }
        }, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void add(boolean stderr, String text) {
        if (stderr && !pid.isDone()) {
            Matcher m = PID_LINE.matcher(text);
            if (m.matches()) {
                pid.complete(Long.parseLong(m.group(1)));
                return;
            }
        }
        synchronized (this) {
            lines.add(new Line(stderr, text));
            notifyAll();
        }
    }

    private synchronized void ended() {
        openStreams--;
        if (openStreams == 0) {
            pid.complete(null);
        }
        notifyAll();
    }

    /** The process group of the command on the peer; empty if it never started. */
    Optional<Long> pid(Duration timeout) throws InterruptedException {
        try {
            return Optional.ofNullable(pid.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return Optional.empty();
        }
    }

    /**
     * Waits for a line (on either stream, including lines already written) that matches.
     * Returns empty when the command closed its output or the time ran out without one.
     */
    synchronized Optional<String> awaitLine(Predicate<String> matcher, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int scanned = 0;
        while (true) {
            for (; scanned < lines.size(); scanned++) {
                if (matcher.test(lines.get(scanned).text())) {
                    return Optional.of(lines.get(scanned).text());
                }
            }
            long left = deadline - System.nanoTime();
            if (openStreams == 0 || left <= 0) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Whether both streams are closed: the command has ended, or at least closed its output. */
    synchronized boolean outputClosed() {
        return openStreams == 0;
    }

    /** Waits until both streams are closed; false if the time ran out. */
    synchronized boolean awaitEnd(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (openStreams > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    synchronized String stdout() {
        return text(false);
    }

    synchronized String stderr() {
        return text(true);
    }

    private String text(boolean stderr) {
        StringBuilder sb = new StringBuilder();
        for (Line line : lines) {
            if (line.stderr() == stderr) {
                sb.append(line.text()).append('\n');
            }
        }
        return sb.toString();
    }
}
