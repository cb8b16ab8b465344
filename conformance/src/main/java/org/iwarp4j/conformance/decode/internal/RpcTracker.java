package org.iwarp4j.conformance.decode.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.iwarp4j.conformance.decode.Check;
import org.iwarp4j.nfs.binding.DdpEligibleItem;
import org.iwarp4j.nfs.binding.LegacyNfsBinding;
import org.iwarp4j.nfs.binding.Nfs4Binding;
import org.iwarp4j.nfs.binding.Nfs4OperationBinding;
import org.iwarp4j.nfs.binding.NfsBindingConstants;
import org.iwarp4j.nfs.binding.ProcedureBinding;
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

    /** A Call whose Reply has not been seen. */
    private record PendingCall(int xid, long frame, int program, int version, int procedure, ChunkLists chunks) {
    }

    /** Requester state of the side that sends Calls in one direction. */
    private static final class Requester {
        final Map<Integer, PendingCall> outstanding = new LinkedHashMap<>();
        long granted = 1; // RPC-R-012: one credit until the first Reply
        boolean afterGap;
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
        if (length > threshold) {
            out.violation(Check.RPC_INLINE_THRESHOLD, frame, index, dir, "a Send of " + length
                    + " octets; the inline threshold " + (fromClient ? "client to server" : "server to client")
                    + " is " + threshold);
        }
        HeaderDecodeResult result = decoder.decode(buf);
        if (result instanceof HeaderDecodeResult.Rejected r) {
            Check check = switch (r.problem()) {
                case VERSION_NOT_SUPPORTED -> Check.RPC_VERSION;
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
            PendingCall call = peer.outstanding.remove(h.xid());
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
            PendingCall call = call(h, buf, frame, dir, layers);
            rpcText = call == null ? "CALL (in a chunk)" : "CALL " + callName(call, buf);
            if (call == null) {
                call = new PendingCall(h.xid(), frame, -1, -1, -1, chunks == null ? ChunkLists.NONE : chunks);
            }
            callChecks(self, call, frame, dir);
            self.outstanding.put(h.xid(), call);
            if (!self.afterGap && self.outstanding.size() > self.granted) {
                out.violation(Check.RPC_CREDITS, frame, index, dir, self.outstanding.size()
                        + " Calls outstanding, the peer granted " + self.granted);
            }
        } else {
            PendingCall call = peer.outstanding.remove(h.xid());
            rpcText = "REPLY" + (call == null ? "" : " to " + callName(call, null) + " (frame " + call.frame() + ")")
                    + reply(h, buf, call, frame, dir, layers);
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
    private PendingCall call(RpcRdmaHeader h, ByteBuf buf, long frame, String dir,
            Map<String, Map<String, Object>> layers) {
        if (!(h instanceof RpcRdmaHeader.RdmaMsg m)) {
            return null;
        }
        try {
            ByteBuf copy = buf.duplicate();
            RpcCallHeader c = RpcCallHeader.decode(new XdrDecoder(copy));
            layers.put("rpc", Findings.fields("type", "CALL", "xid", xid(c.xid()), "rpcVersion", c.rpcVersion(),
                    "program", c.program(), "version", c.version(), "procedure", c.procedure(),
                    "name", procedureName(c.program(), c.version(), c.procedure())));
            buf.readerIndex(copy.readerIndex()); // leave buf at the procedure's arguments
            return new PendingCall(h.xid(), frame, c.program(), c.version(), c.procedure(), m.chunks());
        } catch (RuntimeException e) {
            out.note(frame, index, dir, "RPC call header not decoded: " + e.getMessage());
            return null;
        }
    }

    /** RFC 8267 §4 (ULB-R-006): which NFSv3 items a Call may move into Read chunks. */
    private void callChecks(Requester self, PendingCall call, long frame, String dir) {
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
            Map<String, Map<String, Object>> layers) {
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
            try {
                RpcReplyHeader r = RpcReplyHeader.decode(new XdrDecoder(buf));
                Map<String, Object> rpc = Findings.fields("type", "REPLY", "xid", xid(r.xid()));
                if (r instanceof RpcReplyHeader.Accepted a) {
                    rpc.put("acceptStat", a.stat().toString());
                    s.append(' ').append(a.stat());
                    if (a.stat() == AcceptStat.SUCCESS && call != null) {
                        readInline(call, buf, written, frame, dir, rpc, s);
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
        return s.toString();
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
        int status = buf.getInt(r);
        rpc.put("nfsStatus", status);
        if (status != 0) {
            s.append(" NFS3 status ").append(status);
            return;
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

    private static String callName(PendingCall call, ByteBuf args) {
        if (call.program() < 0) {
            return "(in a chunk)";
        }
        String name = procedureName(call.program(), call.version(), call.procedure());
        if (args != null && call.program() == NfsBindingConstants.NFS_PROGRAM && call.version() == 4
                && call.procedure() == Nfs4Binding.PROC_COMPOUND) {
            name += compound(args);
        }
        return name;
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
        } else if (procedure == 0) {
            proc = "NULL";
        }
        return prog + " " + proc;
    }

    /**
     * The first operations of an NFSv4 COMPOUND: tag, minorversion, the count, then each opcode as far
     * as operations without arguments, or with a fixed layout, let the decoder step over them.
     */
    private static String compound(ByteBuf args) {
        try {
            ByteBuf b = args.duplicate();
            int tagLength = b.readInt();
            b.skipBytes((tagLength + 3) & ~3);
            int minor = b.readInt();
            int count = b.readInt();
            List<String> names = new ArrayList<>();
            if (count > 0 && b.readableBytes() >= 4) {
                int opcode = b.readInt();
                Optional<Nfs4OperationBinding> op = Nfs4Binding.operation(opcode);
                names.add(op.map(Nfs4OperationBinding::name).orElse("op " + opcode));
            }
            return " minor " + minor + " " + count + " ops" + (names.isEmpty() ? "" : ", first " + names.get(0));
        } catch (RuntimeException e) {
            return "";
        }
    }
}
