package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Optional;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;

/**
 * One marshalled Call, as a Requester sent it: the header, what was registered for it, and the
 * buffers behind the Write chunks and the Reply chunk it provided, which hold the Reply's data
 * once the Responder has written them.
 *
 * @param header the transport header that was sent
 * @param form how the Payload stream travelled
 * @param registrations every region registered for this Call; fenced and released when it completes
 * @param writeList the Write chunks provided, in order
 * @param writeChunkMemory the buffer behind each Write chunk
 * @param replyChunk the Reply chunk provided, if any
 * @param replyChunkMemory the buffer behind it, or {@code null}
 */
record OutgoingCall(RpcRdmaHeader header, Form form, Registrations registrations, List<WriteChunk> writeList,
                    List<ByteBuf> writeChunkMemory, Optional<WriteChunk> replyChunk, ByteBuf replyChunkMemory) {

    /** How a Call's Payload stream travels (RFC 8166 §3.5). */
    enum Form {
        /** RDMA_MSG with the whole Payload stream in the Send (§3.5.1). */
        SHORT,
        /** RDMA_MSG with DDP-eligible items reduced into Read chunks (§3.5.2). */
        CHUNKED,
        /** RDMA_NOMSG with the Payload stream in a Position-Zero Read chunk (§3.5.3). */
        LONG
    }
}
