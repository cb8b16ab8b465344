package org.iwarp4j.cli;

import java.io.PrintWriter;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A progress line on long runs, only when standard output is a terminal (nothing in a pipe or a
 * file, where it would be noise): {@code # 12.5 s: RDMA Write 65536 octets ...}, redrawn in place
 * twice a second so that the clock moves even while one step takes minutes. {@link #clear()} erases
 * it before a row is printed, so rows never carry it.
 */
final class ProgressLine implements AutoCloseable {

    /** How often the line is redrawn: twice per second, so its clock visibly advances every second. */
    static final long REDRAW_PERIOD_MILLIS = 500;

    private final PrintWriter out;
    private final boolean terminal;
    private final long start = System.nanoTime();
    private final ScheduledExecutorService ticker;
    private String what;
    private int shown;

    ProgressLine(PrintWriter out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
        if (terminal) {
            ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "iwarp-progress");
                t.setDaemon(true);
                return t;
            });
            ticker.scheduleAtFixedRate(this::redraw, REDRAW_PERIOD_MILLIS, REDRAW_PERIOD_MILLIS,
                    TimeUnit.MILLISECONDS);
        } else {
            ticker = null;
        }
    }

    /**
     * Whether standard output is a terminal: {@code System.console()} on JDK 17-21 exists only then;
     * from JDK 22 it may exist anyway, and {@code Console.isTerminal()} says.
     */
    static boolean stdoutIsTerminal() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException olderJdk) {
            return true;
        }
    }

    boolean isShown() {
        return terminal;
    }

    /** The step now running. */
    synchronized void set(String step) {
        what = step;
        redraw();
    }

    private synchronized void redraw() {
        if (!terminal || what == null) {
            return;
        }
        String line = String.format("# %5.1f s: %s ...", (System.nanoTime() - start) / 1e9, what);
        out.print("\r" + line + " ".repeat(Math.max(0, shown - line.length())));
        out.flush();
        shown = line.length();
    }

    /** Erases the line (before a row, and at the end). */
    synchronized void clear() {
        if (terminal && shown > 0) {
            out.print("\r" + " ".repeat(shown) + "\r");
            out.flush();
            shown = 0;
        }
    }

    @Override
    public synchronized void close() {
        what = null;
        clear();
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }
}
