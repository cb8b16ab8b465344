package org.iwarp4j.interop.peer;

/** No Linux peer could be made here; the message says why and what would fix it. */
final class PeerUnavailableException extends Exception {

    private static final long serialVersionUID = 1L;

    PeerUnavailableException(String message) {
        super(message);
    }

    PeerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
