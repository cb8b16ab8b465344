package org.iwarp4j.tools.rping;

import java.net.ConnectException;
import java.net.SocketAddress;
import org.iwarp4j.tools.net.ConnectErrors;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaRejectedException;

/** Words for why a connection did not come up, for rping's "connect error" line. */
final class ConnectFailures {

    private ConnectFailures() {
    }

    static String describe(Throwable cause, SocketAddress remote, org.iwarp4j.mpa.MpaSettings asked) {
        if (cause instanceof MpaRejectedException) {
            MpaRejectedException rejected = (MpaRejectedException) cause;
            return rejected.byPeer()
                    ? ConnectErrors.where(remote) + ": " + ConnectErrors.rejectedReason(rejected, asked)
                    : "this end refused the peer's MPA Reply: " + rejected.getMessage();
        }
        if (cause instanceof MpaException) {
            return "MPA startup with " + ConnectErrors.where(remote) + " failed: " + cause.getMessage();
        }
        if (cause instanceof ConnectException) {
            return ConnectErrors.cannotConnect(remote, cause);
        }
        return "connection to " + ConnectErrors.where(remote) + " failed: " + ConnectErrors.reason(cause);
    }
}
