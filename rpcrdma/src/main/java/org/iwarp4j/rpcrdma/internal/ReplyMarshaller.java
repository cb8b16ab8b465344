package org.iwarp4j.rpcrdma.internal;

import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.UpperLayerBinding;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.ReadSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderEncoder;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;

/**
 * How a Responder returns one Reply (RFC 8166 §3.5, §4.3.2, §4.3.3), decided before anything is
 * written:
 *
 * <ol>
 *   <li>Each DDP-eligible result goes into the next Write chunk the Requester provided, pushed with
 *       RDMA Write, contiguously and in segment order, without padding; the chunk comes back with
 *       the lengths written (RPC-R-028, RPC-R-029, RPC-R-030, RPC-R-048, RPC-R-049). An empty Write
 *       chunk keeps its result inline (RPC-R-053); chunks left over come back unused, all lengths 0
 *       (RPC-R-051), as Linux's svcrdma returns them: RFC 8267 §6.4.1 would have a chunk whose
 *       READ returned no data come back empty instead (ULB-R-021, a declared deviation; our
 *       Requester accepts both). A result longer than its chunk is ERR_CHUNK.</li>
 *   <li>The reduced Reply inline if it fits the reply inline threshold (RPC-R-055); else into the
 *       Reply chunk as RDMA_NOMSG (RPC-R-034, RPC-R-056); else, with the draft enabled, in a
 *       responder-provided Read chunk; else ERR_CHUNK (RFC 8166 §4.5.3, RRC-R-004). An RDMA_NOMSG
 *       header, which echoes every Write chunk, that does not fit the threshold itself is ERR_CHUNK
 *       too (RPC-R-045).</li>
 * </ol>
 *
 * The Read list of a Reply is always empty (RPC-R-047), the draft's Position-Zero Read chunk apart.
 * With remote invalidation agreed, the Send is a Send with Invalidate of one of this RPC's STags
 * (CMPD-R-007, CMPD-R-008).
 */
final class ReplyMarshaller {

    /** What became of a Reply. */
    enum Form { INLINE, REPLY_CHUNK, RESPONDER_READ_CHUNK, ERR_CHUNK }

    private final RpcRdmaSettings settings;
    private final RdmaEndpoint endpoint;
    private final ByteBufAllocator alloc;
    private final PullCompletions pulls;

    ReplyMarshaller(RpcRdmaSettings settings, RdmaEndpoint endpoint, ByteBufAllocator alloc, PullCompletions pulls) {
        this.settings = settings;
        this.endpoint = endpoint;
        this.alloc = alloc;
        this.pulls = pulls;
    }

    /** A planned RDMA Write of one result. */
    private record Push(ByteBuf data, WriteChunk target) {
    }

    /**
     * A Reply that failed after its Read chunk was exposed ({@link Form#RESPONDER_READ_CHUNK}): the
     * chunk's release ({@link PullCompletions}) still comes and answers for the Call, so the caller
     * must not count the Call answered again.
     */
    static final class ExposedReplyFailed extends RuntimeException {
        ExposedReplyFailed(Throwable cause) {
            super(cause.toString(), cause);
        }
    }

    /**
     * Sends {@code reply} (consumed) for the Call with {@code xid}, whose header had {@code callLists}.
     * Completes with the form used once the Send has completed, or exceptionally if an RDMA operation
     * failed (the caller then treats the connection as failed for that XID, RFC 8166 §4.5.3); with
     * {@link ExposedReplyFailed} if its Read chunk had been exposed. Never throws: a failure to
     * start (say, no STag left) completes it exceptionally too. A Reply exposed as a
     * responder-provided Read chunk (the form {@link Form#RESPONDER_READ_CHUNK}, or {@link
     * ExposedReplyFailed}) runs {@code pulled} once its chunk is released; no other Reply runs it.
     */
    CompletableFuture<Form> send(int xid, RpcCallInfo info, ChunkLists callLists, XdrMessage reply, Runnable pulled) {
        boolean[] exposed = new boolean[1];
        CompletableFuture<Form> sent;
        try {
            sent = send(xid, info, callLists, reply, pulled, exposed);
        } catch (RuntimeException | Error e) {
            // An Error too (direct memory exhausted): the caller must see the Reply fail, so that
            // it answers for the Call and gives its place back, not lose it in a callback.
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((form, error) -> {
            if (error == null) {
                return form;
            }
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            if (exposed[0]) {
                throw new ExposedReplyFailed(cause);
            }
            throw cause instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(cause);
        });
    }

    private CompletableFuture<Form> send(int xid, RpcCallInfo info, ChunkLists callLists, XdrMessage reply,
                                         Runnable pulled, boolean[] exposedAwaited) {
        UpperLayerBinding binding = settings.binding();
        boolean eligible = info != null && binding.covers(info.program(), info.version())
                && binding.hasDdpEligibleResult(info);
        int grant = settings.credits();
        List<Push> pushes = new ArrayList<>();
        List<XdrPiece> stream = new ArrayList<>(reply.pieces().size()); // what stays in the reduced Payload stream
        List<WriteChunk> provided = callLists.writeList();
        List<WriteChunk> returned = new ArrayList<>(provided.size());
        int next = 0;
        int length = 0;
        for (XdrPiece p : reply.pieces()) {
            int n = p.data().readableBytes();
            // RPC-R-015: only a result the binding marks DDP-eligible may take a Write chunk.
            // RPC-R-050: chunks are handed out per eligible result actually present, so a chunk that
            // a result absent from this Reply (a union arm without data) would have used goes to the
            // next one. ULB-R-022: results beyond the Write list stay inline.
            if (p.ddpEligible() && eligible && next < provided.size()) {
                WriteChunk chunk = provided.get(next++);
                // RPC-R-020: one result per chunk. ULB-R-020: an empty chunk keeps its result inline.
                if (!chunk.isEmpty()) {
                    if (n > chunk.length()) {
                        reply.release();
                        return sendError(xid, grant);
                    }
                    pushes.add(new Push(p.data(), chunk));
                    returned.add(chunk.withWritten(n));
                    continue;
                }
                returned.add(chunk);
            }
            stream.add(p);
            length += p.streamLength();
        }
        while (next < provided.size()) {
            returned.add(provided.get(next++).withWritten(0));
        }
        Optional<WriteChunk> replyChunk = callLists.replyChunk();
        RpcRdmaHeader inline = new RpcRdmaHeader.RdmaMsg(xid, VERSION, grant,
                new ChunkLists(List.of(), returned, replyChunk.map(c -> c.withWritten(0))));
        Registrations sources = new Registrations(endpoint);
        Form form;
        RpcRdmaHeader header;
        List<XdrPiece> payload = List.of();
        Registrations exposed = null;
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        ByteBuf reduced = null;
        ByteBuf out = null;
        boolean replyReleased = false; // by a branch that answers with ERR_CHUNK instead
        try {
            if (RpcRdmaHeaderEncoder.encodedLength(inline) + length <= endpoint.sendThreshold()) {
                form = Form.INLINE;
                header = inline;
                payload = stream; // copied once, straight after the header, into the Send below
            } else if (replyChunk.isPresent() && length <= replyChunk.get().length()) {
                header = new RpcRdmaHeader.RdmaNomsg(xid, VERSION, grant,
                        new ChunkLists(List.of(), returned, Optional.of(replyChunk.get().withWritten(length))));
                if (RpcRdmaHeaderEncoder.encodedLength(header) > endpoint.sendThreshold()) {
                    // RPC-R-045: the header still travels in a Send, and it echoes every Write chunk;
                    // with a Call threshold larger than the Reply's (RFC 8797) it may not fit. Checked
                    // before anything is written into the Requester's memory.
                    sources.release();
                    reply.release();
                    replyReleased = true;
                    return sendError(xid, grant);
                }
                form = Form.REPLY_CHUNK;
                reduced = copy(stream, length);
                sources.own(reduced);
                MemoryRegion region = sources.register(reduced, EnumSet.noneOf(Access.class));
                writes.add(endpoint.write(region, 0, length, replyChunk.get().segments()));
            } else if (settings.responderReadChunks()) {
                // RRC-R-003: neither the inline threshold nor the Reply chunk (if any) can hold the
                // Payload stream, the one case the draft's Read chunk is for.
                form = Form.RESPONDER_READ_CHUNK;
                reduced = copy(stream, length);
                sources.own(reduced);
                exposed = new Registrations(endpoint);
                ByteBuf copy = reduced.retainedSlice();
                MemoryRegion region = exposed.registerOwned(copy, EnumSet.of(Access.REMOTE_READ)); // RRC-R-016: read-only
                List<ReadSegment> readList = new ArrayList<>();
                for (RdmaSegment s : RdmaEndpoint.segments(region, 0, length, settings.maxSegmentSize())) {
                    readList.add(new ReadSegment(0, s));
                }
                header = new RpcRdmaHeader.RdmaNomsg(xid, VERSION, grant,
                        new ChunkLists(readList, returned, replyChunk.map(c -> c.withWritten(0))));
                if (RpcRdmaHeaderEncoder.encodedLength(header) > endpoint.sendThreshold()) {
                    exposed.release();
                    sources.release();
                    reply.release();
                    replyReleased = true;
                    return sendError(xid, grant);
                }
                pulls.await(xid, exposed, pulled);
                exposedAwaited[0] = true;
            } else {
                sources.release();
                reply.release();
                replyReleased = true;
                return sendError(xid, grant);
            }
            for (Push push : pushes) {
                MemoryRegion region = sources.register(push.data(), EnumSet.noneOf(Access.class));
                writes.add(endpoint.write(region, 0, push.data().readableBytes(), push.target().segments()));
            }
            int headerLength = RpcRdmaHeaderEncoder.encodedLength(header);
            out = alloc.directBuffer(headerLength + (payload.isEmpty() ? 0 : length));
            RpcRdmaHeaderEncoder.encode(header, out);
            writeStream(payload, out);
            ByteBuf message = out;
            out = null; // the Send's from here on
            CompletableFuture<Void> sent = endpoint.send(message, invalidateStag(callLists));
            Form f = form;
            // A Reply without RDMA Writes (every NFS WRITE's) waits for its Send alone, not for an allOf of one.
            CompletableFuture<Void> done = writes.isEmpty() ? sent : allOf(writes, sent);
            return done.handle((v, error) -> {
                sources.release();
                reply.release();
                if (error != null) {
                    throw error instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(error);
                }
                return f;
            });
        } catch (RuntimeException | Error e) {
            // Failed while setting up (no STag left for the second registration, direct memory
            // exhausted): what was registered and allocated is given back, or each such failure
            // would keep STags and buffers for the RNIC's life. RDMA Writes already posted may
            // still read their sources, so the registrations go once those have completed. An
            // exposed chunk whose release was handed to PullCompletions is released there.
            if (out != null) {
                out.release();
            }
            Registrations notHandedOver = exposedAwaited[0] ? null : exposed;
            boolean releaseReply = !replyReleased;
            Runnable giveBack = () -> {
                sources.release();
                if (notHandedOver != null) {
                    notHandedOver.release();
                }
                if (releaseReply) {
                    reply.release();
                }
            };
            if (writes.isEmpty()) {
                giveBack.run();
            } else {
                CompletableFuture.allOf(writes.toArray(new CompletableFuture[0])).whenComplete((v, error) -> giveBack.run());
            }
            throw e;
        }
    }

    private static CompletableFuture<Void> allOf(List<CompletableFuture<Void>> writes, CompletableFuture<Void> sent) {
        writes.add(sent);
        return CompletableFuture.allOf(writes.toArray(new CompletableFuture[0]));
    }

    /**
     * The reduced Payload stream in one new buffer (the caller releases it), for a chunk to expose:
     * a Reply chunk or a responder-provided Read chunk holds a whole stream, so the eligible items
     * left in it keep their XDR padding (RPC-R-035).
     */
    private ByteBuf copy(List<XdrPiece> stream, int length) {
        ByteBuf out = alloc.directBuffer(Math.max(64, length));
        writeStream(stream, out);
        return out;
    }

    /** Appends the pieces' octets, DDP-eligible ones with their XDR padding (they stayed inline). */
    private static void writeStream(List<XdrPiece> stream, ByteBuf out) {
        for (XdrPiece p : stream) {
            int n = p.data().readableBytes();
            out.writeBytes(p.data(), p.data().readerIndex(), n);
            if (p.ddpEligible()) {
                out.writeZero(XdrMessage.padding(n));
            }
        }
    }

    /** RDMA_ERROR / ERR_CHUNK for a Call whose Reply cannot be conveyed. */
    private CompletableFuture<Form> sendError(int xid, int grant) {
        return sendHeader(endpoint, RpcRdmaHeader.RdmaError.errChunk(xid, VERSION, grant), alloc)
                .thenApply(v -> Form.ERR_CHUNK);
    }

    /** Sends a header alone, with plain Send. */
    static CompletableFuture<Void> sendHeader(RdmaEndpoint endpoint, RpcRdmaHeader header, ByteBufAllocator alloc) {
        ByteBuf out = alloc.directBuffer(RpcRdmaHeaderEncoder.encodedLength(header));
        RpcRdmaHeaderEncoder.encode(header, out);
        return endpoint.send(out, OptionalInt.empty());
    }

    /** An STag of this RPC the Reply's Send may invalidate, if remote invalidation was agreed. */
    private OptionalInt invalidateStag(ChunkLists callLists) {
        if (!endpoint.remoteInvalidation()) {
            return OptionalInt.empty(); // CMPD-R-009
        }
        for (WriteChunk w : callLists.writeList()) {
            if (!w.isEmpty()) {
                return OptionalInt.of(w.segments().get(0).handle());
            }
        }
        if (callLists.replyChunk().isPresent() && !callLists.replyChunk().get().isEmpty()) {
            return OptionalInt.of(callLists.replyChunk().get().segments().get(0).handle());
        }
        if (!callLists.readList().isEmpty()) {
            return OptionalInt.of(callLists.readList().get(0).target().handle());
        }
        return OptionalInt.empty();
    }
}
