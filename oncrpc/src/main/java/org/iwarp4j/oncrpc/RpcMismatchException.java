package org.iwarp4j.oncrpc;

/**
 * Denied reply RPC_MISMATCH: the server does not speak this RPC version; {@link #low()} and
 * {@link #high()} are the RPC versions it supports (RFC 5531 §9).
 */
public class RpcMismatchException extends RpcException {

    private static final long serialVersionUID = 1L;

    private final int low;
    private final int high;

    public RpcMismatchException(String message, int low, int high) {
        super(message + " (server supports RPC versions " + Integer.toUnsignedString(low) + " to "
                + Integer.toUnsignedString(high) + ")");
        this.low = low;
        this.high = high;
    }

    /** Lowest RPC version supported. */
    public int low() {
        return low;
    }

    /** Highest RPC version supported. */
    public int high() {
        return high;
    }
}
