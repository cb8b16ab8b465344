package org.iwarp4j.oncrpc;

/** Accepted reply PROG_UNAVAIL: the server has not exported the program (RFC 5531 §9). */
public class RpcProgramUnavailableException extends RpcException {

    private static final long serialVersionUID = 1L;

    public RpcProgramUnavailableException(String message) {
        super(message);
    }

    public RpcProgramUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
