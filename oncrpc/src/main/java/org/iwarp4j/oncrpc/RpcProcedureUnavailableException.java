package org.iwarp4j.oncrpc;

/** Accepted reply PROC_UNAVAIL: the program does not support the procedure (RFC 5531 §9); a server procedure may throw it. */
public class RpcProcedureUnavailableException extends RpcException {

    private static final long serialVersionUID = 1L;

    public RpcProcedureUnavailableException(String message) {
        super(message);
    }

    public RpcProcedureUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
