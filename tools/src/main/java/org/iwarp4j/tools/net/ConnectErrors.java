package org.iwarp4j.tools.net;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.NegotiationMode;

/**
 * Words for a connection that did not come up, for the commands' error lines: the peer as
 * {@code host:port} (not {@code InetSocketAddress}'s {@code /127.0.0.1:7174} or
 * {@code name/<unresolved>:port}) and the reason as the operating system said it, without Java or
 * Netty class names and without the address repeated ({@code Connection refused}, not
 * {@code AnnotatedConnectException: finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:7174}).
 */
public final class ConnectErrors {

    /** Netty's native transports put this before the operating system's words. */
    private static final Pattern NETTY_PREFIX = Pattern.compile("^finishConnect\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?: ");
    /** Netty's connect exceptions end with the remote address, which the caller already names. */
    private static final Pattern ADDRESS_SUFFIX = Pattern.compile(": [^ ]*/[^ ]*:\\d+$");

    private ConnectErrors() {
    }

    /** {@code host:port}, the host as given (name or literal), without a slash. */
    public static String where(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            String host = inet.getHostString();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }

    /** Why: {@code no such host: NAME}, {@code no answer in time}, or the cause's own message, trimmed. */
    public static String reason(Throwable cause) {
        if (cause instanceof UnknownHostException) {
            return "no such host: " + hostOf(cause.getMessage());
        }
        if (cause instanceof java.nio.channels.UnresolvedAddressException) {
            return "no such host";
        }
        if (cause instanceof TimeoutException) {
            return "no answer in time";
        }
        String message = cause == null ? null : cause.getMessage();
        if (message == null || message.isBlank()) {
            return cause == null ? "unknown reason" : cause.getClass().getSimpleName();
        }
        message = NETTY_PREFIX.matcher(message).replaceFirst("");
        return ADDRESS_SUFFIX.matcher(message).replaceFirst("");
    }

    /**
     * {@code cannot connect to host:port: reason}; {@code no such host: NAME} for a name that does
     * not resolve (not {@code NAME/<unresolved>:port}).
     */
    public static String cannotConnect(SocketAddress address, Throwable cause) {
        if (address instanceof InetSocketAddress inet && inet.isUnresolved()) {
            return "no such host: " + inet.getHostString();
        }
        if (cause instanceof UnknownHostException) {
            return reason(cause);
        }
        return "cannot connect to " + where(address) + ": " + reason(cause);
    }

    /**
     * {@code cannot connect to host:port: the peer rejected the connection: WHY}, the why read from
     * the peer's MPA Reply with R=1 (RFC 5044 §7.1.2) against what this end's Request asked: a
     * Responder that does not take markers or CRC answers with M=0 or C=0 (siw refuses markers), one
     * of revision 1 answers Rev 1.
     */
    public static String rejected(SocketAddress address, MpaRejectedException e, MpaSettings asked) {
        return "cannot connect to " + where(address) + ": " + rejectedReason(e, asked);
    }

    /** {@code the peer rejected the connection: WHY} (see {@link #rejected}). */
    public static String rejectedReason(MpaRejectedException e, MpaSettings asked) {
        if (!e.byPeer()) {
            return e.getMessage();
        }
        MpaStartupFrame reply = e.reply();
        String why = null;
        if (reply != null && asked != null) {
            if (asked.markers() == NegotiationMode.REQUIRE && !reply.markers()) {
                why = "it does not accept MPA markers (try without --markers)";
            } else if (asked.crc() == NegotiationMode.REQUIRE && !reply.crc()) {
                why = "it does not accept CRC32c (try --crc=accept)";
            } else if (asked.crc() == NegotiationMode.OFF && reply.crc()) {
                why = "it requires CRC32c (try --crc=accept)";
            } else if (reply.revision() < asked.revision()) {
                why = "it speaks MPA revision " + reply.revision() + " (try --mpa-rev " + reply.revision() + ")";
            }
        }
        if (why == null) {
            byte[] data = reply == null ? new byte[0] : reply.ulpPrivateData();
            why = data.length == 0 ? "it gave no reason (MPA Reply with R=1, no private data)"
                    : "it gave " + data.length + " octets of private data as its reason";
        }
        return "the peer rejected the connection: " + why;
    }

    /**
     * {@code host:port is already in use}, {@code host:port: no such local address}, or {@code cannot
     * listen on host:port: reason}: a server that could not bind, in words.
     */
    public static String cannotListen(SocketAddress address, Throwable cause) {
        String message = cause == null || cause.getMessage() == null ? "" : cause.getMessage();
        if (message.contains("Address already in use") || message.contains("error(-98)")) {
            return where(address) + " is already in use";
        }
        if (message.contains("Cannot assign requested address") || message.contains("error(-99)")) {
            return where(address) + ": no such local address";
        }
        if (message.contains("Permission denied") || message.contains("error(-13)")) {
            return where(address) + ": permission denied (ports below 1024 need privileges)";
        }
        if (address instanceof InetSocketAddress inet && inet.isUnresolved()) {
            return "no such host: " + inet.getHostString();
        }
        return "cannot listen on " + where(address) + ": " + reason(cause);
    }

    /** The throwable behind Netty's and the JDK's wrappers. */
    public static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while ((t instanceof java.util.concurrent.ExecutionException || t instanceof java.util.concurrent.CompletionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** {@code foo} from {@code foo: Name or service not known} (the JDK appends the resolver's words). */
    private static String hostOf(String message) {
        if (message == null) {
            return "?";
        }
        int colon = message.indexOf(": ");
        return colon > 0 ? message.substring(0, colon) : message;
    }
}
