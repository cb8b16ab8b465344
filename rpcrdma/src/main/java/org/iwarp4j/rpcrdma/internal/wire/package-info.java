/**
 * RPC-over-RDMA Version 1 wire formats: the transport header of RFC 8166 §4 (fixed fields, Read
 * list, Write list, Reply chunk, RDMA_ERROR), its decoder and encoder, and the RFC 8797 connection
 * private data. Internal: not part of the public API.
 *
 * <p>Buffers: the decoder reads from the caller's {@code ByteBuf} and never releases it; the
 * encoder writes into the caller's buffer. The header types hold no buffers.
 */
package org.iwarp4j.rpcrdma.internal.wire;
