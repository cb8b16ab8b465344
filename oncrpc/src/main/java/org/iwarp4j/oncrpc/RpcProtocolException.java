package org.iwarp4j.oncrpc;

/** A reply that violates RFC 5531 (truncated header, unknown msg_type, reply_stat or accept_stat). */
public class RpcProtocolException extends RpcException {

    private static final long serialVersionUID = 1L;

    public RpcProtocolException(String message) {
        super(message);
    }

    public RpcProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
