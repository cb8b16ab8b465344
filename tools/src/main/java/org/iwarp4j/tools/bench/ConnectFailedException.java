package org.iwarp4j.tools.bench;

import java.io.IOException;

/** No connection to the peer could be made (the command exits with status 3). */
public final class ConnectFailedException extends IOException {

    public ConnectFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
