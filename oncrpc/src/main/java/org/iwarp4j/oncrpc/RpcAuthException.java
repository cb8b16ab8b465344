package org.iwarp4j.oncrpc;

/**
 * Denied reply AUTH_ERROR (RFC 5531 §9): the server would not authenticate the caller. A
 * server procedure may throw it to deny a call with its {@link #stat()}.
 */
public class RpcAuthException extends RpcException {

    private static final long serialVersionUID = 1L;

    private final int code;

    public RpcAuthException(String message, AuthStat stat) {
        this(message, stat.code());
    }

    /** For auth_stat values RFC 5531 does not name. */
    public RpcAuthException(String message, int code) {
        super(message + " (" + (AuthStat.fromCode(code) != null ? AuthStat.fromCode(code) : "auth_stat " + code) + ")");
        this.code = code;
    }

    /** The auth_stat, or null if RFC 5531 does not name {@link #code()}. */
    public AuthStat stat() {
        return AuthStat.fromCode(code);
    }

    /** The auth_stat value on the wire. */
    public int code() {
        return code;
    }
}
