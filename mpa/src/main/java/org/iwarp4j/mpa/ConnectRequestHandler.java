package org.iwarp4j.mpa;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The Responder's decision on a connection request, called on the channel's event loop once a
 * valid Request frame has arrived and before any Reply goes out. The answer may come later (the
 * startup timeout covers the wait); a failed stage closes the connection.
 */
@FunctionalInterface
public interface ConnectRequestHandler {

    /** Accepts every request with the settings' private data. */
    ConnectRequestHandler ACCEPT_ALL = request -> CompletableFuture.completedFuture(MpaDecision.accept());

    CompletionStage<MpaDecision> onConnectRequest(MpaConnectRequest request);
}
