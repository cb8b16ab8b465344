package org.iwarp4j.conformance.probe.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;

/** Opens the probes' connections to the target, one at a time, and counts them and the Replies. */
final class ProbeConnections {

    /** A TCP connect that failed: the only failure that means "could not probe" rather than "the peer did this". */
    static final class CannotConnect extends IOException {
        CannotConnect(IOException cause) {
            super(words(cause), cause);
        }
    }

    private final InetSocketAddress target;
    private final Duration timeout;
    private int connections;
    private int connected;
    private int replies;

    ProbeConnections(InetSocketAddress target, Duration timeout) {
        this.target = target;
        this.timeout = timeout;
    }

    /** The operating system's words for a failed connection ("Connection refused"), without Java's class name. */
    static String words(IOException e) {
        if (e instanceof java.net.SocketTimeoutException) {
            return "no answer within the timeout";
        }
        if (e instanceof java.net.UnknownHostException) {
            return "no such host";
        }
        return e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** A new connection, the connect and everything on it bounded by the timeout. */
    ScriptedConnection open() throws IOException {
        return open(timeout, timeout);
    }

    /** A new connection: the connect bounded by {@code connectLimit}, everything on it by {@code budget}. */
    ScriptedConnection open(Duration connectLimit, Duration budget) throws IOException {
        connections++;
        ScriptedConnection c;
        try {
            c = ScriptedConnection.open(target, connectLimit, budget);
        } catch (IOException e) {
            throw new CannotConnect(e);
        }
        connected++;
        return c;
    }

    /** The peer's startup frame, counted when it is a Reply. */
    StartupAnswer readReply(ScriptedConnection c) throws IOException {
        StartupAnswer answer = c.readReply();
        if (answer.outcome() == Outcome.RECEIVED) {
            replies++;
        }
        return answer;
    }

    /** Connections tried so far. */
    int connections() {
        return connections;
    }

    /** Connections whose TCP connect succeeded. */
    int connected() {
        return connected;
    }

    /** MPA Replies received (whole and well formed), over all connections. */
    int replies() {
        return replies;
    }
}
