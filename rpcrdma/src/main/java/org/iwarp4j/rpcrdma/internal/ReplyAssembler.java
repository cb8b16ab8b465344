package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rpcrdma.RpcRdmaProtocolException;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;

/**
 * Builds the Reply a Requester hands to RPC from the Reply's header, its inline Payload stream and
 * the memory behind the chunks the Call provided (RFC 8166 §3.4.6.1, §3.5.3): the Payload stream is
 * the inline part (RDMA_MSG) or the Reply chunk's contents (RDMA_NOMSG); each Write chunk the
 * Responder filled becomes a reduced item in chunk order ({@link XdrMessage#ofReduced}), and each
 * non-empty one it returned holding nothing an item of 0 octets: the decoder then refuses a
 * DDP-eligible result of more octets found inline while that chunk was available (RFC 8166 §6.1,
 * RPC-R-074; a result of 0 octets, a READ at end of file, has nothing to place).
 *
 * <p>Returned chunks are checked against the provided ones: same segments (handle, offset), lengths
 * at most those provided, filled in order (RPC-R-028, RPC-R-029, RPC-R-056). A non-empty Write
 * chunk may also come back empty, with no segments: RFC 8267 §6.4.1 asks that of a server whose
 * READ-type operation returned no data (ULB-R-021), where RFC 8166 §4.3.2.2 returns it unused, its
 * segments with length 0 (RPC-R-051); a client accepts both, and the Reply's status reaches the
 * caller. The octets a chunk is
 * returned as holding must also be octets the Responder's RDMA Writes placed, from the chunk's
 * start ({@link MemoryRegion#peerPlacedPrefix()}; a chunk is one region, its segments consecutive
 * parts of it): a Reply only says how many octets were written (§3.4.6), an RDMA Write has no
 * completion here, and the memory is pooled, so a claim beyond what was placed would hand the
 * caller an earlier Reply's data or another connection's (RPC-R-075). A Responder must therefore
 * write a chunk's segments in order, as Linux's svcrdma does; one that writes them out of order
 * is refused. A Reply that breaks any of this fails the RPC with {@link RpcRdmaProtocolException}
 * (RPC-R-074).
 *
 * <p>Runs once the Reply's Send was received (on the connection's event loop, or after pulling a
 * Read chunk), so after every RDMA Write the Responder sent before it on that connection was placed
 * on that event loop (RFC 5040 §5.5: a Send is delivered only after the messages ahead of it were
 * placed); the count is a volatile field, so any thread sees it.
 */
final class ReplyAssembler {

    private ReplyAssembler() {
    }

    /**
     * @param payload the octets after the header (RDMA_MSG); not released here, a slice is retained
     * @return the Reply; the caller owns it
     */
    static XdrMessage assemble(RpcRdmaHeader header, ChunkLists lists, ByteBuf payload, OutgoingCall call) {
        return assemble(header, lists, payload, null, call);
    }

    /**
     * An RDMA_NOMSG Reply whose Payload stream was pulled from a responder-provided Read chunk:
     * {@code stream} (not released here, a slice is retained) instead of the Reply chunk's contents.
     */
    static XdrMessage assembleWithStream(RpcRdmaHeader header, ChunkLists lists, ByteBuf stream, OutgoingCall call) {
        return assemble(header, lists, null, stream, call);
    }

    private static XdrMessage assemble(RpcRdmaHeader header, ChunkLists lists, ByteBuf payload, ByteBuf pulled,
                                       OutgoingCall call) {
        if (!lists.readList().isEmpty()) {
            throw new RpcRdmaProtocolException(String.format(
                    "Reply to xid 0x%08x has a Read list: Responders leave it empty (RFC 8166 §4.3.1)", header.xid()));
        }
        List<WriteChunk> returned = lists.writeList();
        if (!returned.isEmpty() && returned.size() != call.writeList().size()) {
            throw new RpcRdmaProtocolException(String.format("Reply to xid 0x%08x returns %d Write chunks, %d provided",
                    header.xid(), returned.size(), call.writeList().size()));
        }
        List<ByteBuf> items = new ArrayList<>();
        ByteBuf stream = null;
        try {
            for (int i = 0; i < returned.size(); i++) {
                MemoryRegion region = call.writeChunkRegions().get(i);
                WriteChunk provided = call.writeList().get(i);
                long written = check(header.xid(), i, returned.get(i), provided, region);
                if (written > 0) {
                    items.add(region.memory().retainedSlice(0, (int) written));
                } else if (!provided.isEmpty()) {
                    items.add(Unpooled.EMPTY_BUFFER); // available, returned holding nothing: RPC-R-074
                }
            }
            if (returned.isEmpty()) {
                // No Write list although chunks were provided (a Responder must return them, RFC 8166
                // §4.3.2.2): nothing was written into them, so each counts as unused, and a result
                // sent inline although one was available still fails the RPC (RPC-R-074).
                for (WriteChunk provided : call.writeList()) {
                    if (!provided.isEmpty()) {
                        items.add(Unpooled.EMPTY_BUFFER);
                    }
                }
            }
            long replyWritten = 0;
            if (lists.replyChunk().isPresent()) {
                if (call.replyChunk().isEmpty()) {
                    throw new RpcRdmaProtocolException(String.format(
                            "Reply to xid 0x%08x returns a Reply chunk that was not provided", header.xid()));
                }
                replyWritten = check(header.xid(), REPLY_CHUNK, lists.replyChunk().get(), call.replyChunk().get(),
                        call.replyChunkRegion());
            }
            if (pulled != null) {
                stream = pulled.retainedSlice();
            } else if (header instanceof RpcRdmaHeader.RdmaNomsg) {
                if (replyWritten == 0) {
                    throw new RpcRdmaProtocolException(String.format(
                            "RDMA_NOMSG Reply to xid 0x%08x without data in a Reply chunk", header.xid()));
                }
                stream = call.replyChunkRegion().memory().retainedSlice(0, (int) replyWritten);
            } else {
                stream = payload.retainedSlice();
            }
            XdrMessage reply = XdrMessage.ofReduced(List.of(XdrPiece.inline(stream)), items);
            stream = null;
            items = List.of();
            return reply;
        } finally {
            if (stream != null) {
                stream.release();
            }
            items.forEach(ByteBuf::release);
        }
    }

    /** {@link #check}'s index for the Reply chunk. */
    private static final int REPLY_CHUNK = -1;

    /**
     * The octets the Responder says it wrote into {@code provided}, after checking it is the same
     * chunk and that the Responder placed that many octets from the start of {@code region}, the
     * chunk's memory; {@code index} is the Write chunk's, or {@link #REPLY_CHUNK}. A Write chunk
     * returned empty holds nothing whatever was provided (ULB-R-021). The chunk's name
     * is only built for the error: this runs for every Reply.
     */
    private static long check(int xid, int index, WriteChunk returned, WriteChunk provided, MemoryRegion region) {
        if (index != REPLY_CHUNK && returned.isEmpty()) {
            return 0; // ULB-R-021: RFC 8267 §6.4.1's form of a Write chunk no data went into
        }
        long written = returned.length();
        boolean same = returned.segments().size() == provided.segments().size() && written <= provided.length()
                && returned.equals(provided.withWritten(written));
        if (!same) {
            throw new RpcRdmaProtocolException(String.format("Reply to xid 0x%08x: %s %s is not the provided %s filled "
                    + "in order", xid, index == REPLY_CHUNK ? "Reply chunk" : "Write chunk " + index, returned.segments(),
                    provided.segments()));
        }
        long placed = region.peerPlacedPrefix();
        if (written > placed) {
            throw new RpcRdmaProtocolException(String.format("Reply to xid 0x%08x: %s is returned as holding %d octets, "
                    + "but the Responder's RDMA Writes placed %d in order from its start", xid,
                    index == REPLY_CHUNK ? "Reply chunk" : "Write chunk " + index, written, placed));
        }
        return written;
    }
}
