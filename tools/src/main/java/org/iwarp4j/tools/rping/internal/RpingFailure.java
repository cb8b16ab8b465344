package org.iwarp4j.tools.rping.internal;

/**
 * Why an rping run stopped early: a failed or unexpected completion, bogus data from the peer, a
 * data mismatch, a timeout. {@link #disconnected()} marks the one ending that is not always an
 * error: the peer closed or reset the connection (rping's DISCONNECT event), seen as a flushed or
 * failed completion or as a post the closed queue pair refused.
 */
public final class RpingFailure extends Exception {

    private static final long serialVersionUID = 1L;

    private final boolean disconnected;

    public RpingFailure(String message) {
        this(message, false);
    }

    private RpingFailure(String message, boolean disconnected) {
        super(message);
        this.disconnected = disconnected;
    }

    /** The peer closed or reset the connection (no Terminate, no local error). */
    public static RpingFailure disconnected(String message) {
        return new RpingFailure(message, true);
    }

    public boolean disconnected() {
        return disconnected;
    }
}
