package org.iwarp4j.interop.peer;

import java.io.IOException;

/**
 * Runs one shell command line on the peer as a local process whose standard streams are the
 * command's. The command runs as the leader of its own process group (ssh's session, or
 * {@code setsid} locally), so that killing the group stops everything it started.
 */
interface PeerShell {

    /** Starts {@code bash -c shellCommand} on the peer; the caller owns the returned process. */
    Process launch(String shellCommand) throws IOException;
}
