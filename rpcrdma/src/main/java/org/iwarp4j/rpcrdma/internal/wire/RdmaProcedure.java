package org.iwarp4j.rpcrdma.internal.wire;

/** The rdma_proc values of RFC 8166 §4.2.4, with the code each has on the wire. */
public enum RdmaProcedure {
    RDMA_MSG(RpcRdmaConstants.RDMA_MSG),
    RDMA_NOMSG(RpcRdmaConstants.RDMA_NOMSG),
    RDMA_MSGP(RpcRdmaConstants.RDMA_MSGP),
    RDMA_DONE(RpcRdmaConstants.RDMA_DONE),
    RDMA_ERROR(RpcRdmaConstants.RDMA_ERROR);

    /** values() copies its array on each call; decoding a header looks a code up once per message. */
    private static final RdmaProcedure[] ALL = values();

    private final int code;

    RdmaProcedure(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The procedure with this code, or {@code null} if RFC 8166 defines none (an XDR error, §4.5.2). */
    public static RdmaProcedure fromCode(int code) {
        for (RdmaProcedure p : ALL) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }
}
