package org.iwarp4j.rpcrdma.internal.wire;

/**
 * The two inline thresholds of a connection (RFC 8166 §3.3.2, RFC 8797 §4.2): the largest RDMA
 * Send, transport header and Payload stream together, from client (Requester) to server
 * (Responder), and back. Fixed for the life of the connection (RPC-R-011), recomputed for each new
 * one (CMPD-R-003).
 */
public record InlineThresholds(int callThreshold, int replyThreshold) {

    /** 1024 octets each way (RFC 8166 §3.3.3): what two ends agree without private data. */
    public static final InlineThresholds DEFAULT =
            new InlineThresholds(RpcRdmaConstants.DEFAULT_INLINE_THRESHOLD, RpcRdmaConstants.DEFAULT_INLINE_THRESHOLD);

    /**
     * §4.2: client-to-server = min(client Send Size, server Receive Size); server-to-client =
     * min(server Send Size, client Receive Size). Pass {@link RpcRdmaPrivateData#ABSENT} for a peer
     * that sent no valid block.
     */
    public static InlineThresholds negotiate(RpcRdmaPrivateData client, RpcRdmaPrivateData server) {
        return new InlineThresholds(Math.min(client.sendSize(), server.receiveSize()),
                Math.min(server.sendSize(), client.receiveSize()));
    }
}
