package org.iwarp4j.oncrpc;

/**
 * A remote procedure call that did not produce results. On the client the subclass says why
 * (RFC 5531 §9: the accept_stat or reject_stat of the reply, or a local cause such as a
 * timeout or a lost connection); a server procedure may throw the accepted-reply subclasses to
 * choose the reply it sends.
 */
public class RpcException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RpcException(String message) {
        super(message);
    }

    public RpcException(String message, Throwable cause) {
        super(message, cause);
    }
}
