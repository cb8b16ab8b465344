package org.iwarp4j.oncrpc;

/** The transport could not carry the call or lost the connection before the reply arrived. */
public class RpcTransportException extends RpcException {

    private static final long serialVersionUID = 1L;

    public RpcTransportException(String message) {
        super(message);
    }

    public RpcTransportException(String message, Throwable cause) {
        super(message, cause);
    }
}
