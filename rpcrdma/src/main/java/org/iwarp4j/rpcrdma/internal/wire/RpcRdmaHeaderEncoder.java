package org.iwarp4j.rpcrdma.internal.wire;

import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.FIXED_HEADER_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.NOT_PRESENT;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.PRESENT;

import io.netty.buffer.ByteBuf;

/**
 * Encodes transport headers (RFC 8166 §4.1.2) into the caller's buffer, all fields as XDR
 * big-endian words (§4, RPC-R-036). Stateless.
 *
 * <p>RDMA_MSGP is refused: senders MUST NOT send it (§4.6.1). RDMA_DONE is encoded because the
 * responder-provided Read chunks draft sends it; RFC 8166 transports never call this for it.
 */
public final class RpcRdmaHeaderEncoder {

    private RpcRdmaHeaderEncoder() {
    }

    /** Octets {@link #encode} writes for {@code header}. */
    public static int encodedLength(RpcRdmaHeader header) {
        if (header instanceof RpcRdmaHeader.RdmaMsg m) {
            return FIXED_HEADER_LENGTH + m.chunks().encodedLength();
        }
        if (header instanceof RpcRdmaHeader.RdmaNomsg m) {
            return FIXED_HEADER_LENGTH + m.chunks().encodedLength();
        }
        if (header instanceof RpcRdmaHeader.RdmaError e) {
            return e.error() == RdmaErrorCode.ERR_VERS ? RpcRdmaConstants.ERR_VERS_LENGTH
                    : RpcRdmaConstants.ERR_CHUNK_LENGTH;
        }
        if (header instanceof RpcRdmaHeader.RdmaDone) {
            return FIXED_HEADER_LENGTH;
        }
        throw new IllegalArgumentException("RDMA_MSGP is never sent (RFC 8166 §4.6.1)");
    }

    /**
     * Writes {@code header} at {@code out}'s writer index. {@code out} stays the caller's.
     *
     * @throws IllegalArgumentException for RDMA_MSGP
     */
    public static void encode(RpcRdmaHeader header, ByteBuf out) {
        int length = encodedLength(header);
        out.ensureWritable(length);
        out.writeInt(header.xid());
        out.writeInt(header.version());
        out.writeInt(header.credits());
        out.writeInt(header.procedure().code());
        if (header instanceof RpcRdmaHeader.RdmaMsg m) {
            encodeChunkLists(m.chunks(), out);
        } else if (header instanceof RpcRdmaHeader.RdmaNomsg m) {
            encodeChunkLists(m.chunks(), out);
        } else if (header instanceof RpcRdmaHeader.RdmaError e) {
            out.writeInt(e.error().code());
            if (e.error() == RdmaErrorCode.ERR_VERS) {
                out.writeInt(e.low());
                out.writeInt(e.high());
            }
        }
    }

    /** Writes the Read list, Write list and Reply chunk (§4.7). */
    public static void encodeChunkLists(ChunkLists chunks, ByteBuf out) {
        for (ReadSegment s : chunks.readList()) {
            out.writeInt(PRESENT);
            out.writeInt((int) s.position());
            encodeSegment(s.target(), out);
        }
        out.writeInt(NOT_PRESENT);
        for (WriteChunk w : chunks.writeList()) {
            out.writeInt(PRESENT);
            encodeWriteChunk(w, out);
        }
        out.writeInt(NOT_PRESENT);
        if (chunks.replyChunk().isPresent()) {
            out.writeInt(PRESENT);
            encodeWriteChunk(chunks.replyChunk().get(), out);
        } else {
            out.writeInt(NOT_PRESENT);
        }
    }

    private static void encodeWriteChunk(WriteChunk chunk, ByteBuf out) {
        out.writeInt(chunk.segments().size());
        for (RdmaSegment s : chunk.segments()) {
            encodeSegment(s, out);
        }
    }

    private static void encodeSegment(RdmaSegment s, ByteBuf out) {
        out.writeInt(s.handle());
        out.writeInt((int) s.length());
        out.writeLong(s.offset());
    }
}
