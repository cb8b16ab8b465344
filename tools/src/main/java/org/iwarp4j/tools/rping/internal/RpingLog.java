package org.iwarp4j.tools.rping.internal;

import java.io.PrintWriter;
import java.util.function.Consumer;

/**
 * Where rping's lines go, as Linux rping sends them: ping data ({@code -v}) and debug lines
 * ({@code -d}) to standard output, errors to standard error. Every line is flushed at once so a
 * long run shows its progress; the writers are safe to use from event loops too.
 */
public final class RpingLog {

    private final PrintWriter out;
    private final Consumer<String> err;
    private final boolean debug;

    public RpingLog(PrintWriter out, PrintWriter err, boolean debug) {
        this(out, line -> {
            err.println(line);
            err.flush();
        }, debug);
    }

    private RpingLog(PrintWriter out, Consumer<String> err, boolean debug) {
        this.out = out;
        this.err = err;
        this.debug = debug;
    }

    /** This log with its error lines handed to {@code errors} instead (a rate limit, say). */
    public RpingLog withErrorsTo(Consumer<String> errors) {
        return new RpingLog(out, errors, debug);
    }

    public void out(String line) {
        out.println(line);
        out.flush();
    }

    /** rping's {@code DEBUG_LOG}: printed with {@code -d} only. */
    public void debug(String format, Object... args) {
        if (debug) {
            out(args.length == 0 ? format : String.format(format, args));
        }
    }

    public void error(String line) {
        err.accept(line);
    }
}
