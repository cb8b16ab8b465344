package org.iwarp4j.rpcrdma;

import org.iwarp4j.oncrpc.RpcTransportException;

/**
 * The Responder answered the Call with RDMA_ERROR (RFC 8166 §4.5): a permanent error for that XID,
 * not retransmitted. ERR_VERS means the Responder does not speak this RPC-over-RDMA version
 * ("protocol not supported"); ERR_CHUNK that it could not use the Call's transport header or no
 * RPC-level reply is possible (an I/O error).
 */
public final class RpcRdmaErrorException extends RpcTransportException {

    private static final long serialVersionUID = 1L;

    /** rpc_rdma_errcode. */
    public enum Code {
        /** rdma_err 1: unsupported version; {@link #low()} and {@link #high()} give the supported range. */
        ERR_VERS,
        /** rdma_err 2: the header could not be processed, or no reply can be conveyed. */
        ERR_CHUNK
    }

    private final Code code;
    private final int low;
    private final int high;

    public RpcRdmaErrorException(int xid, Code code, int low, int high) {
        this(xid, code, low, high, 1);
    }

    /**
     * {@code echoedVersion}: the error's rdma_vers, which repeats the failing Call's (§4.5). We send
     * version 1 only, so any other value means the Call's header reached the Responder altered, and
     * the message says so.
     */
    public RpcRdmaErrorException(int xid, Code code, int low, int high, int echoedVersion) {
        super(String.format("RDMA_ERROR %s for xid 0x%08x%s%s", code, xid,
                code == Code.ERR_VERS ? " (protocol not supported; the Responder speaks versions "
                        + Integer.toUnsignedString(low) + " to " + Integer.toUnsignedString(high) + ")"
                        : " (I/O error)",
                echoedVersion == 1 ? "" : String.format("; the Call reached it with rdma_vers 0x%08x, not the 1 sent",
                        echoedVersion)));
        this.code = code;
        this.low = low;
        this.high = high;
    }

    public Code code() {
        return code;
    }

    /** Lowest version the Responder supports (ERR_VERS only). */
    public int low() {
        return low;
    }

    /** Highest version the Responder supports (ERR_VERS only). */
    public int high() {
        return high;
    }
}
