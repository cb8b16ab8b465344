/**
 * ONC RPC Version 2 (RFC 5531) with XDR (RFC 4506) on Netty {@code ByteBuf}s: call and reply
 * headers, AUTH_NONE and AUTH_SYS, program dispatch, an asynchronous client, and transports
 * (TCP record marking here; RPC-over-RDMA in {@code org.iwarp4j.rpcrdma}).
 */
package org.iwarp4j.oncrpc;
