package org.iwarp4j.rpcrdma.internal;

import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rpcrdma.RpcRdmaProtocolException;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.ReadChunk;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderEncoder;

/**
 * The Requester's half of responder-provided Read chunks (draft-cel-nfsv4-rpcrdma-reliable-reply-02
 * §4.1.2): pulls the Reply's Payload stream from the Position-Zero Read chunk of an RDMA_NOMSG Reply
 * with RDMA Read, then sends pull-completion notification, RDMA_DONE with the Reply's XID, whether
 * the Reads worked or not (RRC-R-005, RRC-R-006, RRC-R-007) — with Send with Invalidate of the
 * chunk's STag when both ends agreed to remote invalidation (RRC-R-012, RRC-R-013).
 */
final class ResponderReadChunks {

    private ResponderReadChunks() {
    }

    /** Pulls the Reply and completes with it (the caller owns it); RDMA_DONE has been posted by then. */
    static CompletableFuture<XdrMessage> pull(RdmaEndpoint endpoint, RpcRdmaSettings settings, RpcRdmaHeader header,
                                              ChunkLists lists, OutgoingCall call) {
        List<ReadChunk> chunks = lists.readChunks();
        if (chunks.size() != 1 || chunks.get(0).position() != 0) {
            notifyPulled(endpoint, settings, header.xid(), lists);
            return CompletableFuture.failedFuture(new RpcRdmaProtocolException(String.format(
                    "Reply to xid 0x%08x has Read chunks other than one at Position 0", header.xid())));
        }
        int length = (int) chunks.get(0).length();
        ByteBuf stream = endpoint.readSinks().take(length); // released below, on every path
        Registrations sink = new Registrations(endpoint);
        CompletableFuture<Void> reads;
        try {
            MemoryRegion region = sink.register(stream, EnumSet.of(Access.LOCAL_WRITE));
            reads = endpoint.read(chunks.get(0).segments(), region, 0);
        } catch (RuntimeException e) {
            reads = CompletableFuture.failedFuture(e);
        }
        return reads.handle((v, error) -> {
            sink.release();
            notifyPulled(endpoint, settings, header.xid(), lists);
            if (error != null) {
                stream.release();
                throw error instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(error);
            }
            try {
                ChunkLists withoutReadList = new ChunkLists(List.of(), lists.writeList(), lists.replyChunk());
                return ReplyAssembler.assembleWithStream(header, withoutReadList, stream, call);
            } finally {
                stream.release();
            }
        });
    }

    /** RDMA_DONE for {@code xid} (RRC-R-006, RRC-R-008): sent even for an RPC nobody waits for. */
    static void notifyPulled(RdmaEndpoint endpoint, RpcRdmaSettings settings, int xid, ChunkLists lists) {
        RpcRdmaHeader done = new RpcRdmaHeader.RdmaDone(xid, VERSION, settings.credits());
        ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(RpcRdmaHeaderEncoder.encodedLength(done));
        RpcRdmaHeaderEncoder.encode(done, out);
        OptionalInt invalidate = endpoint.remoteInvalidation() && !lists.readList().isEmpty()
                ? OptionalInt.of(lists.readList().get(0).target().handle()) : OptionalInt.empty();
        endpoint.send(out, invalidate);
    }
}
