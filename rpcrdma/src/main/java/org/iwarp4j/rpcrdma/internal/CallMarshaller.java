package org.iwarp4j.rpcrdma.internal;

import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.FIXED_HEADER_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.READ_SEGMENT_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.VERSION;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.WORD;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.UpperLayerBinding;
import org.iwarp4j.rpcrdma.UpperLayerBinding.ReplyEstimate;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.ReadSegment;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderEncoder;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;

/**
 * A Requester's choice of how to send one Call and what to provide for its Reply (RFC 8166 §3.5,
 * §4.3), and the registrations that go with it:
 *
 * <ol>
 *   <li>Reply resources first (they are in the header): Write chunks, one per DDP-eligible result
 *       the binding announces, when the whole Reply might not fit inline (RPC-R-027, RPC-R-048); a
 *       Reply chunk when even the reduced Reply might not (RPC-R-054).</li>
 *   <li>The Call inline if header and Payload stream fit the call inline threshold (RPC-R-045);
 *       otherwise its DDP-eligible items go into Read chunks at their Positions (RPC-R-017,
 *       RPC-R-021, RPC-R-022) if that makes it fit; otherwise the whole Payload stream goes into a
 *       Position-Zero Read chunk, a Long Call (RPC-R-031, RPC-R-032).</li>
 * </ol>
 *
 * Regions are registered just before use, one per chunk, each chunk described by segments of at
 * most {@link RpcRdmaSettings#maxSegmentSize()} octets (RPC-R-016, RPC-R-076). The memory behind
 * Write and Reply chunks comes from the connection's {@link ReadSinks}, so that a stream of 1 MiB
 * READs reuses a few buffers instead of allocating 1 MiB per Call.
 */
final class CallMarshaller {

    private static final EnumSet<Access> REPLY_TARGET = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE);
    private static final EnumSet<Access> CALL_SOURCE = EnumSet.of(Access.REMOTE_READ);

    private final RpcRdmaSettings settings;
    private final RdmaEndpoint endpoint;
    private final ByteBufAllocator alloc;

    CallMarshaller(RpcRdmaSettings settings, RdmaEndpoint endpoint, ByteBufAllocator alloc) {
        this.settings = settings;
        this.endpoint = endpoint;
        this.alloc = alloc;
    }

    /**
     * Registers what {@code call} needs and returns it with the Send buffer (header and inline
     * Payload stream) in {@code send[0]}, which the caller sends and releases. {@code call} stays
     * the caller's and must outlive the returned registrations.
     *
     * @throws RpcTransportException if the Call or its Reply cannot be conveyed within the limits
     */
    OutgoingCall marshal(RpcCallInfo info, XdrMessage call, ByteBuf[] send) {
        UpperLayerBinding binding = settings.binding();
        boolean covered = binding.covers(info.program(), info.version());
        ReplyEstimate estimate = covered ? binding.replyEstimate(info, call)
                : ReplyEstimate.inlineOnly(settings.defaultMaxReplySize());
        Registrations registrations = new Registrations(endpoint);
        boolean done = false;
        try {
            List<WriteChunk> writeList = new ArrayList<>();
            List<MemoryRegion> writeRegions = new ArrayList<>();
            long reducedReply = estimate.maxReplySize();
            int replyThreshold = endpoint.receiveThreshold();
            if (covered && binding.hasDdpEligibleResult(info) && !estimate.writeChunkSizes().isEmpty()
                    && headerLength(List.of(), List.of(), Optional.empty()) + estimate.maxReplySize() > replyThreshold) {
                for (long size : estimate.writeChunkSizes()) {
                    ByteBuf memory = target(size, "Write chunk");
                    MemoryRegion region = registrations.registerOwned(memory, REPLY_TARGET);
                    writeRegions.add(region);
                    writeList.add(new WriteChunk(RdmaEndpoint.segments(region, 0, size, settings.maxSegmentSize())));
                }
                reducedReply = estimate.maxReducedReplySize();
            }
            Optional<WriteChunk> replyChunk = Optional.empty();
            MemoryRegion replyRegion = null;
            if (headerLength(List.of(), writeList, Optional.empty()) + reducedReply > replyThreshold) {
                replyRegion = registrations.registerOwned(target(reducedReply, "Reply chunk"), REPLY_TARGET);
                replyChunk = Optional.of(new WriteChunk(
                        RdmaEndpoint.segments(replyRegion, 0, reducedReply, settings.maxSegmentSize())));
            }
            OutgoingCall out = callSide(info, call, registrations, writeList, writeRegions, replyChunk, replyRegion,
                    covered && binding.hasDdpEligibleArgument(info), send);
            done = true;
            return out;
        } finally {
            if (!done) {
                registrations.release();
            }
        }
    }

    private OutgoingCall callSide(RpcCallInfo info, XdrMessage call, Registrations registrations,
                                  List<WriteChunk> writeList, List<MemoryRegion> writeRegions,
                                  Optional<WriteChunk> replyChunk, MemoryRegion replyRegion, boolean reducible,
                                  ByteBuf[] send) {
        int threshold = endpoint.sendThreshold();
        int credits = settings.credits();
        if (headerLength(List.of(), writeList, replyChunk) + call.readableBytes() <= threshold) {
            RpcRdmaHeader header = new RpcRdmaHeader.RdmaMsg(info.xid(), VERSION, credits,
                    new ChunkLists(List.of(), writeList, replyChunk));
            send[0] = sendBuffer(header, call.pieces(), false);
            return new OutgoingCall(header, OutgoingCall.Form.SHORT, registrations, writeList, writeRegions, replyChunk,
                    replyRegion);
        }
        // RPC-R-015: only pieces the binding made DDP-eligible leave the stream, and only for a
        // procedure it says has such an argument; RPC-R-020: one Read chunk per such item (all its
        // segments share the item's Position).
        if (reducible && call.hasDdpEligiblePieces()) {
            int segments = 0;
            int reducedLength = 0;
            for (XdrPiece p : call.pieces()) {
                int n = p.data().readableBytes();
                if (p.ddpEligible() && n > 0) {
                    segments += (n + settings.maxSegmentSize() - 1) / settings.maxSegmentSize();
                } else {
                    reducedLength += p.streamLength();
                }
            }
            int headerLength = headerLength(List.of(), writeList, replyChunk)
                    + segments * (WORD + READ_SEGMENT_LENGTH);
            if (headerLength + reducedLength <= threshold) {
                List<ReadSegment> readList = new ArrayList<>(segments);
                for (int i = 0; i < call.pieces().size(); i++) {
                    XdrPiece p = call.pieces().get(i);
                    int n = p.data().readableBytes();
                    if (p.ddpEligible() && n > 0) {
                        MemoryRegion region = registrations.register(p.data(), CALL_SOURCE);
                        for (RdmaSegment s : RdmaEndpoint.segments(region, 0, n, settings.maxSegmentSize())) {
                            readList.add(new ReadSegment(call.position(i), s));
                        }
                    }
                }
                RpcRdmaHeader header = new RpcRdmaHeader.RdmaMsg(info.xid(), VERSION, credits,
                        new ChunkLists(readList, writeList, replyChunk));
                send[0] = sendBuffer(header, call.pieces(), true);
                return new OutgoingCall(header, OutgoingCall.Form.CHUNKED, registrations, writeList, writeRegions,
                        replyChunk, replyRegion);
            }
        }
        if (call.readableBytes() > settings.maxChunkSize()) {
            throw new RpcTransportException("call " + info + " of " + call.readableBytes()
                    + " octets is larger than the largest chunk, " + settings.maxChunkSize());
        }
        // RPC-R-035: a Long Call's chunk is the whole Payload stream, eligible items padded as usual.
        ByteBuf stream = call.stream();
        registrations.own(stream);
        MemoryRegion region = registrations.register(stream, CALL_SOURCE);
        List<ReadSegment> readList = new ArrayList<>();
        for (RdmaSegment s : RdmaEndpoint.segments(region, 0, stream.readableBytes(), settings.maxSegmentSize())) {
            readList.add(new ReadSegment(0, s));
        }
        RpcRdmaHeader header = new RpcRdmaHeader.RdmaNomsg(info.xid(), VERSION, credits,
                new ChunkLists(readList, writeList, replyChunk));
        if (RpcRdmaHeaderEncoder.encodedLength(header) > threshold) {
            throw new RpcTransportException("the Long Call header for " + info + " does not fit the inline threshold "
                    + threshold);
        }
        send[0] = sendBuffer(header, List.of(), false);
        return new OutgoingCall(header, OutgoingCall.Form.LONG, registrations, writeList, writeRegions, replyChunk,
                replyRegion);
    }

    /** Header then the pieces; DDP-eligible pieces either dropped with their padding ({@code reduce}) or padded. */
    private ByteBuf sendBuffer(RpcRdmaHeader header, List<XdrPiece> pieces, boolean reduce) {
        ByteBuf out = alloc.directBuffer(endpoint.sendThreshold());
        RpcRdmaHeaderEncoder.encode(header, out);
        for (XdrPiece p : pieces) {
            int n = p.data().readableBytes();
            if (p.ddpEligible() && reduce && n > 0) {
                continue; // RPC-R-021: the item and its roundup padding leave the Payload stream
            }
            out.writeBytes(p.data(), p.data().readerIndex(), n);
            if (p.ddpEligible()) {
                out.writeZero(XdrMessage.padding(n));
            }
        }
        return out;
    }

    private ByteBuf target(long size, String what) {
        if (size > settings.maxChunkSize()) {
            throw new RpcTransportException(what + " of " + size + " octets is larger than the largest chunk, "
                    + settings.maxChunkSize());
        }
        // The connection's kept memory, registered afresh for this RPC alone and fenced before it
        // completes (RPC-R-025): reused memory, never a reused registration. A kept buffer is lent
        // again only when nothing derived from it is held, so a Reply the caller still holds is
        // never overwritten. Not zeroed: ReplyAssembler returns only octets the Responder's RDMA
        // Writes placed (MemoryRegion#peerPlacedPrefix).
        return endpoint.readSinks().take((int) size);
    }

    private static int headerLength(List<ReadSegment> readList, List<WriteChunk> writeList,
                                    Optional<WriteChunk> replyChunk) {
        return FIXED_HEADER_LENGTH + ChunkLists.encodedLength(readList.size(), writeList, replyChunk);
    }
}
