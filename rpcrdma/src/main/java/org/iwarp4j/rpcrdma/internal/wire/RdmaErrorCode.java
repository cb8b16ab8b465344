package org.iwarp4j.rpcrdma.internal.wire;

/** The rpc_rdma_errcode values of RFC 8166 §4.1.2 carried by RDMA_ERROR. */
public enum RdmaErrorCode {
    /** The Call's rdma_vers is not supported (§4.5.1); the error carries the supported range. */
    ERR_VERS(RpcRdmaConstants.ERR_VERS),
    /** Any other problem with the Call's transport header, or no RPC-level reply is possible (§4.5.2, §4.5.3). */
    ERR_CHUNK(RpcRdmaConstants.ERR_CHUNK);

    private final int code;

    RdmaErrorCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The error code with this value, or {@code null}: an RDMA_ERROR that cannot be decoded. */
    public static RdmaErrorCode fromCode(int code) {
        for (RdmaErrorCode e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return null;
    }
}
