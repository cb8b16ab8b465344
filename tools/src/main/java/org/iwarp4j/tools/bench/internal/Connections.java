package org.iwarp4j.tools.bench.internal;

import org.iwarp4j.tools.bench.ConnectFailedException;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.iwarp4j.tools.net.ConnectErrors;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.rdmap.QueuePair;

/**
 * Connecting as perftest's {@code rdma_cm_client_connection} does: a perftest server starts
 * listening for the data connections only after answering a handshake, so a refused attempt is
 * retried (perftest: 10 times, 100 ms apart; here for up to {@link #ATTEMPTS} tries). Behind a
 * NAT that accepts TCP itself (QEMU's user-mode network) a refused connection looks like one
 * that ends before the MPA Reply ({@link MpaError#CONNECTION_LOST}): retried too.
 */
public final class Connections {

    public static final int ATTEMPTS = 30;
    private static final long DELAY_MILLIS = 100;

    private Connections() {
    }

    /** Connects a fresh queue pair from {@code queuePairs} until one reaches RTS. */
    public static QueuePair connect(Supplier<QueuePair> queuePairs, SocketAddress server, long timeoutSeconds)
            throws IOException, InterruptedException {
        Throwable last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            QueuePair qp = queuePairs.get();
            try {
                return qp.connect(server).get(timeoutSeconds, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                last = e.getCause();
                qp.close();
                if (last instanceof MpaRejectedException rejected) {
                    // The Reply says why, against what our Request asked.
                    throw new ConnectFailedException(ConnectErrors.rejected(server, rejected, qp.settings().mpa()), last);
                }
                if (last instanceof MpaException mpa && mpa.error() != MpaError.CONNECTION_LOST) {
                    break; // MPA said no (a reject, a bad frame): retrying will not change its mind
                }
                if (last instanceof UnknownHostException) {
                    break; // no name service answer will come in three seconds either
                }
            } catch (TimeoutException e) {
                last = e;
                qp.close();
            }
            Thread.sleep(DELAY_MILLIS);
        }
        throw new ConnectFailedException(ConnectErrors.cannotConnect(server, last), last);
    }
}
