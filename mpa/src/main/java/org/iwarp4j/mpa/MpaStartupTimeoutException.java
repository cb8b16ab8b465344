package org.iwarp4j.mpa;

import java.time.Duration;

/** The startup exchange did not finish in time (RFC 5044 §7.1.2 #8, #10); the connection was closed. */
public final class MpaStartupTimeoutException extends MpaException {

    private static final long serialVersionUID = 1L;

    public MpaStartupTimeoutException(MpaRole role, Duration timeout) {
        super(null, "MPA startup did not complete within " + timeout.toMillis() + " ms ("
                + (role == MpaRole.INITIATOR ? "no Reply frame" : "no Request frame or no decision") + ")");
    }
}
