package org.iwarp4j.oncrpc;

/**
 * Accepted reply PROG_MISMATCH: the server has the program but not the version; {@link #low()}
 * and {@link #high()} are the versions it supports (RFC 5531 §9, unsigned).
 */
public class RpcProgramMismatchException extends RpcException {

    private static final long serialVersionUID = 1L;

    private final int low;
    private final int high;

    public RpcProgramMismatchException(String message, int low, int high) {
        super(message + " (server supports versions " + Integer.toUnsignedString(low) + " to "
                + Integer.toUnsignedString(high) + ")");
        this.low = low;
        this.high = high;
    }

    /** Lowest version supported. */
    public int low() {
        return low;
    }

    /** Highest version supported. */
    public int high() {
        return high;
    }
}
