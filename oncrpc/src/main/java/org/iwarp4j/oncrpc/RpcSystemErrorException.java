package org.iwarp4j.oncrpc;

/** Accepted reply SYSTEM_ERR, e.g. a memory allocation failure on the server (RFC 5531 §9); any other exception from a server procedure has the same effect. */
public class RpcSystemErrorException extends RpcException {

    private static final long serialVersionUID = 1L;

    public RpcSystemErrorException(String message) {
        super(message);
    }

    public RpcSystemErrorException(String message, Throwable cause) {
        super(message, cause);
    }
}
