package org.iwarp4j.conformance.decode.internal;

import static org.iwarp4j.nfs.v4.Nfs4Constants.CB_COMPOUND;
import static org.iwarp4j.nfs.v4.Nfs4Constants.CB_NULL;
import static org.iwarp4j.nfs.v4.Nfs4Constants.CB_VERSION;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.iwarp4j.conformance.decode.Check;
import org.iwarp4j.nfs.binding.DdpEligibleItem;
import org.iwarp4j.nfs.binding.LegacyNfsBinding;
import org.iwarp4j.nfs.binding.Nfs4Binding;
import org.iwarp4j.nfs.binding.Nfs4OperationBinding;
import org.iwarp4j.nfs.binding.NfsBindingConstants;
import org.iwarp4j.nfs.binding.ProcedureBinding;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.internal.RpcCallHeader;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.HeaderLimits;
import org.iwarp4j.rpcrdma.internal.wire.InlineThresholds;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.ReadSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;

/**
 * RPC-over-RDMA version 1 on one connection (RFC 8166), with the ONC RPC message (RFC 5531) and,
 * for NFS, the procedure or COMPOUND operation names and the RFC 8267 binding. Each RDMA Send is
 * one RPC-over-RDMA message. Calls may go either way (the backward direction of RFC 8167 runs
 * from server to client), so Requester state is kept per direction: outstanding XIDs and the
 * credits the other side granted.
 */
final class RpcTracker {

    private static final String[] PROCEDURES = {"RDMA_MSG", "RDMA_NOMSG", "RDMA_MSGP", "RDMA_DONE", "RDMA_ERROR"};

    /**
     * A Call whose Reply has not been seen. {@code written} counts the octets RDMA Writes placed in
     * each of its Write chunks, the Reply chunk last; {@code compound} is the walk of an NFSv4
     * COMPOUND's arguments, null for anything else.
     */
    private record PendingCall(int xid, long frame, int program, int version, int procedure, ChunkLists chunks,
                               Nfs4Compound.Call compound, long[] written, ReplyChunkOctets replyOctets) {
        PendingCall(int xid, long frame, int program, int version, int procedure, ChunkLists chunks,
                    Nfs4Compound.Call compound) {
            this(xid, frame, program, version, procedure, chunks, compound, new long[chunks.writeList().size() + 1],
                    chunks.replyChunk().map(ReplyChunkOctets::new).orElse(null));
        }

        boolean isCompound() {
            return compound != null;
        }
    }

    /**
     * At most this many octets of RDMA Writes into the Reply chunks of one side's outstanding Calls
     * are kept. A Reply chunk's contents wait for its RDMA_NOMSG Reply; a Call that is never answered
     * would otherwise hold its octets to the end of the capture. Writes beyond it are counted, not
     * kept, and their Reply is then not decoded (its line says so).
     */
    static final long REPLY_CHUNK_BUDGET = 16L << 20;

    /**
     * At most this many octets of Long Calls (RFC 8166 §3.5.3) are kept per Requester while the
     * Responder reads them: each is held whole until its last Read Response, and a Call whose chunk
     * is never read would hold its octets to the end of the capture. A Long Call beyond it is noted
     * and not decoded.
     */
    static final long LONG_CALL_BUDGET = 16L << 20;

    /**
     * At most this many Calls of one Requester are kept waiting for their Replies. Servers grant
     * tens to hundreds of credits (RPC-R-003); a capture whose Replies are lost, or a Requester that
     * never gets any, would otherwise hold every Call to the end. Past it the oldest is forgotten,
     * and from then on transfers and Replies that match no Call are not held against anyone.
     */
    static final int MAX_OUTSTANDING = 1 << 14;

    /** Where a segment an outstanding Call offered belongs: its XID and chunk (the Write list's size: Reply chunk). */
    private record WriteTarget(int xid, int chunk) {
    }

    /** Where a Read segment an outstanding Call offered belongs: its XID and the chunk's Position. */
    private record ReadTarget(int xid, long position) {
    }

    /** A segment of a Long Call's Position-zero chunk: its XID, and where the segment's octets go in the message. */
    private record LongCallPlace(int xid, LongCallOctets octets, RdmaSegment segment, long position) {
    }

    /** Requester state of the side that sends Calls in one direction. */
    private static final class Requester {
        final Map<Integer, PendingCall> outstanding = new LinkedHashMap<>();
        /** The segments of their Write chunks and Reply chunks, and of their Read lists, by handle. */
        final OfferedSegments<WriteTarget> writable = new OfferedSegments<>();
        final OfferedSegments<ReadTarget> readable = new OfferedSegments<>();
        long granted = 1; // RPC-R-012: one credit until the first Reply
        boolean afterGap;
        /** Whether Calls were forgotten past {@link #MAX_OUTSTANDING}. */
        boolean forgot;
        /** Octets held in the Reply chunks of the outstanding Calls. */
        long replyChunkHeld;
        /** The outstanding Long Calls whose message has not all been read yet, by XID. */
        final Map<Integer, LongCallOctets> longCalls = new LinkedHashMap<>();
        /**
         * Their segments by handle: a Read Response segment finds its place in O(log n), not by a
         * walk over every segment of every Long Call (zero-length ones cost nothing against the
         * budget, and a Call may list thousands).
         */
        final OfferedSegments<LongCallPlace> longCallSegments = new OfferedSegments<>();
        /** Octets held for them. */
        long longCallHeld;

        void keepLongCall(int xid, LongCallOctets octets) {
            forgetLongCall(xid);
            longCalls.put(xid, octets);
            longCallHeld += octets.length();
            long position = 0;
            for (RdmaSegment s : octets.segments()) {
                longCallSegments.add(xid, s, new LongCallPlace(xid, octets, s, position));
                position += s.length();
            }
        }

        void forgetLongCall(int xid) {
            LongCallOctets longCall = longCalls.remove(xid);
            if (longCall != null) {
                longCallHeld -= longCall.length();
                longCallSegments.removeOwner(xid);
            }
        }

        /**
         * Keeps {@code call} until its Reply, in place of an earlier one of its XID; returns the Call
         * forgotten to stay within {@link #MAX_OUTSTANDING}, or null.
         */
        PendingCall open(PendingCall call) {
            PendingCall earlier = outstanding.put(call.xid(), call);
            if (earlier != null && earlier.replyOctets() != null && earlier.replyOctets() != call.replyOctets()) {
                replyChunkHeld -= earlier.replyOctets().held;
            }
            writable.removeOwner(call.xid());
            readable.removeOwner(call.xid());
            List<WriteChunk> writeList = call.chunks().writeList();
            for (int i = 0; i <= writeList.size(); i++) {
                List<RdmaSegment> segments = i < writeList.size() ? writeList.get(i).segments()
                        : call.chunks().replyChunk().map(WriteChunk::segments).orElse(List.of());
                for (RdmaSegment seg : segments) {
                    writable.add(call.xid(), seg, new WriteTarget(call.xid(), i));
                }
            }
            for (ReadSegment r : call.chunks().readList()) {
                readable.add(call.xid(), r.target(), new ReadTarget(call.xid(), r.position()));
            }
            if (outstanding.size() <= MAX_OUTSTANDING) {
                return null;
            }
            afterGap = true;
            forgot = true;
            return answer(outstanding.keySet().iterator().next());
        }

        PendingCall answer(int xid) {
            PendingCall call = outstanding.remove(xid);
            if (call != null) {
                writable.removeOwner(xid);
                readable.removeOwner(xid);
            }
            if (call != null && call.replyOctets() != null) {
                replyChunkHeld -= call.replyOctets().held;
            }
            forgetLongCall(xid);
            return call;
        }
    }

    private final int index;
    private final Findings out;
    private final InlineThresholds thresholds;
    private final RpcRdmaHeaderDecoder decoder =
            new RpcRdmaHeaderDecoder(new HeaderLimits(1 << 16, 1 << 12, 1 << 16, Long.MAX_VALUE));
    private final Requester client = new Requester();
    private final Requester server = new Requester();
    private final boolean midStream;

    RpcTracker(int index, Findings out, RpcRdmaPrivateData clientData, RpcRdmaPrivateData serverData,
               boolean midStream) {
        this.index = index;
        this.out = out;
        this.thresholds = InlineThresholds.negotiate(clientData, serverData);
        this.midStream = midStream;
        if (midStream) {
            client.afterGap = true;
            server.afterGap = true;
        }
    }

    InlineThresholds thresholds() {
        return thresholds;
    }

    void lostSync(boolean fromClient) {
        (fromClient ? client : server).afterGap = true;
        (fromClient ? server : client).afterGap = true;
    }

    /** One complete Send: its transport header and the RPC message; returns the summary text. */
    String send(boolean fromClient, long frame, byte[] message, Map<String, Map<String, Object>> layers) {
        ByteBuf buf = Unpooled.wrappedBuffer(message);
        try {
            return send(fromClient, frame, message.length, buf, layers);
        } finally {
            buf.release();
        }
    }

    private String send(boolean fromClient, long frame, int length, ByteBuf buf,
            Map<String, Map<String, Object>> layers) {
        String dir = fromClient ? ConnectionDecoder.I_TO_R : ConnectionDecoder.R_TO_I;
        int threshold = fromClient ? thresholds.callThreshold() : thresholds.replyThreshold();
        // RDMAP payload: the transport header and the Payload stream together (RPC-R-045).
        String overThreshold = length <= threshold ? null : "a Send of " + length + " octets; the inline threshold "
                + (fromClient ? "client to server" : "server to client") + " is " + threshold;
        HeaderDecodeResult result = decoder.decode(buf);
        if (overThreshold != null && !(result instanceof HeaderDecodeResult.Decoded d
                && (d.header() instanceof RpcRdmaHeader.RdmaMsg || d.header() instanceof RpcRdmaHeader.RdmaNomsg))) {
            out.violation(Check.RPC_INLINE_THRESHOLD, frame, index, dir, overThreshold);
            overThreshold = null;
        }
        if (result instanceof HeaderDecodeResult.Rejected r) {
            Check check = switch (r.problem()) {
                case VERSION_NOT_SUPPORTED, RDMA_ERROR_OF_OTHER_VERSION -> Check.RPC_VERSION;
                case LIMIT_EXCEEDED -> null;
                // The header decoder compares the two XIDs itself (RFC 8166 §4.5.2) and says so in its detail.
                default -> r.detail().contains("but the RPC message has XID") ? Check.RPC_XID : Check.RPC_HEADER;
            };
            if (check != null) {
                out.violation(check, frame, index, dir, "transport header not accepted: " + r);
            } else {
                out.note(frame, index, dir, "transport header beyond the decoder's limits: " + r);
            }
            layers.put("rpcrdma", Findings.fields("rejected", r.toString()));
            if (!fromClient && length >= RpcRdmaConstants.MIN_HEADER_LENGTH) {
                // A Reply whose header is turned down ends its Call here (rdma_xid comes first in every
                // version, RFC 8166 §4.2.1, §7): our Requester and Linux's fail the RPC when a version 1 Reply
                // cannot be decoded, and a Call left outstanding would count against the credits (RPC-R-003)
                // to the end. A Requester that only drops the Reply (RPC-R-060) still counts the Call, so
                // RPC-R-003 is judged leniently after one. Only a message from the server ends a Call, a
                // forward one, as a Reply from it would: from the client a turned-down header is as likely a
                // forward Call as a Reply, and ending the server's backward Call of its XID would leave that
                // Call's true Reply answering none. Below the minimal header the XID is not trusted (RPC-R-058).
                client.answer(r.xid());
            }
            return "RPC-over-RDMA: " + r.problem();
        }
        RpcRdmaHeader h = ((HeaderDecodeResult.Decoded) result).header();
        Map<String, Object> rr = Findings.fields("xid", xid(h.xid()), "version", Integer.toUnsignedLong(h.version()),
                "credits", Integer.toUnsignedLong(h.credits()), "procedure", PROCEDURES[h.procedure().ordinal()]);
        layers.put("rpcrdma", rr);
        StringBuilder s = new StringBuilder(PROCEDURES[h.procedure().ordinal()]).append(" xid ").append(xid(h.xid()))
                .append(" cr ").append(Integer.toUnsignedLong(h.credits()));
        ChunkLists chunks = chunks(h);
        if (chunks != null && !chunks.isEmpty()) {
            rr.put("readList", chunks.readList().toString());
            rr.put("writeList", chunks.writeList().toString());
            rr.put("replyChunk", chunks.replyChunk().map(Object::toString).orElse("none"));
            s.append(chunkText(chunks));
        }
        switch (h.procedure()) {
            case RDMA_MSGP, RDMA_DONE -> {
                out.violation(Check.RPC_DEPRECATED_PROCEDURE, frame, index, dir, h.procedure() + " sent");
                return s.toString();
            }
            default -> {
            }
        }
        Requester self = fromClient ? client : server;
        Requester peer = fromClient ? server : client;
        if (h instanceof RpcRdmaHeader.RdmaError e) {
            rr.put("error", e.error().toString());
            s.append(' ').append(e.error());
            PendingCall call = peer.answer(h.xid());
            // Only a Responder answers with RDMA_ERROR: the client is one only for the server's backward Calls.
            boolean ownCall = self.outstanding.containsKey(h.xid());
            boolean noCallToAnswer = fromClient && peer.outstanding.isEmpty() && !peer.afterGap && !self.afterGap;
            if (call == null && (ownCall || noCallToAnswer)) {
                out.violation(Check.RPC_REQUESTER_ERROR, frame, index, dir, "RDMA_ERROR about xid " + xid(h.xid())
                        + (ownCall ? ", a Call this side sent itself" : " from the client, which has no backward"
                        + " Call to answer"));
            }
            credits(peer, h, frame, dir);
            return s.toString();
        }
        boolean isCall;
        String rpcText;
        int messageStart = buf.readerIndex();
        if (h instanceof RpcRdmaHeader.RdmaMsg) {
            if (buf.readableBytes() >= 8) {
                int rpcXid = buf.getInt(buf.readerIndex());
                int type = buf.getInt(buf.readerIndex() + 4);
                if (rpcXid != h.xid()) {
                    out.violation(Check.RPC_XID, frame, index, dir, "rdma_xid " + xid(h.xid()) + ", RPC xid "
                            + xid(rpcXid));
                }
                isCall = type == RpcConstants.CALL;
            } else {
                out.violation(Check.RPC_HEADER, frame, index, dir, "RDMA_MSG with " + buf.readableBytes()
                        + " octets of Payload stream: no RPC message");
                return s.toString();
            }
        } else {
            // RDMA_NOMSG: the RPC message is in a chunk; a Reply answers one of the peer's Calls.
            isCall = !peer.outstanding.containsKey(h.xid());
        }
        if (isCall) {
            if (overThreshold != null) {
                out.violation(Check.RPC_INLINE_THRESHOLD, frame, index, dir, overThreshold);
            }
            PendingCall call = call(h, buf, messageStart, frame, dir, layers);
            rpcText = call == null ? "CALL (in a chunk)" : "CALL " + callName(call) + callOperations(call);
            if (call == null) {
                call = new PendingCall(h.xid(), frame, -1, -1, -1, chunks == null ? ChunkLists.NONE : chunks, null);
                if (h instanceof RpcRdmaHeader.RdmaNomsg) {
                    awaitLongCall(self, call, frame, dir);
                }
            }
            callChecks(self, call, frame, dir);
            boolean forgotBefore = self.forgot;
            PendingCall forgotten = self.open(call);
            if (forgotten != null && !forgotBefore) {
                out.note(frame, index, dir, "more than " + MAX_OUTSTANDING + " Calls outstanding: the oldest (xid "
                        + xid(forgotten.xid()) + ", frame " + forgotten.frame() + ") and those that follow it are"
                        + " forgotten, and RDMA transfers and Replies that match no Call are not reported from here on");
            }
            if (!self.afterGap && self.outstanding.size() > self.granted) {
                out.violation(Check.RPC_CREDITS, frame, index, dir, self.outstanding.size()
                        + " Calls outstanding, the peer granted " + self.granted);
            }
        } else {
            PendingCall call = peer.answer(h.xid());
            if (overThreshold != null) {
                // RFC 8166 §3.5.3: with a Reply chunk offered, a Reply too large to go inline goes through it.
                boolean replyChunk = call != null && call.chunks().replyChunk().isPresent();
                out.violation(replyChunk ? Check.RPC_REPLY_CHUNK_USED : Check.RPC_INLINE_THRESHOLD, frame, index,
                        dir, overThreshold + (replyChunk ? ", and the Call (frame " + call.frame()
                        + ") offered a Reply chunk" : ""));
            }
            rpcText = "REPLY" + (call == null ? "" : " to " + callName(call) + " (frame " + call.frame() + ")")
                    + reply(h, buf, call, frame, dir, layers, peer.afterGap || self.afterGap || midStream);
            credits(peer, h, frame, dir);
            if (call == null && !peer.afterGap && !midStream) {
                out.note(frame, index, dir, "Reply to xid " + xid(h.xid()) + ", which no Call in the capture has");
            }
        }
        return s + " | " + rpcText;
    }

    private void credits(Requester requester, RpcRdmaHeader h, long frame, String dir) {
        long granted = Integer.toUnsignedLong(h.credits());
        if (granted == 0) {
            out.violation(Check.RPC_ZERO_CREDITS, frame, index, dir, "a Reply granting 0 credits");
            return;
        }
        requester.granted = granted;
    }

    private static ChunkLists chunks(RpcRdmaHeader h) {
        if (h instanceof RpcRdmaHeader.RdmaMsg m) {
            return m.chunks();
        }
        if (h instanceof RpcRdmaHeader.RdmaNomsg m) {
            return m.chunks();
        }
        if (h instanceof RpcRdmaHeader.RdmaMsgp m) {
            return m.chunks();
        }
        return null;
    }

    private static String chunkText(ChunkLists c) {
        StringBuilder s = new StringBuilder();
        if (!c.readList().isEmpty()) {
            s.append(" read[");
            for (ReadSegment r : c.readList()) {
                s.append(" @").append(r.position()).append(' ').append(segment(r.target()));
            }
            s.append(" ]");
        }
        if (!c.writeList().isEmpty()) {
            s.append(" write[");
            for (WriteChunk w : c.writeList()) {
                s.append(" {");
                for (RdmaSegment seg : w.segments()) {
                    s.append(' ').append(segment(seg));
                }
                s.append(" }");
            }
            s.append(" ]");
        }
        c.replyChunk().ifPresent(w -> {
            s.append(" reply{");
            for (RdmaSegment seg : w.segments()) {
                s.append(' ').append(segment(seg));
            }
            s.append(" }");
        });
        return s.toString();
    }

    private static String segment(RdmaSegment s) {
        return String.format("0x%08x:%d@0x%x", s.handle(), s.length(), s.offset());
    }

    private static String xid(int xid) {
        return String.format("0x%08x", xid);
    }

    /** Decodes the RPC call header of an RDMA_MSG; null for RDMA_NOMSG or an undecodable one. */
    private PendingCall call(RpcRdmaHeader h, ByteBuf buf, int messageStart, long frame, String dir,
            Map<String, Map<String, Object>> layers) {
        if (!(h instanceof RpcRdmaHeader.RdmaMsg m)) {
            return null;
        }
        Set<Long> positions = new HashSet<>();
        m.chunks().readList().forEach(r -> positions.add(r.position()));
        return call(h.xid(), m.chunks(), positions, buf, messageStart, frame, frame, dir, layers);
    }

    /**
     * Decodes the RPC call header at {@code buf}'s reader index (the message starts at {@code
     * messageStart}; Read chunks stand at {@code positions} of it) into the Call of transport XID
     * {@code xid} sent in frame {@code callFrame}; null if it is undecodable (a note at {@code
     * frame} says why).
     */
    private PendingCall call(int xid, ChunkLists chunks, Set<Long> positions, ByteBuf buf, int messageStart,
            long callFrame, long frame, String dir, Map<String, Map<String, Object>> layers) {
        try {
            ByteBuf copy = buf.duplicate();
            RpcCallHeader c = RpcCallHeader.decode(new XdrDecoder(copy));
            layers.put("rpc", Findings.fields("type", "CALL", "xid", xid(c.xid()), "rpcVersion", c.rpcVersion(),
                    "program", c.program(), "version", c.version(), "procedure", c.procedure(),
                    "name", procedureName(c.program(), c.version(), c.procedure())));
            buf.readerIndex(copy.readerIndex()); // leave buf at the procedure's arguments
            Nfs4Compound.Call compound = null;
            if (c.program() == NfsBindingConstants.NFS_PROGRAM && c.version() == 4
                    && c.procedure() == Nfs4Binding.PROC_COMPOUND) {
                try {
                    compound = Nfs4Compound.call(buf, messageStart, positions);
                } catch (RuntimeException e) {
                    out.note(frame, index, dir, "COMPOUND arguments not decoded: " + e.getMessage());
                }
            } else if (Nfs4Compound.isCallbackProgram(c.program()) && c.version() == CB_VERSION
                    && c.procedure() == CB_COMPOUND) {
                // The backward direction (RFC 8167): the server calls the client's callback program.
                try {
                    compound = Nfs4Compound.callbackCall(buf);
                } catch (RuntimeException e) {
                    out.note(frame, index, dir, "CB_COMPOUND arguments not decoded: " + e.getMessage());
                }
            }
            return new PendingCall(xid, callFrame, c.program(), c.version(), c.procedure(), chunks, compound);
        } catch (RuntimeException e) {
            out.note(frame, index, dir, "RPC call header not decoded: " + e.getMessage());
            return null;
        }
    }

    /**
     * An RDMA_NOMSG Call with a Read chunk at Position zero is a Long Call (RFC 8166 §3.5.3,
     * RPC-R-031, RPC-R-033): its RPC message comes in the Read Responses to the Responder's Read
     * Requests. Keeps room for it, within {@link #LONG_CALL_BUDGET}.
     */
    private void awaitLongCall(Requester self, PendingCall call, long frame, String dir) {
        List<RdmaSegment> chunk = new ArrayList<>();
        call.chunks().readList().stream().filter(r -> r.position() == 0).forEach(r -> chunk.add(r.target()));
        if (chunk.isEmpty()) {
            return;
        }
        long length = LongCallOctets.length(chunk, LONG_CALL_BUDGET - self.longCallHeld);
        if (length < 0) {
            out.note(frame, index, dir, "the Long Call xid " + xid(call.xid()) + " is beyond the decoder's budget of "
                    + LONG_CALL_BUDGET + " octets of Long Calls held at once: its message is not decoded");
            return;
        }
        if (length > 0) {
            self.keepLongCall(call.xid(), new LongCallOctets(chunk, (int) length));
        }
    }

    /**
     * An RDMA Read Response segment from one side, carrying octets the Responder read from {@code
     * [sourceTo, ...)} of STag {@code sourceStag} (the source of the Read Request it answers): if they
     * belong to the Position-zero chunk of one of that side's outstanding Long Calls, they are kept;
     * the last of them completes the Call's RPC message, which is then decoded as an inline Call's
     * is (the Call's Reply is then named by it). Returns the text for the summary line, or "".
     */
    String rdmaReadResponse(boolean fromClient, long frame, int sourceStag, long sourceTo, byte[] ulpdu,
            int payloadStart, Map<String, Map<String, Object>> layers) {
        Requester requester = fromClient ? client : server;
        int length = ulpdu.length - payloadStart;
        if (length == 0 || requester.longCalls.isEmpty()) {
            return "";
        }
        LongCallPlace place = requester.longCallSegments.find(sourceStag, sourceTo, length);
        if (place == null) {
            return "";
        }
        LongCallOctets octets = place.octets();
        octets.take(place.position() + (sourceTo - place.segment().offset()), ulpdu, payloadStart, length);
        if (!octets.complete()) {
            return "";
        }
        requester.forgetLongCall(place.xid());
        PendingCall pending = requester.outstanding.get(place.xid());
        return pending == null ? "" : longCall(requester, pending, octets.message(), frame, fromClient, layers);
    }

    /** Decodes a Long Call's complete RPC message and puts what it says in place of the undecoded Call. */
    private String longCall(Requester requester, PendingCall pending, byte[] message, long frame, boolean fromClient,
            Map<String, Map<String, Object>> layers) {
        String dir = fromClient ? ConnectionDecoder.I_TO_R : ConnectionDecoder.R_TO_I;
        ByteBuf buf = Unpooled.wrappedBuffer(message);
        try {
            if (buf.readableBytes() >= 4 && buf.getInt(0) != pending.xid()) {
                out.violation(Check.RPC_XID, frame, index, dir, "rdma_xid " + xid(pending.xid()) + " (frame "
                        + pending.frame() + "), RPC xid " + xid(buf.getInt(0)) + " in its Long Call");
            }
            Set<Long> positions = new HashSet<>();
            pending.chunks().readList().stream().filter(r -> r.position() != 0).forEach(r -> positions.add(r.position()));
            PendingCall decoded = call(pending.xid(), pending.chunks(), positions, buf, 0, pending.frame(), frame, dir,
                    layers);
            if (decoded == null) {
                return " | Long Call xid " + xid(pending.xid()) + " (frame " + pending.frame() + ") not decoded";
            }
            decoded = new PendingCall(decoded.xid(), decoded.frame(), decoded.program(), decoded.version(),
                    decoded.procedure(), decoded.chunks(), decoded.compound(), pending.written(), pending.replyOctets());
            requester.open(decoded); // same key: keeps its place in the order
            callChecks(requester, decoded, pending.frame(), dir);
            layers.get("rpc").put("longCallOctets", message.length);
            return " | Long Call xid " + xid(pending.xid()) + " (frame " + pending.frame() + ") complete: CALL "
                    + callName(decoded) + callOperations(decoded);
        } finally {
            buf.release();
        }
    }

    /** RFC 8267 §4 (ULB-R-006): which NFSv3 items a Call may move into Read chunks. */
    private void callChecks(Requester self, PendingCall call, long frame, String dir) {
        Nfs4Compound.Call c = call.compound();
        if (c != null && c.complete()) {
            // RFC 8267 §6.1 (ULB-R-012): a Read chunk may only carry WRITE data or CREATE's NF4LNK linkdata.
            for (ReadSegment r : call.chunks().readList()) {
                if (r.position() != 0 && !c.reducedPositions().contains(r.position())) {
                    out.violation(Check.ULB_NFS4_ELIGIBLE, frame, index, dir, "a Read chunk at Position "
                            + r.position() + ", where the COMPOUND has no WRITE data or CREATE linkdata"
                            + (c.eligiblePositions().isEmpty() ? "" : " (those stand at " + c.eligiblePositions()
                            + ")"));
                    break;
                }
            }
        }
        if (call.program() != NfsBindingConstants.NFS_PROGRAM || call.version() != 3) {
            return;
        }
        boolean positionNonZero = call.chunks().readList().stream().anyMatch(r -> r.position() != 0);
        if (positionNonZero && !LegacyNfsBinding.NFS_V3.isDdpEligible(call.procedure(),
                DdpEligibleItem.Direction.ARGUMENT)) {
            out.violation(Check.ULB_NFS3_ELIGIBLE, frame, index, dir, "NFSv3 " + procedureName(call.program(),
                    call.version(), call.procedure()) + " Call moves an argument into a Read chunk");
        }
    }

    private String reply(RpcRdmaHeader h, ByteBuf buf, PendingCall call, long frame, String dir,
            Map<String, Map<String, Object>> layers, boolean afterGap) {
        ChunkLists chunks = chunks(h);
        StringBuilder s = new StringBuilder();
        if (chunks == null) {
            return "";
        }
        if (!chunks.readList().isEmpty()) {
            out.violation(Check.RPC_REPLY_READ_LIST, frame, index, dir, "a Reply with " + chunks.readList().size()
                    + " Read segments");
        }
        long written = 0;
        if (call != null) {
            List<WriteChunk> offered = call.chunks().writeList();
            List<WriteChunk> returned = chunks.writeList();
            String problem = null;
            if (offered.size() != returned.size()) {
                problem = "the Call offered " + offered.size() + " Write chunks, the Reply returns " + returned.size();
            } else {
                for (int i = 0; i < offered.size() && problem == null; i++) {
                    List<RdmaSegment> o = offered.get(i).segments();
                    List<RdmaSegment> r = returned.get(i).segments();
                    if (o.size() != r.size()) {
                        problem = "Write chunk " + i + ": " + o.size() + " segments offered, " + r.size() + " returned";
                        break;
                    }
                    for (int j = 0; j < o.size(); j++) {
                        if (o.get(j).handle() != r.get(j).handle() || r.get(j).length() > o.get(j).length()) {
                            problem = "Write chunk " + i + " segment " + j + ": offered " + segment(o.get(j))
                                    + ", returned " + segment(r.get(j));
                            break;
                        }
                    }
                }
            }
            if (problem == null && !afterGap) {
                problem = writtenProblem(call, returned, chunks.replyChunk());
            }
            if (problem != null) {
                out.violation(Check.RPC_WRITE_CHUNKS_RETURNED, frame, index, dir, problem);
            }
            for (WriteChunk w : returned) {
                written += w.length();
            }
            if (call.program() == NfsBindingConstants.NFS_PROGRAM && call.version() == 3 && written > 0
                    && !LegacyNfsBinding.NFS_V3.isDdpEligible(call.procedure(), DdpEligibleItem.Direction.RESULT)) {
                out.violation(Check.ULB_NFS3_ELIGIBLE, frame, index, dir, "the Reply to NFSv3 "
                        + procedureName(call.program(), call.version(), call.procedure()) + " returns " + written
                        + " octets in Write chunks");
            }
        }
        if (h instanceof RpcRdmaHeader.RdmaMsg && buf.readableBytes() >= 8) {
            replyMessage(buf, call, written, chunks, frame, dir, layers, s, null);
        } else if (h instanceof RpcRdmaHeader.RdmaNomsg && call != null && call.replyOctets() != null
                && chunks.replyChunk().isPresent()) {
            byte[] message = replyChunkMessage(call, chunks.replyChunk().get(), frame, dir, s);
            if (message != null) {
                ByteBuf assembled = Unpooled.wrappedBuffer(message);
                try {
                    replyMessage(assembled, call, written, chunks, frame, dir, layers, s, h.xid());
                } finally {
                    assembled.release();
                }
            }
        }
        return s.toString();
    }

    /**
     * The RPC reply (RFC 5531) and what the program's results say: an NFSv3 procedure's status, a
     * READ's count, every operation of an NFSv4 COMPOUND with its status. The same for a reply that
     * came inline and one assembled from the Reply chunk ({@code chunkXid} is then the transport
     * header's XID, which the reply's must equal, RPC-R-038; null otherwise).
     */
    private void replyMessage(ByteBuf buf, PendingCall call, long written, ChunkLists chunks, long frame, String dir,
            Map<String, Map<String, Object>> layers, StringBuilder s, Integer chunkXid) {
        try {
            RpcReplyHeader r = RpcReplyHeader.decode(new XdrDecoder(buf));
            Map<String, Object> rpc = Findings.fields("type", "REPLY", "xid", xid(r.xid()));
            if (chunkXid != null) {
                rpc.put("replyChunkOctets", buf.writerIndex());
                if (r.xid() != chunkXid) {
                    out.violation(Check.RPC_XID, frame, index, dir, "rdma_xid " + xid(chunkXid)
                            + ", the RPC reply in the Reply chunk has XID " + xid(r.xid()));
                }
            }
            if (r instanceof RpcReplyHeader.Accepted a) {
                rpc.put("acceptStat", a.stat().toString());
                s.append(' ').append(a.stat());
                if (a.stat() == AcceptStat.SUCCESS && call != null) {
                    nfs3Status(call, buf, rpc, s);
                    readInline(call, buf, written, frame, dir, rpc, s);
                    if (call.isCompound()) {
                        compoundReply(call, chunks.writeList(), buf, frame, dir, rpc, s);
                    }
                }
            } else {
                rpc.put("denied", true);
                s.append(" DENIED");
            }
            layers.put("rpc", rpc);
        } catch (RuntimeException e) {
            out.note(frame, index, dir, "RPC reply header not decoded: " + e.getMessage());
        }
    }

    /**
     * RFC 1813 §3.3: every NFSv3 result but NULL's begins with an nfsstat3. Named when the table
     * knows it, the number otherwise.
     */
    private static void nfs3Status(PendingCall call, ByteBuf buf, Map<String, Object> rpc, StringBuilder s) {
        if (call.program() != NfsBindingConstants.NFS_PROGRAM || call.version() != 3 || call.procedure() == 0
                || buf.readableBytes() < 4) {
            return;
        }
        int status = buf.getInt(buf.readerIndex());
        rpc.put("nfsStatus", status);
        String name = "NFS3 status " + Integer.toUnsignedLong(status);
        for (Nfs3Status known : Nfs3Status.values()) {
            if (known.value() == status) {
                name = known.name();
            }
        }
        s.append(' ').append(name);
    }

    /**
     * The RPC reply a Responder wrote into the Reply chunk: the returned segments one after the
     * other, each as long as the RDMA_NOMSG header says it was filled (RFC 8166 §3.4.6, §3.5.3),
     * from the RDMA Writes kept for the Call. Null when the capture lacks some of those octets or
     * they were not kept: the line says how many, and a note where, instead of a guess; null too
     * when the segments add up to more octets than were written (a note says so).
     */
    private byte[] replyChunkMessage(PendingCall call, WriteChunk returned, long frame, String dir,
            StringBuilder s) {
        ReplyChunkOctets o = call.replyOctets();
        long total = returned.length();
        if (total == 0) {
            s.append(" (the Reply chunk returns no octets: no RPC reply)");
            return null;
        }
        if (o.dropped > 0) {
            s.append(" (Reply chunk not decoded: not kept)");
            out.note(frame, index, dir, "the Reply chunk of xid " + xid(call.xid()) + " is not decoded: "
                    + o.dropped + " octets of the RDMA Writes into it were not kept (the decoder keeps at most "
                    + (REPLY_CHUNK_BUDGET >> 20) + " MiB of Reply chunk octets per direction for Calls not yet"
                    + " answered)");
            return null;
        }
        WrittenMemory memory = o.memory();
        List<RdmaSegment> segments = returned.segments();
        long missing = 0;
        String firstGap = null;
        for (int k = 0; k < segments.size(); k++) {
            RdmaSegment seg = segments.get(k);
            long lacking = seg.length() - memory.written(seg.handle(), seg.offset(), seg.length());
            if (lacking > 0 && firstGap == null) {
                long[] g = memory.firstUnwritten(seg.handle(), seg.offset(), seg.length());
                firstGap = gap(k, seg, g[0], g[1]);
            }
            missing += lacking;
        }
        if (missing > 0) {
            s.append(" (Reply chunk: ").append(missing).append(" of ").append(total)
                    .append(" octets not in the capture; not decoded)");
            out.note(frame, index, dir, "the RPC reply in the Reply chunk of xid " + xid(call.xid()) + " lacks "
                    + missing + " of its " + total + " octets, first " + firstGap + ": no RDMA Write in the capture"
                    + " placed them, so the reply is not decoded");
            return null;
        }
        if (total > o.held) {
            // Every returned octet was written, so the segments name some written octets more than once
            // (one Write covers any number of identical segments): no reply is longer than what was
            // written for it. Refusing here also bounds the array below by what was kept, at most
            // REPLY_CHUNK_BUDGET.
            s.append(" (Reply chunk not decoded: ").append(total).append(" octets returned, ").append(o.held)
                    .append(" written)");
            out.note(frame, index, dir, "the Reply chunk of xid " + xid(call.xid()) + " is not decoded: its segments"
                    + " add up to " + total + " octets, more than the " + o.held + " octets RDMA Writes placed in it");
            return null;
        }
        byte[] message = new byte[(int) total];
        int at = 0;
        for (RdmaSegment seg : segments) {
            memory.copy(seg.handle(), seg.offset(), seg.length(), message, at);
            at += (int) seg.length();
        }
        return message;
    }

    private static String gap(int k, RdmaSegment seg, long from, long to) {
        return String.format("octets %d-%d of segment %d (0x%08x@0x%x)", from, to - 1, k, seg.handle(),
                seg.offset());
    }

    /**
     * RFC 8166 §3.4.6 (RPC-R-028): each returned segment length is what was written. The RDMA Writes
     * of the capture are the evidence: a Reply that claims more octets in a chunk than RDMA Writes
     * placed there (READ data "in the Write chunk" that never arrived) breaks it. Fewer is allowed:
     * a Responder may write into a chunk and then not use it (RPC-R-052).
     */
    private static String writtenProblem(PendingCall call, List<WriteChunk> returned, Optional<WriteChunk> reply) {
        for (int i = 0; i < returned.size(); i++) {
            if (returned.get(i).length() > call.written()[i]) {
                return "Write chunk " + i + " returned with " + returned.get(i).length() + " octets, RDMA Writes placed "
                        + call.written()[i] + " in it";
            }
        }
        long replyLength = reply.map(WriteChunk::length).orElse(0L);
        if (call.chunks().replyChunk().isPresent() && replyLength > call.written()[call.written().length - 1]) {
            return "Reply chunk returned with " + replyLength + " octets, RDMA Writes placed "
                    + call.written()[call.written().length - 1] + " in it";
        }
        return null;
    }

    /**
     * An NFSv4 COMPOUND Reply: every operation with its status, and the RFC 8267 §6.4.1 pairing of
     * READ-type operations (READ, READLINK) with the Write chunks: the k-th such operation uses the
     * k-th chunk (ULB-R-018), puts its data there when the chunk has segments (ULB-R-019), leaves a
     * chunk it had no data for empty (ULB-R-021), and no chunk beyond the READ-type operations
     * carries anything (ULB-R-012).
     */
    private void compoundReply(PendingCall call, List<WriteChunk> returned, ByteBuf buf, long frame, String dir,
            Map<String, Object> rpc, StringBuilder s) {
        List<Long> lengths = returned.stream().map(WriteChunk::length).toList();
        Nfs4Compound.Call c = call.compound();
        Nfs4Compound.Reply r;
        try {
            r = c.callback() ? Nfs4Compound.callbackReply(buf) : Nfs4Compound.reply(buf, lengths);
        } catch (RuntimeException e) {
            out.note(frame, index, dir, "COMPOUND results not decoded: " + e.getMessage());
            return;
        }
        rpc.put("nfs4Status", Nfs4Compound.status(r.status()));
        s.append(' ').append(Nfs4Compound.status(r.status())).append(':');
        List<String> ops = new ArrayList<>();
        for (Nfs4Compound.OpResult o : r.results()) {
            ops.add(c.name(o.opcode()) + " " + (o.status() == 0 ? "OK" : Nfs4Compound.status(o.status())));
        }
        rpc.put("operations", ops);
        s.append(' ').append(String.join(", ", ops));
        if (!r.complete()) {
            s.append(" ... (not decoded further)");
        }
        List<WriteChunk> offered = call.chunks().writeList();
        int k = 0;
        for (Nfs4Compound.OpResult o : r.results()) {
            if (c.callback() || !Nfs4Compound.isReadOperation(o.opcode())) {
                continue;
            }
            int chunk = k++;
            boolean hasSegments = chunk < offered.size() && !offered.get(chunk).segments().isEmpty();
            long inChunk = chunk < lengths.size() ? lengths.get(chunk) : 0;
            String which = Nfs4Compound.name(o.opcode()) + " (READ-type operation " + (chunk + 1) + ")";
            if (o.status() != 0) {
                if (inChunk > 0) {
                    out.violation(Check.ULB_EMPTY_CHUNK_ON_ERROR, frame, index, dir, which + " failed with "
                            + Nfs4Compound.status(o.status()) + ", its Write chunk " + chunk + " returns " + inChunk
                            + " octets");
                }
            } else if (hasSegments && o.itemLength() > 0 && inChunk == 0) {
                out.violation(Check.ULB_RESULT_IN_WRITE_CHUNK, frame, index, dir, which + " returned "
                        + o.itemLength() + " octets inline; the Call offered Write chunk " + chunk + " for them");
            } else if (hasSegments && inChunk > 0 && inChunk != o.itemLength()) {
                out.violation(Check.ULB_WRITE_CHUNK_ORDER, frame, index, dir, which + " returned "
                        + o.itemLength() + " octets, Write chunk " + chunk + " holds " + inChunk
                        + ": the k-th Write chunk belongs to the k-th READ-type operation");
            }
        }
        int readOps = c.complete() ? c.readOperations() : r.complete() ? k : Integer.MAX_VALUE;
        for (int i = readOps; i < lengths.size(); i++) {
            if (lengths.get(i) > 0) {
                out.violation(Check.ULB_NFS4_ELIGIBLE, frame, index, dir, "Write chunk " + i + " returns "
                        + lengths.get(i) + " octets; " + (c.callback()
                        ? "no callback operation has a DDP-eligible result (RFC 8267 §6.5)"
                        : "the COMPOUND has " + readOps + " READ or READLINK operations, nothing else may use a"
                        + " Write chunk"));
                break;
            }
        }
    }

    /**
     * RFC 8166 §4.3.2, RFC 8267 §4 (RPC-R-048): a READ3resok whose data came back inline although
     * the Call offered a Write chunk. READ3res: status, post_op_attr, count, eof, opaque data; when
     * the data went into the chunk the Payload stream keeps its length word only (RPC-R-017).
     */
    private void readInline(PendingCall call, ByteBuf buf, long written, long frame, String dir,
            Map<String, Object> rpc, StringBuilder s) {
        if (call.program() != NfsBindingConstants.NFS_PROGRAM || call.version() != 3
                || call.procedure() != 6 || buf.readableBytes() < 8) {
            return;
        }
        int r = buf.readerIndex();
        if (buf.getInt(r) != 0) {
            return; // nfs3Status named it
        }
        int pos = r + 4;
        boolean attributes = buf.getInt(pos) != 0;
        pos += 4 + (attributes ? 84 : 0);
        if (buf.writerIndex() < pos + 12) {
            return;
        }
        long count = Integer.toUnsignedLong(buf.getInt(pos));
        boolean eof = buf.getInt(pos + 4) != 0;
        long dataLength = Integer.toUnsignedLong(buf.getInt(pos + 8));
        long inline = buf.writerIndex() - (pos + 12L);
        rpc.put("count", count);
        rpc.put("eof", eof);
        s.append(" count ").append(count).append(eof ? " eof" : "");
        boolean offered = call.chunks().writeList().stream().anyMatch(w -> !w.segments().isEmpty());
        if (offered && count > 0 && written < count && inline >= dataLength && dataLength > 0) {
            out.violation(Check.RPC_RESULT_IN_WRITE_CHUNK, frame, index, dir, "READ returned " + dataLength
                    + " octets inline; the Call offered a Write chunk (" + written + " octets written to it)");
        }
    }

    private static String callName(PendingCall call) {
        return call.program() < 0 ? "(in a chunk)" : procedureName(call.program(), call.version(), call.procedure());
    }

    /** An NFSv4 COMPOUND's minor version and every operation's name (RFC 8881 §16.2). */
    private static String callOperations(PendingCall call) {
        Nfs4Compound.Call c = call.compound();
        if (c == null) {
            return "";
        }
        StringBuilder s = new StringBuilder(" minor ").append(c.minor()).append(':');
        for (int opcode : c.opcodes()) {
            s.append(' ').append(c.name(opcode));
        }
        if (!c.complete()) {
            s.append(" ... (not decoded further; the Call states ").append(c.count()).append(" operations)");
        }
        return s.toString();
    }

    static String procedureName(int program, int version, int procedure) {
        String prog = switch (program) {
            case NfsBindingConstants.NFS_PROGRAM -> "NFSv" + version;
            case NfsBindingConstants.MOUNT_PROGRAM -> "MOUNTv" + version;
            case NfsBindingConstants.NLM_PROGRAM -> "NLMv" + version;
            case NfsBindingConstants.NFSACL_PROGRAM -> "NFSACLv" + version;
            case 100000 -> "PORTMAPv" + version;
            default -> "prog " + Integer.toUnsignedLong(program) + " v" + version;
        };
        String proc = "proc " + procedure;
        if (program == NfsBindingConstants.NFS_PROGRAM && (version == 2 || version == 3)) {
            proc = LegacyNfsBinding.forVersion(version).procedure(procedure).map(ProcedureBinding::name).orElse(proc);
        } else if (program == NfsBindingConstants.NFS_PROGRAM && version == 4) {
            proc = procedure == 0 ? "NULL" : procedure == Nfs4Binding.PROC_COMPOUND ? "COMPOUND" : proc;
        } else if (Nfs4Compound.isCallbackProgram(program) && version == CB_VERSION) {
            // RFC 8881 §20: CB_NULL and CB_COMPOUND (by the client's choice of program number)
            prog = "NFSv4 callback";
            proc = procedure == CB_NULL ? "CB_NULL" : procedure == CB_COMPOUND ? "CB_COMPOUND" : proc;
        } else if (procedure == 0) {
            proc = "NULL";
        }
        return prog + " " + proc;
    }

    /**
     * An RDMA Write from one side: on an RPC-over-RDMA connection it answers a Call of the other
     * side and lands in a segment of that Call's Write list or Reply chunk (RFC 8166 §3.4.6,
     * §3.5.3, RPC-R-081), inside the segment's length. The octets are counted per chunk for the
     * Reply's lengths (RPC-R-028). Returns where it landed, for the summary line, or "".
     */
    String rdmaWrite(boolean fromClient, long frame, int stag, long to, byte[] ulpdu, int payloadStart) {
        int length = ulpdu.length - payloadStart;
        if (length == 0) {
            return "";
        }
        Requester requester = fromClient ? server : client;
        String dir = fromClient ? ConnectionDecoder.I_TO_R : ConnectionDecoder.R_TO_I;
        WriteTarget target = requester.writable.find(stag, to, length);
        PendingCall c = target == null ? null : requester.outstanding.get(target.xid());
        if (c != null) {
            int i = target.chunk();
            c.written()[i] += length;
            boolean replyChunk = i == c.chunks().writeList().size();
            if (replyChunk) {
                keep(requester, c.replyOctets(), stag, to, ulpdu, payloadStart, length);
            }
            return " -> xid " + xid(c.xid()) + (replyChunk ? " reply chunk" : " write chunk " + i);
        }
        RdmaSegment sameHandle = requester.writable.near(stag, to);
        if (!requester.afterGap && !(fromClient ? client : server).afterGap && !midStream) {
            out.violation(Check.RPC_WRITE_IN_CHUNK, frame, index, dir, String.format("RDMA Write of %d octets to"
                    + " STag 0x%08x TO 0x%x: ", length, stag, to) + (sameHandle == null
                    ? "no outstanding Call offered that handle in a Write or Reply chunk"
                    : "beyond the offered segment " + segment(sameHandle)));
        }
        return "";
    }

    /** Keeps a Write's octets for the Reply chunk's RDMA_NOMSG Reply, within both bounds. */
    private static void keep(Requester requester, ReplyChunkOctets o, int stag, long to, byte[] ulpdu, int from,
            int length) {
        if (!o.fits(length) || requester.replyChunkHeld + length > REPLY_CHUNK_BUDGET) {
            o.dropped += length;
            return;
        }
        o.keep(stag, to, Arrays.copyOfRange(ulpdu, from, from + length));
        requester.replyChunkHeld += length;
    }

    /**
     * An RDMA Read Request from one side: it pulls a segment of a Read chunk of the other side's
     * outstanding Call (RFC 8166 §3.4.5, RPC-R-082), inside the segment's length.
     */
    String rdmaReadRequest(boolean fromClient, long frame, int sourceStag, long sourceTo, long size) {
        if (size == 0) {
            return "";
        }
        Requester requester = fromClient ? server : client;
        String dir = fromClient ? ConnectionDecoder.I_TO_R : ConnectionDecoder.R_TO_I;
        ReadTarget target = requester.readable.find(sourceStag, sourceTo, size);
        if (target != null) {
            return " -> xid " + xid(target.xid()) + " read chunk @" + target.position();
        }
        RdmaSegment sameHandle = requester.readable.near(sourceStag, sourceTo);
        if (!requester.afterGap && !(fromClient ? client : server).afterGap && !midStream) {
            out.violation(Check.RPC_READ_IN_CHUNK, frame, index, dir, String.format("RDMA Read Request of %d octets"
                    + " from STag 0x%08x TO 0x%x: ", size, sourceStag, sourceTo) + (sameHandle == null
                    ? "no outstanding Call offered that handle in a Read chunk"
                    : "beyond the offered segment " + segment(sameHandle)));
        }
        return "";
    }
}
