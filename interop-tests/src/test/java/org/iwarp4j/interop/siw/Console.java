package org.iwarp4j.interop.siw;

import java.io.PrintWriter;
import java.io.StringWriter;

/** What one of our commands (rping, bench) printed, for assertions and failure messages. */
final class Console {

    private final StringWriter outText = new StringWriter();
    private final StringWriter errText = new StringWriter();
    final PrintWriter out = new PrintWriter(outText, true);
    final PrintWriter err = new PrintWriter(errText, true);

    String out() {
        return outText.toString();
    }

    String err() {
        return errText.toString();
    }

    /** How many lines of standard output contain {@code text}. */
    long linesContaining(String text) {
        return out().lines().filter(l -> l.contains(text)).count();
    }

    @Override
    public String toString() {
        return "--- stdout ---\n" + out() + "--- stderr ---\n" + err();
    }
}
