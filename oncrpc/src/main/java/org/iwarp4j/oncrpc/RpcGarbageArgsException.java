package org.iwarp4j.oncrpc;

/** Accepted reply GARBAGE_ARGS: the procedure could not decode its arguments (RFC 5531 §9); a server procedure may throw it (an {@link XdrException} has the same effect). */
public class RpcGarbageArgsException extends RpcException {

    private static final long serialVersionUID = 1L;

    public RpcGarbageArgsException(String message) {
        super(message);
    }

    public RpcGarbageArgsException(String message, Throwable cause) {
        super(message, cause);
    }
}
