package org.iwarp4j.cli;

import java.io.Writer;
import java.util.concurrent.CompletableFuture;

/**
 * A Writer for a command running on another thread: keeps everything written, and completes
 * {@link #line(String)}'s future once a whole line containing the text has been written.
 */
public final class WatchedWriter extends Writer {

    private final StringBuilder text = new StringBuilder();
    private String awaited;
    private CompletableFuture<String> found = new CompletableFuture<>();

    /** A future of the first complete line containing {@code part} (already written or to come). */
    public synchronized CompletableFuture<String> line(String part) {
        awaited = part;
        found = new CompletableFuture<>();
        check();
        return found;
    }

    @Override
    public synchronized void write(char[] chars, int offset, int length) {
        text.append(chars, offset, length);
        check();
    }

    private void check() {
        if (awaited == null || found.isDone()) {
            return;
        }
        for (String line : text.toString().split("\n", -1)) {
            // the last element is an unfinished line
            if (line.contains(awaited) && text.toString().contains(line + "\n")) {
                found.complete(line);
                return;
            }
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    @Override
    public synchronized String toString() {
        return text.toString();
    }
}
