package org.iwarp4j.tools.rping;

import org.iwarp4j.mpa.NegotiatedParameters;

/**
 * How an rping run ended.
 *
 * @param completed iterations done: the server's RDMA Write of the ping data and its last "go
 *     ahead" reached the client (client), or were sent (server)
 * @param verified iterations whose data was checked and matched ({@code -V}); 0 without it
 * @param negotiated what MPA agreed on, or {@code null} if no connection came up
 * @param failure what went wrong, or {@code null} for a run that did everything it was asked
 */
public record RpingResult(int completed, int verified, NegotiatedParameters negotiated, String failure) {

    public boolean isSuccess() {
        return failure == null;
    }
}
