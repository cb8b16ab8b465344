package org.iwarp4j.rpcrdma;

import org.iwarp4j.oncrpc.RpcTransportException;

/**
 * The peer's Reply to this Call broke RPC-over-RDMA rules in a way that the RPC cannot survive
 * (RFC 8166 §6.1, RPC-R-074): chunks returned that were not provided, or longer than provided, or a
 * responder-provided Read chunk this end was not configured for. Permanent: not retransmitted.
 */
public final class RpcRdmaProtocolException extends RpcTransportException {

    private static final long serialVersionUID = 1L;

    public RpcRdmaProtocolException(String message) {
        super(message);
    }
}
