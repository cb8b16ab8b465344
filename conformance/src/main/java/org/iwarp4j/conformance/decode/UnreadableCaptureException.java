package org.iwarp4j.conformance.decode;

import java.io.IOException;

/** The input is missing, unreadable, or not a pcap or pcapng capture of a link type the decoder knows. */
public final class UnreadableCaptureException extends IOException {

    private static final long serialVersionUID = 1L;

    public UnreadableCaptureException(String message) {
        super(message);
    }

    public UnreadableCaptureException(String message, Throwable cause) {
        super(message, cause);
    }
}
