/**
 * The RPC-over-RDMA engine over the verbs API: the connection wrapper ({@link
 * org.iwarp4j.rpcrdma.internal.RdmaEndpoint}), Requester and Responder marshalling of chunks,
 * credits, the backward direction and responder-provided Read chunks. Internal: not part of the
 * public API.
 */
package org.iwarp4j.rpcrdma.internal;
