package org.iwarp4j.oncrpc.internal;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * Admission of accepted connections against two caps: connections open on one server and
 * connections open from one client IP address. A connection is admitted before any of its octets
 * is read and counted until it closes; one over either cap is refused, which the caller does by
 * closing it at once (the client sees its connection closed before any answer).
 *
 * <p>Refusals are logged at most once per {@link #LOG_INTERVAL_SECONDS} seconds, with the number
 * suppressed since the last message, so that a flood of connections cannot flood the log.
 * Thread-safe: connections of one server may run on several event loops.
 */
public final class ConnectionLimits {

    /** Refusals are logged at most this often. */
    public static final long LOG_INTERVAL_SECONDS = 60;

    /** Which cap refused a connection. */
    public enum Cap {
        /** The server's cap. */
        SERVER,
        /** The cap per client IP address. */
        ADDRESS
    }

    private final int maxConnections;
    private final int maxPerAddress;
    private final Logger log;
    private final String what;
    private final Consumer<Cap> onRefused;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    private final LogRateLimit refusalLog = new LogRateLimit(1, LOG_INTERVAL_SECONDS, TimeUnit.SECONDS,
            System::nanoTime);

    /**
     * @param what      names the server in log messages
     * @param onRefused told of each refusal (e.g. to count it in a meter)
     */
    public ConnectionLimits(int maxConnections, int maxPerAddress, Logger log, String what, Consumer<Cap> onRefused) {
        if (maxConnections < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException("connection caps must be positive: " + maxConnections + ", "
                    + maxPerAddress);
        }
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
        this.log = log;
        this.what = what;
        this.onRefused = onRefused;
    }

    /**
     * Admits {@code connection} (counted until its close future completes) or refuses it, closing
     * it. Returns whether it was admitted. Call on the connection's event loop, before reading it.
     */
    public boolean admit(Channel connection) {
        SocketAddress remote = connection.remoteAddress();
        InetAddress address = remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
        Cap refused = take(address);
        if (refused != null) {
            refused(refused, remote);
            connection.close();
            return false;
        }
        connection.closeFuture().addListener(f -> give(address));
        return true;
    }

    private Cap take(InetAddress address) {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            return Cap.SERVER;
        }
        if (address == null) {
            return null;
        }
        boolean[] taken = new boolean[1];
        perAddress.compute(address, (a, n) -> {
            int now = n == null ? 0 : n;
            if (now >= maxPerAddress) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        if (!taken[0]) {
            open.decrementAndGet();
            return Cap.ADDRESS;
        }
        return null;
    }

    private void give(InetAddress address) {
        open.decrementAndGet();
        if (address != null) {
            perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        }
    }

    private void refused(Cap cap, SocketAddress remote) {
        onRefused.accept(cap);
        long before = refusalLog.admit();
        if (before >= 0) {
            log.warn("{}: refused a connection from {}: {} ({} more refused and not logged since the last message)",
                    what, remote, cap == Cap.SERVER ? "already " + maxConnections + " connections open"
                            : "already " + maxPerAddress + " connections open from that address", before);
        }
    }

    /** Connections admitted and still open. */
    public int open() {
        return open.get();
    }

    /** Connections admitted and still open from {@code address}. */
    public int open(InetAddress address) {
        return perAddress.getOrDefault(address, 0);
    }
}
