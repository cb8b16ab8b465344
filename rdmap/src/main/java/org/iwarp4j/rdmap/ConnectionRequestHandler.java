package org.iwarp4j.rdmap;

/**
 * Decides on incoming connections; called on an event loop, so it must not block. Returning
 * {@code null} rejects.
 */
@FunctionalInterface
public interface ConnectionRequestHandler {
    ConnectionDecision onConnectionRequest(ConnectionRequest request);
}
