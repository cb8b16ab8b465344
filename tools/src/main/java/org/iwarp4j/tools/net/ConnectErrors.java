package org.iwarp4j.tools.net;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

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

    /** Why: {@code unknown host NAME}, {@code no answer in time}, or the cause's own message, trimmed. */
    public static String reason(Throwable cause) {
        if (cause instanceof UnknownHostException) {
            return "unknown host " + cause.getMessage();
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

    /** {@code cannot connect to host:port: reason}. */
    public static String cannotConnect(SocketAddress address, Throwable cause) {
        return "cannot connect to " + where(address) + ": " + reason(cause);
    }
}
