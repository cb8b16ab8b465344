package org.iwarp4j.tools.bench.internal;

import io.netty.channel.ConnectTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * How the bench client's connections are tried again: a server that answers only after a
 * handshake (perftest's data connections, the plain-TCP comparison) may not be listening yet, which
 * the client sees as a refusal, so a refusal is tried again, {@link #DELAY_MILLIS} apart, at most
 * {@link #ATTEMPTS} times and never later than {@link #RETRY_SECONDS} after the first attempt. Any
 * other failure is final at once: a connect timeout (a host that drops SYNs, or none there) says
 * nothing the next attempt would not say again, and retrying Netty's 30 s timeout 30 times made a
 * client wait up to 15 minutes before saying so.
 */
final class ConnectAttempts {

    static final int ATTEMPTS = 30;
    static final long DELAY_MILLIS = 100;
    /** A refusal is not tried again later than this after the first attempt began. */
    static final long RETRY_SECONDS = 10;

    /**
     * One attempt: its connection, or the failure that ended it as an {@link ExecutionException}'s
     * cause or a {@link TimeoutException}; anything else it throws ends {@link #connect} as it is.
     */
    @FunctionalInterface
    interface Attempt<T> {
        T connect() throws ExecutionException, TimeoutException, InterruptedException;
    }

    private ConnectAttempts() {
    }

    /**
     * Whether {@code cause} is a refusal: the operating system's "Connection refused" (a reset in
     * answer to the SYN), under whichever Netty transport's wrapper. Netty's own connect timeout
     * is a {@link ConnectException} too, and so are unreachable networks under the native
     * transports: neither is a server about to listen.
     */
    static boolean refused(Throwable cause) {
        if (!(cause instanceof ConnectException) || cause instanceof ConnectTimeoutException) {
            return false;
        }
        String message = cause.getMessage();
        return message != null && (message.contains("Connection refused") || message.contains("error(-111)"));
    }

    /**
     * Runs {@code attempt} until it connects, trying again while {@code retry} says so of its
     * failure; otherwise throws what {@code failure} makes of the last failure.
     */
    static <T> T connect(Attempt<T> attempt, Predicate<Throwable> retry,
                         Function<Throwable, IOException> failure) throws IOException, InterruptedException {
        return connect(attempt, retry, failure, System::nanoTime);
    }

    static <T> T connect(Attempt<T> attempt, Predicate<Throwable> retry, Function<Throwable, IOException> failure,
                         LongSupplier clock) throws IOException, InterruptedException {
        long start = clock.getAsLong();
        Throwable last;
        int attempts = 0;
        while (true) {
            try {
                return attempt.connect();
            } catch (ExecutionException e) {
                last = e.getCause();
            } catch (TimeoutException e) {
                last = e;
            }
            attempts++;
            if (!retry.test(last) || attempts >= ATTEMPTS
                    || clock.getAsLong() - start >= TimeUnit.SECONDS.toNanos(RETRY_SECONDS)) {
                throw failure.apply(last);
            }
            Thread.sleep(DELAY_MILLIS);
        }
    }
}
