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
    private final boolean terminateRequired;

    /** An error whose Terminate duty follows from its code (see {@link #terminateRequired()}). */
    public MpaException(MpaError error, String message) {
        this(error, message, error != null && error != MpaError.CONNECTION_LOST
                && error != MpaError.INVALID_STARTUP_FRAME);
    }

    /**
     * @param terminateRequired whether the connection is still in Full Operation and the ULP must
     *     send a Terminate; {@code false} when MPA has already closed it
     */
    public MpaException(MpaError error, String message, boolean terminateRequired) {
        super(error == null ? message : message + " (MPA error " + error.code() + ", " + error + ")");
        this.error = error;
        this.terminateRequired = terminateRequired;
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
        return terminateRequired;
    }
}
