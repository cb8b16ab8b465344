package org.iwarp4j.interop.peer;

/**
 * A command on the {@link LinuxPeer} failed, timed out, or could not be run at all; {@link
 * PeerGoneException} when the reason is that the peer itself stopped responding.
 */
public class PeerCommandException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PeerCommandException(String message) {
        super(message);
    }

    public PeerCommandException(String message, Throwable cause) {
        super(message, cause);
    }
}
