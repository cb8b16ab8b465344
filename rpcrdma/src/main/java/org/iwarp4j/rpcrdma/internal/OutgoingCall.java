package org.iwarp4j.rpcrdma.internal;

import java.util.List;
import java.util.Optional;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;

/**
 * One marshalled Call, as a Requester sent it: the header, what was registered for it, and the
 * regions behind the Write chunks and the Reply chunk it provided (one region per chunk, its
 * segments consecutive parts of it from its start), which hold the Reply's data once the Responder
 * has written them.
 *
 * @param header the transport header that was sent
 * @param form how the Payload stream travelled
 * @param registrations every region registered for this Call; fenced and released when it completes
 * @param writeList the Write chunks provided, in order
 * @param writeChunkRegions the region behind each Write chunk
 * @param replyChunk the Reply chunk provided, if any
 * @param replyChunkRegion the region behind it, or {@code null}
 */
record OutgoingCall(RpcRdmaHeader header, Form form, Registrations registrations, List<WriteChunk> writeList,
                    List<MemoryRegion> writeChunkRegions, Optional<WriteChunk> replyChunk,
                    MemoryRegion replyChunkRegion) {

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
