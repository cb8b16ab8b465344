package org.iwarp4j.tools.bench.internal;

import org.iwarp4j.tools.bench.ConnectFailedException;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.iwarp4j.tools.net.ConnectErrors;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.rdmap.QueuePair;

/**
 * Connecting as perftest's {@code rdma_cm_client_connection} does: a perftest server starts
 * listening for the data connections only after answering a handshake, so a refused attempt is
 * tried again (perftest: 10 times, 100 ms apart; here as {@link ConnectAttempts} says). Behind a
 * NAT that accepts TCP itself (QEMU's user-mode network) a refused connection looks like one
 * that ends before the MPA Reply ({@link MpaError#CONNECTION_LOST}): tried again too. Nothing
 * else is: not a timeout, not an MPA reject, not a name that does not resolve.
 */
public final class Connections {

    public static final int ATTEMPTS = ConnectAttempts.ATTEMPTS;

    private Connections() {
    }

    /** Connects a fresh queue pair from {@code queuePairs} until one reaches RTS. */
    public static QueuePair connect(Supplier<QueuePair> queuePairs, SocketAddress server, long timeoutSeconds)
            throws IOException, InterruptedException {
        QueuePair[] last = new QueuePair[1];
        return ConnectAttempts.connect(() -> {
            QueuePair qp = queuePairs.get();
            last[0] = qp;
            boolean connected = false;
            try {
                QueuePair up = qp.connect(server).get(timeoutSeconds, TimeUnit.SECONDS);
                connected = true;
                return up;
            } finally {
                if (!connected) {
                    qp.close();
                }
            }
        }, Connections::notListeningYet, cause -> cause instanceof MpaRejectedException rejected
                // The Reply says why, against what our Request asked.
                ? new ConnectFailedException(ConnectErrors.rejected(server, rejected, last[0].settings().mpa()), cause)
                : new ConnectFailedException(ConnectErrors.cannotConnect(server, cause), cause));
    }

    private static boolean notListeningYet(Throwable cause) {
        return ConnectAttempts.refused(cause)
                || cause instanceof MpaException mpa && mpa.error() == MpaError.CONNECTION_LOST;
    }
}
