package org.iwarp4j.mpa;

import java.io.IOException;

/**
 * An MPA error reported to the local user. {@link #error()} is the RFC 5044 §8 / RFC 6581 §8
 * code when the condition has one, or {@code null} for local conditions (a timeout, a rejected
 * connection) that the RFCs do not number.
 */
public class MpaException extends IOException {

    private static final long serialVersionUID = 1L;

    private final MpaError error;

    public MpaException(MpaError error, String message) {
        super(error == null ? message : message + " (MPA error " + error.code() + ", " + error + ")");
        this.error = error;
    }

    /** The RFC error code, or {@code null}. */
    public MpaError error() {
        return error;
    }

    /**
     * {@code true} when the connection is in Full Operation and the RFC asks the ULP to send a
     * Terminate (Layer LLP, EType MPA, code {@link #error()}) before closing: CRC and marker errors
     * (RFC 5044 §8) and the RFC 6581 setup errors 5, 6 and 7.
     */
    public boolean terminateRequired() {
        return error != null && error != MpaError.CONNECTION_LOST && error != MpaError.INVALID_STARTUP_FRAME;
    }
}
