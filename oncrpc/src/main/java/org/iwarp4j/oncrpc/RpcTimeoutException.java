package org.iwarp4j.oncrpc;

/** No reply arrived within the client's timeout; the xid is forgotten and a late reply is dropped. */
public class RpcTimeoutException extends RpcException {

    private static final long serialVersionUID = 1L;

    public RpcTimeoutException(String message) {
        super(message);
    }

    public RpcTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
