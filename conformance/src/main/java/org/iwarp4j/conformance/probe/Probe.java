package org.iwarp4j.conformance.probe;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.iwarp4j.conformance.probe.internal.ProbeRunner;

/**
 * {@code iwarp probe}: connects to a remote iWARP listener (an RNIC's MPA Responder: Linux siw
 * under {@code rping -s}, an {@code ib_write_bw -R} server, an NFS/RDMA server, iwarp4j) as
 * often as needed and reports how it behaves, each {@link Observation} judged against a
 * requirement of the catalogue in {@code docs/requirements}.
 *
 * <p>Harmless to a correct peer: one connection at a time, each closed before the next, each
 * bounded by {@link Builder#timeout}; what is sent is zero-length or 16 octets, and the error
 * cases aim at an STag nobody registered. The probes and their requirement IDs are listed in
 * {@code docs/probe.md}.
 *
 * <pre>{@code
 * ProbeReport report = Probe.builder(new InetSocketAddress("10.0.0.2", 7174)).build().run();
 * System.out.print(report.toTable());
 * }</pre>
 */
public final class Probe {

    /** Per-connection time limit unless set. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** The shortest {@link Builder#timeout} and {@link Builder#startupWait}: 1 ms. */
    public static final Duration MIN_LIMIT = Duration.ofMillis(1);
    /** The longest {@link Builder#timeout} and {@link Builder#startupWait}: {@link Integer#MAX_VALUE} ms (24.8 days). */
    public static final Duration MAX_LIMIT = Duration.ofMillis(Integer.MAX_VALUE);
    /** How long the startup-timeout probe waits for the peer to give up, unless set. */
    public static final Duration DEFAULT_STARTUP_WAIT = Duration.ofSeconds(20);

    private final InetSocketAddress target;
    private final Duration timeout;
    private final Duration startupWait;

    private Probe(Builder b) {
        this.target = b.target;
        this.timeout = b.timeout;
        this.startupWait = b.startupWait;
    }

    /** The port probed when {@link #target(String)} is given none: {@code rping}'s default. */
    public static final int DEFAULT_PORT = 7174;

    /**
     * {@code HOST}, {@code HOST:PORT} or {@code [IPv6]:PORT} as an address ({@link #DEFAULT_PORT}
     * when no port is given); the host is resolved here.
     *
     * @throws IllegalArgumentException if the port is not a number in 1..65535 or the host is empty
     */
    public static InetSocketAddress target(String hostPort) {
        String host = hostPort;
        int port = DEFAULT_PORT;
        int colon = hostPort.lastIndexOf(':');
        boolean bracketed = hostPort.startsWith("[");
        if (bracketed) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("no ']' in " + hostPort);
            }
            host = hostPort.substring(1, close);
            colon = close + 1 < hostPort.length() && hostPort.charAt(close + 1) == ':' ? close + 1 : -1;
            if (colon < 0 && close + 1 != hostPort.length()) {
                throw new IllegalArgumentException("expected ':PORT' after ']' in " + hostPort);
            }
        } else if (colon >= 0 && hostPort.indexOf(':') != colon) {
            colon = -1;  // a bare IPv6 address: no port
        } else if (colon >= 0) {
            host = hostPort.substring(0, colon);
        }
        if (colon >= 0) {
            String digits = hostPort.substring(colon + 1);
            try {
                port = Integer.parseInt(digits);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("port is not a number: " + digits);
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("no host in " + hostPort);
        }
        return new InetSocketAddress(host, port);
    }

    /** A probe of the listener at {@code target}. */
    public static Builder builder(InetSocketAddress target) {
        return new Builder(target);
    }

    /** Runs every probe, one connection after the other, and returns the report. */
    public ProbeReport run() {
        Instant started = Instant.now();
        long start = System.nanoTime();
        ProbeRunner runner = new ProbeRunner(target, timeout, startupWait);
        var observations = runner.run();
        String host = target.getHostString();
        return new ProbeReport((host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + target.getPort(), started,
                (System.nanoTime() - start) / 1_000_000, runner.connections(), runner.connected(), runner.replies(),
                timeout.toMillis(),
                startupWait.toMillis(), observations);
    }

    /** Settings of a {@link Probe}. */
    public static final class Builder {
        private final InetSocketAddress target;
        private Duration timeout = DEFAULT_TIMEOUT;
        private Duration startupWait = DEFAULT_STARTUP_WAIT;

        private Builder(InetSocketAddress target) {
            this.target = Objects.requireNonNull(target, "target");
        }

        /**
         * Limit for each probe's connection: connect, Reply, answers (default 5 s).
         *
         * @throws IllegalArgumentException outside {@link #MIN_LIMIT}..{@link #MAX_LIMIT}
         */
        public Builder timeout(Duration timeout) {
            this.timeout = checked("timeout", timeout);
            return this;
        }

        /**
         * How long the startup-timeout probe waits, silent, for the peer to close (default 20 s).
         *
         * @throws IllegalArgumentException outside {@link #MIN_LIMIT}..{@link #MAX_LIMIT}
         */
        public Builder startupWait(Duration startupWait) {
            this.startupWait = checked("startup wait", startupWait);
            return this;
        }

        /** Socket time limits are whole milliseconds in an int: 0 would mean "forever", more does not fit. */
        private static Duration checked(String what, Duration limit) {
            if (limit.compareTo(MIN_LIMIT) < 0 || limit.compareTo(MAX_LIMIT) > 0) {
                throw new IllegalArgumentException(what + " must be between 1 ms and " + MAX_LIMIT.toMillis() + " ms: "
                        + limit);
            }
            return limit;
        }

        public Probe build() {
            return new Probe(this);
        }
    }
}
