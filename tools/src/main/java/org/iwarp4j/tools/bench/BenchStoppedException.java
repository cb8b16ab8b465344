package org.iwarp4j.tools.bench;

import java.io.InterruptedIOException;

/**
 * The run ended because its {@link BenchListener} asked it to (Ctrl-C): the rows done so far, and a
 * partial row for the size being measured, have reached the listener.
 */
public final class BenchStoppedException extends InterruptedIOException {

    public BenchStoppedException(String message) {
        super(message);
    }
}
