package org.iwarp4j.rdmap.internal.wire;

import org.iwarp4j.rdmap.TerminateReason;

/**
 * Received octets too short or too malformed to be read as the RDMAP header they should be. This
 * is the only exception the decoders in this package throw for bad input; they throw it before
 * consuming anything.
 */
public final class RdmapFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient TerminateReason reason;

    RdmapFormatException(String message) {
        this(message, null);
    }

    RdmapFormatException(String message, TerminateReason reason) {
        super(message);
        this.reason = reason;
    }

    /** The Terminate reason read before the error was found, if the octets held one; else {@code null}. */
    public TerminateReason reason() {
        return reason;
    }
}
