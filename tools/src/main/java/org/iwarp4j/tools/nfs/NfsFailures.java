package org.iwarp4j.tools.nfs;

import io.netty.channel.ConnectTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.iwarp4j.tools.bench.ConnectFailedException;
import org.iwarp4j.tools.net.ConnectErrors;
import org.iwarp4j.nfs.NfsMountException;
import org.iwarp4j.nfs.NfsStatusException;

/** Words and exit statuses for what went wrong in an nfs command. */
public final class NfsFailures {

    public static final int EXIT_FAILED = 1;
    public static final int EXIT_NO_CONNECTION = 3;

    private NfsFailures() {
    }

    /** {@code e} as a {@link ConnectFailedException} if a connection could not be made, else as an IOException. */
    public static IOException connectFailure(Throwable e, String what) {
        Throwable root = unwrap(e);
        for (Throwable t = root; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof ConnectTimeoutException || t instanceof UnknownHostException
                    || t instanceof NoRouteToHostException || t instanceof UnresolvedAddressException) {
                // the operating system's words, not Netty's "finishConnect(..) failed with error(-111)"
                return new ConnectFailedException(what + ": " + ConnectErrors.reason(t), root);
            }
        }
        if (root instanceof IOException io) {
            return io;
        }
        return new IOException(describe(root), root);
    }

    /** The exit status for {@code e}: 3 for no connection, else 1. */
    public static int exitStatus(Throwable e) {
        return unwrap(e) instanceof ConnectFailedException ? EXIT_NO_CONNECTION : EXIT_FAILED;
    }

    /** One line for the user: NFS and MOUNT errors by their status, others by their message. */
    public static String describe(Throwable e) {
        Throwable t = unwrap(e);
        if (t instanceof NfsStatusException || t instanceof NfsMountException || t instanceof IOException) {
            return t.getMessage();
        }
        return t.toString();
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
