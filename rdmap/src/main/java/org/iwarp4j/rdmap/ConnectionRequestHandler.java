package org.iwarp4j.rdmap;

/**
 * Decides on incoming connections; called on an event loop, so it must not block (the RNIC's calls
 * that wait throw there: use {@link Rnic#listenAsync}, {@link CompletionQueue#poll()}). Returning
 * {@code null} rejects.
 */
@FunctionalInterface
public interface ConnectionRequestHandler {
    ConnectionDecision onConnectionRequest(ConnectionRequest request);
}
