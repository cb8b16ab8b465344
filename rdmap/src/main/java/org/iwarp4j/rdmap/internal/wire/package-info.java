/**
 * RDMAP wire formats (RFC 5040 §4): the RDMAP control octet and opcodes, the RDMA Read Request
 * header, the Terminate header, and the mapping from every detected error to the Terminate that
 * reports it. Internal: not part of the public API.
 *
 * <p>Buffers: decoders read from the caller's {@code ByteBuf} and never release it; encoders write
 * into the caller's buffer, except {@code TerminateMessage.encodeSegment}, which returns a new
 * buffer the caller owns.
 */
package org.iwarp4j.rdmap.internal.wire;
