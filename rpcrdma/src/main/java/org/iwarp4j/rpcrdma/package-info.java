/**
 * RPC-over-RDMA Version 1 (RFC 8166) with RFC 8797 connection private data, on the verbs API of
 * {@code org.iwarp4j.rdmap}: {@link org.iwarp4j.rpcrdma.RpcRdmaRequester} (an RPC client
 * transport), {@link org.iwarp4j.rpcrdma.RpcRdmaServer} and {@link
 * org.iwarp4j.rpcrdma.RpcRdmaResponder} (serving an RPC dispatcher), {@link
 * org.iwarp4j.rpcrdma.RpcRdmaSettings}, and the {@link org.iwarp4j.rpcrdma.UpperLayerBinding} a
 * program's binding implements. Wire formats and the engine are in {@code internal}.
 */
package org.iwarp4j.rpcrdma;
