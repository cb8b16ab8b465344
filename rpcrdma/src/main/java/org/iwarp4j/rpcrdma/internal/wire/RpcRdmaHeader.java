package org.iwarp4j.rpcrdma.internal.wire;

/**
 * An RPC-over-RDMA transport header, {@code struct rdma_msg} (RFC 8166 §4.1.2): the four fixed
 * words and the body {@link #procedure()} selects. Immutable; holds no buffers. The XID, version
 * and credit value are the wire's 32 bits ({@code int}, compare unsigned where it matters).
 */
public sealed interface RpcRdmaHeader
        permits RpcRdmaHeader.RdmaMsg, RpcRdmaHeader.RdmaNomsg, RpcRdmaHeader.RdmaMsgp, RpcRdmaHeader.RdmaDone,
        RpcRdmaHeader.RdmaError {

    /** rdma_xid: the XID of the RPC message this header carries (§4.2.1). */
    int xid();

    /** rdma_vers (§4.2.2). */
    int version();

    /** rdma_credit: requested in a Call, granted in a Reply (§4.2.3). */
    int credits();

    RdmaProcedure procedure();

    /** RDMA_MSG: chunk lists, then the (possibly reduced) Payload stream in the same Send. */
    record RdmaMsg(int xid, int version, int credits, ChunkLists chunks) implements RpcRdmaHeader {
        public RdmaMsg {
            java.util.Objects.requireNonNull(chunks);
        }

        @Override
        public RdmaProcedure procedure() {
            return RdmaProcedure.RDMA_MSG;
        }
    }

    /** RDMA_NOMSG: chunk lists only; one of the chunks holds the Payload stream (Long Call / Long Reply). */
    record RdmaNomsg(int xid, int version, int credits, ChunkLists chunks) implements RpcRdmaHeader {
        public RdmaNomsg {
            java.util.Objects.requireNonNull(chunks);
        }

        @Override
        public RdmaProcedure procedure() {
            return RdmaProcedure.RDMA_NOMSG;
        }
    }

    /**
     * RDMA_MSGP, {@code rpc_rdma_header_padded}: deprecated (§4.6.1). Decoded only so that it can be
     * answered (a Responder replies ERR_CHUNK, a Requester discards it); never sent.
     */
    record RdmaMsgp(int xid, int version, int credits, long align, long threshold, ChunkLists chunks)
            implements RpcRdmaHeader {
        public RdmaMsgp {
            java.util.Objects.requireNonNull(chunks);
        }

        @Override
        public RdmaProcedure procedure() {
            return RdmaProcedure.RDMA_MSGP;
        }
    }

    /**
     * RDMA_DONE: no body. RFC 8166 §4.6.2 forbids sending it and makes receivers discard it; the
     * responder-provided Read chunks draft uses it as pull-completion notification.
     */
    record RdmaDone(int xid, int version, int credits) implements RpcRdmaHeader {
        @Override
        public RdmaProcedure procedure() {
            return RdmaProcedure.RDMA_DONE;
        }
    }

    /**
     * RDMA_ERROR (§4.5): a permanent error for the RPC with this XID. {@code low} and {@code high}
     * are the supported version range of an ERR_VERS; 0 for ERR_CHUNK.
     */
    record RdmaError(int xid, int version, int credits, RdmaErrorCode error, int low, int high)
            implements RpcRdmaHeader {
        public RdmaError {
            java.util.Objects.requireNonNull(error);
        }

        /** ERR_CHUNK about the Call with {@code xid} and {@code version}, both echoed (RPC-R-061). */
        public static RdmaError errChunk(int xid, int version, int credits) {
            return new RdmaError(xid, version, credits, RdmaErrorCode.ERR_CHUNK, 0, 0);
        }

        /** ERR_VERS about the Call with {@code xid} and (unsupported) {@code version}: this end supports 1..1. */
        public static RdmaError errVers(int xid, int version, int credits) {
            return new RdmaError(xid, version, credits, RdmaErrorCode.ERR_VERS, RpcRdmaConstants.VERSION,
                    RpcRdmaConstants.VERSION);
        }

        @Override
        public RdmaProcedure procedure() {
            return RdmaProcedure.RDMA_ERROR;
        }
    }
}
