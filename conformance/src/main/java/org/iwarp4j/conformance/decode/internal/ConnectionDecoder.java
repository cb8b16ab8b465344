package org.iwarp4j.conformance.decode.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.iwarp4j.conformance.decode.Check;
import org.iwarp4j.conformance.decode.ConnectionSummary;
import org.iwarp4j.ddp.DdpConstants;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.Mulpdu;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.mpa.internal.text.PeerText;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.RdmapConstants;
import org.iwarp4j.rdmap.internal.wire.RdmapControl;
import org.iwarp4j.rdmap.internal.wire.RdmapOpcode;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;

/**
 * Decodes and checks one iWARP connection: the MPA startup frames and their negotiation (RFC 5044
 * §7.1, RFC 6581), the FPDUs of both directions (RFC 5044 §4), the DDP segments in them (RFC 5041),
 * the RDMAP messages (RFC 5040), and, on an RPC-over-RDMA connection, the Sends' transport headers
 * and RPC messages ({@link RpcTracker}). Both directions are processed together in frame order, so
 * that rules linking them (startup ordering, Read Request and Response, Calls and Replies) can be
 * checked as a receiver would see them.
 */
final class ConnectionDecoder {

    static final String I_TO_R = "I>R";
    static final String R_TO_I = "R>I";
    private static final int NO_LIMIT = Integer.MAX_VALUE;

    private final int index;
    private final TcpConnections.Connection tcp;
    private final Findings out;

    private ByteStream initiatorStream;
    private ByteStream responderStream;
    private MpaStartupFrame request;
    private MpaStartupFrame reply;
    private long requestFrame = -1;
    private long replyFrame = -1;
    /** The S flag as sent (revision 2 or above), whatever the private data that follows. */
    private boolean requestS;
    private boolean replyS;
    private long requestEnd;
    private long replyEnd;
    private boolean crc;
    private boolean crcKnown = true;
    private final Direction toResponder = new Direction(I_TO_R);
    private final Direction toInitiator = new Direction(R_TO_I);
    private RpcTracker rpc;
    private String negotiated = "";
    private int units;
    private boolean rtrChecked;
    private long firstInitiatorFpduFrame = -1;
    private boolean initiatorEarlyReported;
    private boolean responderEarlyReported;

    /** Per-direction state: the sender's queues, its outstanding Read Requests, its limits. */
    private final class Direction {
        final String name;
        ByteStream stream;
        FpduReader reader;
        int ordLimit = NO_LIMIT;
        int mss = -1;
        final long[] expectedMsn = {DdpConstants.INITIAL_MSN, DdpConstants.INITIAL_MSN, DdpConstants.INITIAL_MSN};
        final boolean[] resync = new boolean[3];
        final long[] messageMsn = {-1, -1, -1};
        final long[] nextMo = new long[3];
        /** The Send in progress on queue 0, for RPC-over-RDMA. */
        final SendOctets send = new SendOctets();
        /**
         * The tagged message in progress, one for Writes [0] and one for Read Responses [1]: an RNIC
         * serves Read Requests apart from its send queue, so a Response's segments may come between
         * a Write's; two messages of one kind may not interleave (RDMAP-R-017 for Responses).
         */
        final boolean[] taggedInProgress = new boolean[2];
        final int[] taggedStag = new int[2];
        final long[] taggedNextTo = new long[2];
        /** Read Requests this side sent that the other has not answered yet. */
        final OutstandingReads outstandingReads = new OutstandingReads();
        /** This side's Read Responses to the other's Read Requests. */
        ReadResponses readResponses;
        boolean afterGap;
        long terminateFrame = -1;
        boolean afterTerminateReported;

        Direction(String name) {
            this.name = name;
        }

        Direction other() {
            return this == toResponder ? toInitiator : toResponder;
        }
    }

    private record Event(Direction direction, Fpdu fpdu) {
    }

    ConnectionDecoder(int index, TcpConnections.Connection tcp, Findings out) {
        this.index = index;
        this.tcp = tcp;
        this.out = out;
        toResponder.readResponses = new ReadResponses(out, index, I_TO_R, toInitiator.outstandingReads);
        toInitiator.readResponses = new ReadResponses(out, index, R_TO_I, toResponder.outstandingReads);
    }

    /** Whether the connection is iWARP as far as the decoder can tell: it starts with an MPA Request. */
    static boolean startsWithRequest(TcpConnections.Connection c) {
        return hasKey(c.client(), MpaConstants.requestKey()) || hasKey(c.server(), MpaConstants.requestKey());
    }

    private static boolean hasKey(ByteStream s, byte[] key) {
        if (s.length() < key.length || s.gapIn(0, key.length) != null) {
            return false;
        }
        return Arrays.equals(Arrays.copyOf(s.data(), key.length), key);
    }

    ConnectionSummary decode() {
        boolean swapped = !hasKey(tcp.client(), MpaConstants.requestKey()) && hasKey(tcp.server(), MpaConstants.requestKey());
        initiatorStream = swapped ? tcp.server() : tcp.client();
        responderStream = swapped ? tcp.client() : tcp.server();
        toResponder.stream = initiatorStream;
        toInitiator.stream = responderStream;
        toResponder.mss = responderStream.announcedMss();
        toInitiator.mss = initiatorStream.announcedMss();
        long iStart;
        long rStart;
        String found;
        if (hasKey(initiatorStream, MpaConstants.requestKey())) {
            found = "MPA Request";
            iStart = startup(toResponder, true);
            rStart = iStart < 0 ? -1 : startup(toInitiator, false);
            if (iStart >= 0 && rStart >= 0 && !reply.reject()) {
                negotiate();
            } else if (reply != null && reply.reject()) {
                negotiated = "rejected (R=1): no Full Operation";
                out.note(replyFrame, index, R_TO_I, "the Responder rejected the connection; what follows is not MPA");
            }
        } else {
            found = "port";
            iStart = 0;
            rStart = 0;
            crcKnown = false;
            negotiated = "mid-stream (no startup frames): markers assumed off, CRC "
                    + "judged from the first FPDU";
            toResponder.afterGap = true;
            toInitiator.afterGap = true;
            Arrays.fill(toResponder.resync, true);
            Arrays.fill(toInitiator.resync, true);
            if (tcp.server().destination().getPort() == 20049 || tcp.client().destination().getPort() == 20049) {
                rpc = new RpcTracker(index, out, RpcRdmaPrivateData.ABSENT, RpcRdmaPrivateData.ABSENT, true);
            }
        }
        for (Direction d : List.of(toResponder, toInitiator)) {
            if (d.stream.ignored() > 0) {
                out.note(tcp.firstFrame(), index, d.name, "TCP: " + d.stream.ignored() + " segments left out: their"
                        + " sequence numbers lie more than 256 MiB away from the rest of the stream");
            }
            if (d.stream.retransmitted() > 0 || d.stream.outOfOrder() > 0) {
                out.note(tcp.firstFrame(), index, d.name, "TCP: " + d.stream.retransmitted()
                        + " segments retransmitted (octets kept once), " + d.stream.outOfOrder()
                        + " out of order (put in place)");
            }
        }
        List<Event> events = new ArrayList<>();
        if (iStart >= 0 && rStart >= 0 && (reply == null || !reply.reject())) {
            if (toResponder.reader == null) {
                toResponder.reader = new FpduReader(initiatorStream, iStart, false);
                toInitiator.reader = new FpduReader(responderStream, rStart, false);
            }
            frames(toResponder, iStart, events);
            frames(toInitiator, rStart, events);
        }
        events.sort(Comparator.comparingLong((Event e) -> e.fpdu().frame()).thenComparingLong(e -> e.fpdu().start()));
        for (Event e : events) {
            process(e.direction(), e.fpdu());
        }
        long missing = 0;
        for (ByteStream s : List.of(initiatorStream, responderStream)) {
            for (ByteStream.Gap g : s.gaps()) {
                missing += g.length();
            }
        }
        return new ConnectionSummary(index, address(initiatorStream.source()), address(responderStream.source()),
                tcp.firstFrame(), found, negotiated, units, missing);
    }

    private static String address(InetSocketAddress a) {
        String host = a.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    // ---------------------------------------------------------------- startup frames

    /** Reads the startup frame at offset 0 of a direction; returns the offset of Full Operation, or -1. */
    private long startup(Direction d, boolean isRequest) {
        ByteStream s = d.stream;
        String dir = d.name;
        if (s.length() == 0) {
            out.note(-1, index, dir, isRequest ? "no MPA Request captured" : "no MPA Reply captured");
            return -1;
        }
        if (!isRequest && !hasKey(s, MpaConstants.replyKey())) {
            if (s.length() >= MpaConstants.KEY_LENGTH && s.gapIn(0, MpaConstants.KEY_LENGTH) == null) {
                out.violation(Check.MPA_REPLY_KEY, s.frameAt(0), index, dir, "the Responder's first octets are \""
                        + PeerText.escape(new String(s.data(), 0, MpaConstants.KEY_LENGTH, StandardCharsets.ISO_8859_1))
                        + "\", not the Reply key");
            } else {
                out.note(s.frameAt(0), index, dir, "the Reply is not in the capture");
            }
            return -1;
        }
        int header = MpaConstants.STARTUP_FRAME_HEADER_LENGTH;
        if (s.length() < header || s.gapIn(0, header) != null) {
            out.note(s.frameAt(0), index, dir, "the capture ends inside the startup frame header");
            return -1;
        }
        byte[] data = s.data();
        int flags = data[16] & 0xff;
        int revision = data[17] & 0xff;
        int pdLength = (data[18] & 0xff) << 8 | data[19] & 0xff;
        long end = header + (long) pdLength;
        if (s.length() < end || s.gapIn(header, end) != null) {
            out.note(s.frameAt(0), index, dir, "the capture lacks part of the startup frame's " + pdLength
                    + " octets of private data");
            return -1;
        }
        long frame = s.frameAt(end - 1);
        byte[] pd = Arrays.copyOfRange(data, header, (int) end);
        boolean enhancedFlag = (flags & MpaConstants.FLAG_ENHANCED) != 0 && revision >= MpaConstants.REVISION_2;
        // MpaStartupFrame holds only what the stack would accept; the violations below are reported from
        // the octets, and the frame is kept without the parts that break it.
        int usable = enhancedFlag && pdLength < MpaConstants.ENHANCED_DATA_LENGTH
                ? flags & ~MpaConstants.FLAG_ENHANCED : flags;
        MpaStartupFrame f = MpaStartupFrame.fromWire(isRequest, usable, revision,
                pdLength > MpaConstants.MAX_PRIVATE_DATA ? Arrays.copyOf(pd, MpaConstants.MAX_PRIVATE_DATA) : pd);
        String name = isRequest ? "Request" : "Reply";
        if (isRequest) {
            request = f;
            requestFrame = frame;
            requestS = enhancedFlag;
            requestEnd = end;
        } else {
            reply = f;
            replyFrame = frame;
            replyS = enhancedFlag;
            replyEnd = end;
        }
        // MPA-R-049: bits 3..0 are reserved at every revision; S (0x10) only means something at revision 2.
        int reservedMask = revision >= MpaConstants.REVISION_2 ? 0x0f : 0x1f;
        if ((flags & reservedMask) != 0) {
            out.violation(Check.MPA_RESERVED_FLAGS, frame, index, dir, String.format(
                    "%s flags 0x%02x: reserved bits 0x%02x set (rev %d)", name, flags, flags & reservedMask, revision));
        }
        if (revision != MpaConstants.REVISION_1 && revision != MpaConstants.REVISION_2) {
            out.violation(Check.MPA_REVISION, frame, index, dir, name + " Rev " + revision + ": MPA has revisions 1"
                    + " (RFC 5044) and 2 (RFC 6581)");
        }
        if (pdLength > MpaConstants.MAX_PRIVATE_DATA) {
            out.violation(Check.MPA_PRIVATE_DATA_LENGTH, frame, index, dir, name + " PD_Length " + pdLength
                    + " > 512");
        }
        EnhancedConnectionData ecd = null;
        if (enhancedFlag && pdLength < MpaConstants.ENHANCED_DATA_LENGTH) {
            out.violation(Check.MPA2_ENHANCED_DATA, frame, index, dir, name + " has the enhanced flag but "
                    + pdLength + " octets of private data");
        } else if (enhancedFlag) {
            ecd = f.enhancedData();
        }
        Map<String, Object> mpa = Findings.fields("frame", name, "key", isRequest ? "MPA ID Req Frame" : "MPA ID Rep Frame",
                "flags", String.format("0x%02x", flags), "M", f.markers(), "C", f.crc(), "R", f.reject(),
                "S", enhancedFlag, "rev", revision, "pdLength", pdLength);
        StringBuilder summary = new StringBuilder("MPA ").append(name).append(" rev ").append(revision)
                .append(String.format(" flags 0x%02x", flags)).append(flagNames(f, enhancedFlag))
                .append(" PD ").append(pdLength);
        if (ecd != null) {
            mpa.put("ird", ecd.ird());
            mpa.put("ord", ecd.ord());
            mpa.put("peerToPeer", ecd.peerToPeer());
            mpa.put("rtr", ecd.rtrTypes().toString());
            summary.append(": IRD ").append(irdOrd(ecd.ird())).append(" ORD ").append(irdOrd(ecd.ord()));
            if (ecd.peerToPeer()) {
                summary.append(" A");
            }
            if (!ecd.rtrTypes().isEmpty()) {
                summary.append(" RTR ").append(ecd.rtrTypes());
            }
        }
        RpcRdmaPrivateData cm = RpcRdmaPrivateData.find(ulpPrivateData(f)).orElse(null);
        if (cm != null) {
            mpa.put("rpcrdmaPrivateData", Findings.fields("version", cm.version(), "remoteInvalidation",
                    cm.remoteInvalidation(), "sendSize", cm.sendSize(), "receiveSize", cm.receiveSize()));
            summary.append("; RPC-over-RDMA CM v").append(cm.version()).append(" send ").append(cm.sendSize())
                    .append(" recv ").append(cm.receiveSize()).append(cm.remoteInvalidation() ? " RI" : "");
        }
        Map<String, Map<String, Object>> layers = new LinkedHashMap<>();
        layers.put("mpa", mpa);
        unit(frame, dir, summary.toString(), layers);
        return end;
    }

    /** The ULP's private data: after the RFC 6581 word when there is a whole one (MPA2-R-016). */
    private static byte[] ulpPrivateData(MpaStartupFrame f) {
        return f.enhanced() && f.privateDataLength() < MpaConstants.ENHANCED_DATA_LENGTH ? f.privateData()
                : f.ulpPrivateData();
    }

    private static String irdOrd(int v) {
        return v == MpaConstants.IRD_ORD_NO_NEGOTIATION ? "0x3FFF" : Integer.toString(v);
    }

    private static String flagNames(MpaStartupFrame f, boolean enhanced) {
        StringBuilder b = new StringBuilder();
        if (f.markers()) {
            b.append(" M");
        }
        if (f.crc()) {
            b.append(" C");
        }
        if (f.reject()) {
            b.append(" R");
        }
        if (enhanced) {
            b.append(" S");
        }
        return b.length() == 0 ? "" : " (" + b.substring(1) + ")";
    }

    /** The checks that need both startup frames, and the parameters of Full Operation. */
    private void negotiate() {
        if (replyFrame < requestFrame) {
            out.violation(Check.MPA_REPLY_AFTER_REQUEST, replyFrame, index, R_TO_I, "the Reply (frame " + replyFrame
                    + ") was sent before the Request was complete (frame " + requestFrame + ")");
        }
        if (request.revision() <= MpaConstants.REVISION_2 && reply.revision() > request.revision()) {
            out.violation(Check.MPA_REVISION, replyFrame, index, R_TO_I, "Reply Rev " + reply.revision()
                    + " above the Request's " + request.revision());
        }
        boolean reqEnhanced = request.enhanced();
        boolean repEnhanced = reply.enhanced();
        if (requestS && !(replyS && reply.revision() == MpaConstants.REVISION_2)) {
            out.violation(Check.MPA2_ENHANCED_REPLY, replyFrame, index, R_TO_I, "enhanced Request answered by a"
                    + " Reply of rev " + reply.revision() + (replyS ? "" : " without the enhanced flag"));
        }
        if (!requestS && (replyS || reply.revision() != request.revision()
                && request.revision() <= MpaConstants.REVISION_2)) {
            out.violation(Check.MPA2_PLAIN_REPLY, replyFrame, index, R_TO_I, "a plain rev " + request.revision()
                    + " Request answered by a rev " + reply.revision() + (replyS ? " enhanced" : "") + " Reply");
        }
        crc = request.crc() || reply.crc(); // MPA-R-047
        boolean markersToResponder = reply.markers(); // MPA-R-046: markers go to a peer that asked
        boolean markersToInitiator = request.markers();
        long iStart = requestEnd;
        long rStart = replyEnd;
        toResponder.reader = markerReader(toResponder, iStart, markersToResponder);
        toInitiator.reader = markerReader(toInitiator, rStart, markersToInitiator);
        StringBuilder n = new StringBuilder("rev ").append(reply.revision()).append(", CRC ").append(crc ? "on" : "off")
                .append(", markers I>R ").append(markersToResponder ? "on" : "off").append(" R>I ")
                .append(markersToInitiator ? "on" : "off");
        if (reqEnhanced && repEnhanced) {
            EnhancedConnectionData i = request.enhancedData();
            EnhancedConnectionData r = reply.enhancedData();
            int max = MpaConstants.IRD_ORD_NO_NEGOTIATION;
            if (r.ord() != max && i.ird() != max && r.ord() > i.ird()) {
                out.violation(Check.MPA2_ORD_WITHIN_IRD, replyFrame, index, R_TO_I, "Responder ORD " + r.ord()
                        + " > Initiator IRD " + i.ird());
            }
            if (i.ord() == max && r.ird() != max || i.ird() == max && r.ord() != max) {
                out.violation(Check.MPA2_NO_ADJUSTMENT, replyFrame, index, R_TO_I, "Initiator IRD/ORD "
                        + irdOrd(i.ird()) + "/" + irdOrd(i.ord()) + " answered with " + irdOrd(r.ird()) + "/"
                        + irdOrd(r.ord()));
            }
            if (i.peerToPeer() && !r.peerToPeer()) {
                out.violation(Check.MPA2_PEER_TO_PEER_ECHO, replyFrame, index, R_TO_I,
                        "the Request set Control Flag A, the Reply does not echo it");
            }
            if (r.peerToPeer() && r.rtrTypes().isEmpty()) {
                out.violation(Check.MPA2_PEER_TO_PEER_ECHO, replyFrame, index, R_TO_I,
                        "the Reply sets A but names no RTR type");
            }
            if (!i.peerToPeer() && r.peerToPeer()) {
                out.violation(Check.MPA2_CLIENT_SERVER, replyFrame, index, R_TO_I,
                        "the Request has A clear, the Reply sets it");
            }
            if (!i.peerToPeer() && !i.rtrTypes().isEmpty()) {
                out.violation(Check.MPA2_CLIENT_SERVER, requestFrame, index, I_TO_R,
                        "the Request names RTR types " + i.rtrTypes() + " with A clear");
            }
            if (!r.peerToPeer() && !r.rtrTypes().isEmpty()) {
                out.violation(Check.MPA2_CLIENT_SERVER, replyFrame, index, R_TO_I,
                        "the Reply names RTR types " + r.rtrTypes() + " with A clear");
            }
            // The limits each side works with after the exchange (RFC 6581 §9.1): the Initiator's ORD is
            // at most the Responder's IRD; the Responder's ORD is what it replied.
            int iOrd = Math.min(i.ord(), r.ird());
            toResponder.ordLimit = iOrd == max ? NO_LIMIT : iOrd;
            toInitiator.ordLimit = r.ord() == max ? NO_LIMIT : r.ord();
            n.append(", Initiator ORD ").append(irdOrd(iOrd)).append(", Responder ORD ").append(irdOrd(r.ord()));
            if (r.peerToPeer()) {
                n.append(", peer-to-peer RTR ").append(r.rtrTypes());
            }
        } else {
            rtrChecked = true;
        }
        RpcRdmaPrivateData clientCm = RpcRdmaPrivateData.find(ulpPrivateData(request)).orElse(null);
        RpcRdmaPrivateData serverCm = RpcRdmaPrivateData.find(ulpPrivateData(reply)).orElse(null);
        boolean rpcPort = responderStream.source().getPort() == 20049;
        if (clientCm != null || serverCm != null || rpcPort) {
            rpc = new RpcTracker(index, out, clientCm == null ? RpcRdmaPrivateData.ABSENT : clientCm,
                    serverCm == null ? RpcRdmaPrivateData.ABSENT : serverCm, false);
            n.append(", RPC-over-RDMA inline ").append(rpc.thresholds().callThreshold()).append('/')
                    .append(rpc.thresholds().replyThreshold());
        }
        negotiated = n.toString();
    }

    /**
     * MPA-R-046 (RFC 5044 §7.1.1): markers go toward a peer whose startup frame set M, and never
     * toward one that left it clear. The stream shows which the sender did: the first FPDUs hold
     * together (plausible DDP/RDMAP headers, CRCs when in use, markers in place) read one way and
     * not the other. Decoding goes on the way that holds, so a sender that chose wrong gets this
     * one violation instead of a framing error on every FPDU.
     */
    private FpduReader markerReader(Direction d, long start, boolean negotiated) {
        FpduReader asNegotiated = new FpduReader(d.stream, start, negotiated);
        if (holdsTogether(asNegotiated, d.stream, start)) {
            return asNegotiated;
        }
        FpduReader other = new FpduReader(d.stream, start, !negotiated);
        if (!holdsTogether(other, d.stream, start)) {
            return asNegotiated;
        }
        out.violation(Check.MPA_MARKERS_AS_NEGOTIATED, d.stream.frameAt(start), index, d.name, negotiated
                ? "the receiver's startup frame set M, but the FPDUs arrive without markers"
                : "the FPDUs carry markers, but the receiver's startup frame left M clear");
        return other;
    }

    /** Whether up to four FPDUs from {@code start} read cleanly with this reader. */
    private boolean holdsTogether(FpduReader reader, ByteStream s, long start) {
        long pos = start;
        int read = 0;
        while (read < 4 && pos < s.length()) {
            FpduReader.Attempt a = reader.read(pos);
            if (a.fpdu() == null) {
                return read > 0 && (a.stop() == FpduReader.Stop.END_OF_CAPTURE || a.stop() == FpduReader.Stop.GAP);
            }
            Fpdu f = a.fpdu();
            if (!FpduReader.headerPlausible(f.ulpdu()) || crc && !f.crcMatches()) {
                return false;
            }
            for (Fpdu.Marker m : f.markers()) {
                if (m.pointer() != m.expectedPointer() || m.reserved() != 0) {
                    return false;
                }
            }
            pos = f.end();
            read++;
        }
        return read > 0;
    }

    // ---------------------------------------------------------------- FPDUs

    private void frames(Direction d, long start, List<Event> events) {
        ByteStream s = d.stream;
        long pos = start;
        if (!crcKnown) {
            // Mid-stream: find the first FPDU, trying CRC on first (a match is proof), then off.
            long withCrc = d.reader.resynchronise(pos, true);
            if (withCrc >= 0) {
                crc = true;
                pos = withCrc;
            } else {
                pos = d.reader.resynchronise(pos, false);
            }
            if (pos < 0) {
                out.note(s.frameAt(0), index, d.name, "no FPDU found in this direction");
                return;
            }
            if (pos > 0) {
                out.note(s.frameAt(pos), index, d.name, "first FPDU found at stream offset " + pos
                        + (crc ? " (CRC matches: CRC in use)" : ""));
            }
        }
        while (pos < s.length()) {
            FpduReader.Attempt a = d.reader.read(pos);
            if (a.fpdu() != null) {
                events.add(new Event(d, a.fpdu()));
                pos = a.fpdu().end();
                continue;
            }
            switch (a.stop()) {
                case END_OF_CAPTURE -> {
                    out.note(s.frameAt(s.length() - 1), index, d.name, "the capture ends inside an FPDU ("
                            + (s.length() - pos) + " octets of it captured)");
                    return;
                }
                case GAP -> {
                    ByteStream.Gap g = s.gapIn(a.stopOffset(), a.stopOffset() + 1);
                    long resume = d.reader.resynchronise(g.offset() + g.length(), crc);
                    if (resume < 0) {
                        gapNote(d, g, "no FPDU found after it");
                        events.add(new Event(d, gapMarker(s, g.offset(), g.length())));
                        return;
                    }
                    // The search may have passed further gaps (after a fragment of an FPDU): each gets
                    // its note and marker, so the notes add up to the octets missing up to here.
                    for (ByteStream.Gap passed : s.gapsIn(g.offset(), resume)) {
                        gapNote(d, passed, resumesAt(s, resume));
                        events.add(new Event(d, gapMarker(s, passed.offset(), passed.length())));
                    }
                    pos = resume;
                }
                default -> {
                    out.violation(Check.MPA_FRAMING, s.frameAt(pos), index, d.name, a.detail());
                    long resume = d.reader.resynchronise(pos + 1, crc);
                    if (resume < 0) {
                        // As after a gap: say why the rest of this direction has no units.
                        out.note(s.frameAt(pos), index, d.name, "no FPDU found after the framing error at offset "
                                + pos + "; the rest of this direction is not decoded");
                        return;
                    }
                    out.note(s.frameAt(resume), index, d.name, "FPDUs found again at offset " + resume);
                    for (ByteStream.Gap passed : s.gapsIn(pos, resume)) {
                        gapNote(d, passed, resumesAt(s, resume));
                    }
                    events.add(new Event(d, gapMarker(s, pos, resume - pos)));
                    pos = resume;
                }
            }
        }
    }

    /** The note for octets the capture lacks in one direction, and what decoding did after them. */
    private void gapNote(Direction d, ByteStream.Gap g, String after) {
        out.note(g.frameAfter(), index, d.name, g.length() + " octets missing from the capture at stream offset "
                + g.offset() + " (before frame " + g.frameAfter() + "); " + after);
    }

    private static String resumesAt(ByteStream s, long resume) {
        return "decoding resumes at offset " + resume + " (frame " + s.frameAt(resume) + ")";
    }

    /**
     * A pseudo-FPDU (no ULPDU) that tells {@link #process} where a direction lost octets (or could
     * not read them). It stands at the frame that holds the last octet before them: the lost octets
     * were sent after that frame, not only before the next one captured, so whatever the other
     * direction sent in between may answer them and is judged knowing they are lost.
     */
    private static Fpdu gapMarker(ByteStream s, long offset, long length) {
        long frame = s.frameAt(offset - 1);
        return new Fpdu(offset, offset + length, frame, frame, null, null, 0, 0, List.of());
    }

    private void process(Direction d, Fpdu f) {
        if (f.ulpdu() == null) {
            lostSync(d);
            return;
        }
        String dir = d.name;
        long frame = f.frame();
        byte[] u = f.ulpdu();
        Map<String, Map<String, Object>> layers = new LinkedHashMap<>();
        Map<String, Object> mpa = Findings.fields("offset", f.start(), "ulpduLength", u.length, "firstFrame",
                f.firstFrame());
        layers.put("mpa", mpa);
        framingChecks(d, f, mpa);
        startupOrder(d, frame);
        if (d.terminateFrame >= 0 && !d.afterTerminateReported) {
            d.afterTerminateReported = true;
            out.violation(Check.RDMAP_NOTHING_AFTER_TERMINATE, frame, index, dir, "an FPDU after this side's"
                    + " Terminate (frame " + d.terminateFrame + ")");
        }
        String summary = segment(d, f, u, layers);
        unit(frame, dir, summary, layers);
    }

    private void lostSync(Direction d) {
        d.afterGap = true;
        Arrays.fill(d.resync, true);
        Arrays.fill(d.messageMsn, -1);
        d.send.reset();
        Arrays.fill(d.taggedInProgress, false);
        d.readResponses.lostSync();
        if (rpc != null) {
            rpc.lostSync(d == toResponder);
        }
    }

    private void framingChecks(Direction d, Fpdu f, Map<String, Object> mpa) {
        String dir = d.name;
        long frame = f.frame();
        int length = f.ulpdu().length;
        if (length > MpaConstants.MAX_ULPDU) {
            out.violation(Check.MPA_ULPDU_MAX, frame, index, dir, "ULPDU_Length " + length + " > 64768");
        } else if (d.mss > 0) {
            int mulpdu = Mulpdu.of(d.mss, d.reader.markers());
            if (length > mulpdu) {
                out.violation(Check.MPA_MULPDU, frame, index, dir, "ULPDU of " + length + " octets > MULPDU "
                        + mulpdu + " (receiver's MSS " + d.mss + ")");
            }
        }
        for (byte b : f.pad()) {
            if (b != 0) {
                out.violation(Check.MPA_PAD, frame, index, dir, "pad " + hex(f.pad()) + " is not zero");
                break;
            }
        }
        mpa.put("crc", String.format("0x%08x", f.crcReceived()));
        if (crc) {
            mpa.put("crcComputed", String.format("0x%08x", f.crcComputed()));
            if (!f.crcMatches()) {
                out.violation(Check.MPA_CRC, frame, index, dir, String.format("CRC field 0x%08x, CRC32c of the FPDU"
                        + " 0x%08x", f.crcReceived(), f.crcComputed()));
            }
        }
        if (!f.markers().isEmpty()) {
            List<String> list = new ArrayList<>();
            for (Fpdu.Marker m : f.markers()) {
                list.add(m.offset() + ":" + String.format("0x%08x", m.value()));
                if (m.reserved() != 0 || (m.pointer() & 3) != 0) {
                    out.violation(Check.MPA_MARKER_RESERVED, frame, index, dir, String.format(
                            "marker at offset %d is 0x%08x: reserved octets or FPDUPTR low bits not zero",
                            m.offset(), m.value()));
                }
                if (m.pointer() != m.expectedPointer()) {
                    out.violation(Check.MPA_MARKER_POINTER, frame, index, dir, "marker at offset " + m.offset()
                            + " has FPDUPTR " + m.pointer() + ", the FPDU's ULPDU_Length is " + m.expectedPointer()
                            + " octets back" + (m.expectedPointer() == 0 ? " (0: between FPDUs)" : ""));
                }
            }
            mpa.put("markers", list);
        }
    }

    private void startupOrder(Direction d, long frame) {
        if (request == null || reply == null) {
            return;
        }
        if (d == toResponder) {
            if (firstInitiatorFpduFrame < 0) {
                firstInitiatorFpduFrame = frame;
            }
            if (frame < replyFrame && !initiatorEarlyReported) {
                initiatorEarlyReported = true;
                out.violation(Check.MPA_INITIATOR_WAITS_FOR_REPLY, frame, index, d.name, "an FPDU from the"
                        + " Initiator before the Reply (frame " + replyFrame + ")");
            }
        } else if (!responderEarlyReported && (firstInitiatorFpduFrame < 0 || frame < firstInitiatorFpduFrame)) {
            responderEarlyReported = true;
            if (toResponder.afterGap) {
                // The Initiator's octets lost so far (gaps are ordered by their last octet before) may hold
                // its first FPDU, sent before this one.
                out.note(frame, index, d.name, "MPA-R-061 not checked: the capture lacks octets the Initiator"
                        + " sent before this FPDU, and its first FPDU may be among them");
                return;
            }
            out.violation(Check.MPA_RESPONDER_WAITS, frame, index, d.name, "an FPDU from the Responder before"
                    + " any FPDU from the Initiator");
        }
    }

    // ---------------------------------------------------------------- DDP and RDMAP

    private String segment(Direction d, Fpdu f, byte[] u, Map<String, Map<String, Object>> layers) {
        String dir = d.name;
        long frame = f.frame();
        int ddpControl = u[0] & 0xff;
        int rdmapControl = u[1] & 0xff;
        boolean tagged = (ddpControl & DdpConstants.CONTROL_TAGGED) != 0;
        boolean last = (ddpControl & DdpConstants.CONTROL_LAST) != 0;
        int headerLength = tagged ? DdpConstants.TAGGED_HEADER_LENGTH : DdpConstants.UNTAGGED_HEADER_LENGTH;
        Map<String, Object> ddp = Findings.fields("T", tagged, "L", last, "version",
                ddpControl & DdpConstants.CONTROL_VERSION_MASK);
        layers.put("ddp", ddp);
        if ((ddpControl & DdpConstants.CONTROL_VERSION_MASK) != DdpConstants.DDP_VERSION) {
            out.violation(Check.DDP_VERSION, frame, index, dir, "DDP version " + (ddpControl & 3));
        }
        if ((ddpControl & DdpConstants.CONTROL_RESERVED_MASK) != 0) {
            out.violation(Check.DDP_RESERVED, frame, index, dir, String.format("DDP control 0x%02x", ddpControl));
        }
        if (u.length < headerLength) {
            out.violation(Check.MPA_FRAMING, frame, index, dir, "a ULPDU of " + u.length + " octets cannot hold the "
                    + headerLength + "-octet " + (tagged ? "tagged" : "untagged") + " DDP header");
            return "DDP segment cut short (" + u.length + " octets)";
        }
        int payload = u.length - headerLength;
        int rv = RdmapControl.version(rdmapControl);
        Map<String, Object> rdmap = Findings.fields("control", String.format("0x%02x", rdmapControl), "version", rv);
        if (rv != 1) {
            out.violation(Check.RDMAP_VERSION, frame, index, dir, "RV " + rv + String.format(" (control 0x%02x)",
                    rdmapControl));
        }
        if (RdmapControl.reservedBits(rdmapControl) != 0) {
            out.violation(Check.RDMAP_RESERVED, frame, index, dir, String.format("RDMAP control 0x%02x", rdmapControl));
        }
        RdmapOpcode opcode = RdmapControl.opcode(rdmapControl);
        if (opcode == null) {
            out.violation(Check.RDMAP_OPCODE_RESERVED, frame, index, dir, "opcode "
                    + RdmapControl.opcodeCode(rdmapControl) + " is reserved");
        }
        rdmap.put("opcode", opcode == null ? "reserved " + RdmapControl.opcodeCode(rdmapControl) : opcode.name());
        String name = opcode == null ? "opcode " + RdmapControl.opcodeCode(rdmapControl) : opcodeName(opcode);
        if (tagged) {
            int stag = getInt(u, 2);
            long to = getLong(u, 6);
            ddp.put("stag", String.format("0x%08x", stag));
            ddp.put("to", String.format("0x%x", to));
            ddp.put("payload", payload);
            layers.put("rdmap", rdmap);
            if (opcode != null && !opcode.tagged()) {
                out.violation(Check.RDMAP_OPCODE_MODEL, frame, index, dir, name + " in a tagged segment");
            }
            String target = taggedSequence(d, frame, stag, to, payload, last,
                    opcode == RdmapOpcode.RDMA_READ_RESPONSE);
            rtrCheck(d, frame, opcode, tagged, payload, last, null, null);
            if (rpc != null && opcode == RdmapOpcode.RDMA_WRITE) {
                target = rpc.rdmaWrite(d == toResponder, frame, stag, to, u, headerLength);
            } else if (rpc != null && opcode == RdmapOpcode.RDMA_READ_RESPONSE
                    && d.readResponses.answering() != null) {
                ReadRequestHeader rr = d.readResponses.answering();
                target += rpc.rdmaReadResponse(d == toResponder, frame, rr.sourceStag(),
                        rr.sourceTaggedOffset() + (to - rr.sinkTaggedOffset()), u, headerLength, layers);
            }
            return String.format("%s STag 0x%08x TO 0x%x len %d%s", name, stag, to, payload, last ? " L" : "")
                    + target;
        }
        int rsvdUlp = getInt(u, 2);
        long qn = getInt(u, 6) & 0xffffffffL;
        long msn = getInt(u, 10) & 0xffffffffL;
        long mo = getInt(u, 14) & 0xffffffffL;
        ddp.put("qn", qn);
        ddp.put("msn", msn);
        ddp.put("mo", mo);
        ddp.put("rsvdUlp", String.format("0x%08x", rsvdUlp));
        ddp.put("payload", payload);
        layers.put("rdmap", rdmap);
        if (opcode != null && (opcode.tagged() || opcode.queueNumber() != qn)) {
            out.violation(Check.RDMAP_OPCODE_MODEL, frame, index, dir, name + " untagged on QN " + qn);
        } else if (opcode == null && qn > 2) {
            out.violation(Check.RDMAP_OPCODE_MODEL, frame, index, dir, "QN " + qn + ": RDMAP uses QN 0-2");
        }
        if (rsvdUlp != 0 && (opcode == null || !opcode.carriesInvalidateStag())) {
            out.violation(Check.RDMAP_RESERVED_ULP, frame, index, dir, String.format(
                    "%s with RsvdULP word 0x%08x", name, rsvdUlp));
        }
        if (qn <= 2) {
            untaggedSequence(d, frame, (int) qn, msn, mo, payload, last, opcode);
        }
        String base = String.format("%s QN %d MSN %d MO %d len %d%s", name, qn, msn, mo, payload, last ? " L" : "");
        if (opcode != null && opcode.carriesInvalidateStag()) {
            base += String.format(" inv 0x%08x", rsvdUlp);
        }
        if (opcode == RdmapOpcode.RDMA_READ_REQUEST) {
            return base + readRequest(d, frame, u, payload, last, mo, rdmap);
        }
        if (opcode == RdmapOpcode.TERMINATE) {
            return base + terminate(d, frame, u, msn, mo, last, layers);
        }
        rtrCheck(d, frame, opcode, false, payload, last, null, null);
        if (opcode != null && opcode.isSendType() && qn == 0) {
            String rpcText = sendPayload(d, frame, u, headerLength, msn, mo, last, layers);
            return rpcText == null ? base : base + " | " + rpcText;
        }
        return base;
    }

    private static String opcodeName(RdmapOpcode op) {
        return switch (op) {
            case RDMA_WRITE -> "Write";
            case RDMA_READ_REQUEST -> "Read Request";
            case RDMA_READ_RESPONSE -> "Read Response";
            case SEND -> "Send";
            case SEND_WITH_INVALIDATE -> "Send with Invalidate";
            case SEND_WITH_SE -> "Send with SE";
            case SEND_WITH_SE_AND_INVALIDATE -> "Send with SE and Invalidate";
            case TERMINATE -> "Terminate";
        };
    }

    private void untaggedSequence(Direction d, long frame, int qn, long msn, long mo, int payload, boolean last,
            RdmapOpcode opcode) {
        String dir = d.name;
        if (d.messageMsn[qn] >= 0 && msn != d.messageMsn[qn]) {
            out.violation(Check.DDP_LAST_BIT, frame, index, dir, "QN " + qn + " MSN " + msn + " starts while MSN "
                    + d.messageMsn[qn] + " never had a segment with L");
            d.messageMsn[qn] = -1;
        }
        if (d.messageMsn[qn] < 0) {
            if (d.resync[qn]) {
                d.resync[qn] = false;
                if (mo != 0) { // the capture lost this message's start: follow it to its end
                    d.messageMsn[qn] = msn;
                    d.nextMo[qn] = mo + payload;
                    d.expectedMsn[qn] = (msn + 1) & 0xffffffffL;
                    if (last) {
                        d.messageMsn[qn] = -1;
                    }
                    return;
                }
            } else if (msn != d.expectedMsn[qn]) {
                out.violation(Check.DDP_MSN, frame, index, dir, "QN " + qn + " MSN " + msn + " where "
                        + d.expectedMsn[qn] + " was next");
            }
            if (mo != 0) {
                out.violation(Check.DDP_FIRST_MO, frame, index, dir, "QN " + qn + " MSN " + msn
                        + " begins at MO " + mo);
            }
            d.expectedMsn[qn] = (msn + 1) & 0xffffffffL;
            d.messageMsn[qn] = msn;
            d.nextMo[qn] = mo;
        }
        if (mo != d.nextMo[qn]) {
            out.violation(Check.DDP_MO_SEQUENCE, frame, index, dir, "QN " + qn + " MSN " + msn + " MO " + mo
                    + " where the previous segment ended at " + d.nextMo[qn]);
        }
        d.nextMo[qn] = mo + payload;
        if (last) {
            d.messageMsn[qn] = -1;
        }
    }

    /**
     * DDP-R-030 for one tagged segment, and RDMAP-R-016 for a Read Response; returns what the
     * Response's Read Request said it reads (its Call and Read chunk on RPC-over-RDMA), or "".
     */
    private String taggedSequence(Direction d, long frame, int stag, long to, int payload, boolean last,
            boolean readResponse) {
        String dir = d.name;
        int kind = readResponse ? 1 : 0;
        if (d.taggedInProgress[kind]) {
            if (stag != d.taggedStag[kind] || to != d.taggedNextTo[kind]) {
                out.violation(Check.DDP_TAGGED_SEQUENCE, frame, index, dir, String.format(
                        "STag 0x%08x TO 0x%x where the message in progress (STag 0x%08x) continues at TO 0x%x",
                        stag, to, d.taggedStag[kind], d.taggedNextTo[kind]));
                d.taggedInProgress[kind] = false;
            }
        }
        boolean first = !d.taggedInProgress[kind];
        String target = "";
        if (readResponse) {
            target = d.readResponses.segment(frame, first, stag, to, payload, last, d.other().afterGap,
                    d.afterGap);
        }
        d.taggedInProgress[kind] = !last;
        d.taggedStag[kind] = stag;
        d.taggedNextTo[kind] = to + payload;
        return target;
    }

    private String readRequest(Direction d, long frame, byte[] u, int payload, boolean last, long mo,
            Map<String, Object> rdmap) {
        String dir = d.name;
        if (payload != RdmapConstants.READ_REQUEST_HEADER_LENGTH || !last || mo != 0) {
            out.violation(Check.RDMAP_READ_REQUEST_LENGTH, frame, index, dir, "Read Request segment with " + payload
                    + " octets" + (last ? "" : ", L clear") + (mo != 0 ? ", MO " + mo : ""));
            if (payload < RdmapConstants.READ_REQUEST_HEADER_LENGTH) {
                return "";
            }
        }
        ByteBuf rrOctets = Unpooled.wrappedBuffer(u, DdpConstants.UNTAGGED_HEADER_LENGTH,
                RdmapConstants.READ_REQUEST_HEADER_LENGTH);
        ReadRequestHeader rr;
        try {
            rr = ReadRequestHeader.decode(rrOctets);
        } finally {
            rrOctets.release();
        }
        rdmap.put("sinkStag", String.format("0x%08x", rr.sinkStag()));
        rdmap.put("sinkTo", String.format("0x%x", rr.sinkTaggedOffset()));
        rdmap.put("size", rr.readMessageSize());
        rdmap.put("sourceStag", String.format("0x%08x", rr.sourceStag()));
        rdmap.put("sourceTo", String.format("0x%x", rr.sourceTaggedOffset()));
        rtrCheck(d, frame, RdmapOpcode.RDMA_READ_REQUEST, false, payload, last, rr, null);
        int outstanding = d.outstandingReads.size() + 1;
        // After lost octets either way the count is not the peer's: a lost Read Response leaves its
        // Request outstanding here, and the Responses that would have answered it are not seen.
        if (outstanding > d.ordLimit && !d.afterGap && !d.other().afterGap) {
            out.violation(Check.RDMAP_ORD, frame, index, dir, outstanding
                    + " Read Requests outstanding, the negotiated ORD is " + d.ordLimit);
        }
        String source = rpc == null ? "" : rpc.rdmaReadRequest(d == toResponder, frame, rr.sourceStag(),
                rr.sourceTaggedOffset(), rr.readMessageSize());
        d.outstandingReads.add(rr, source);
        return String.format(" sink 0x%08x@0x%x size %d source 0x%08x@0x%x", rr.sinkStag(), rr.sinkTaggedOffset(),
                rr.readMessageSize(), rr.sourceStag(), rr.sourceTaggedOffset()) + source;
    }

    /** MPA2-R-009: the first FPDU of the Initiator after an accepting Reply with A set. */
    private void rtrCheck(Direction d, long frame, RdmapOpcode opcode, boolean tagged, int payload, boolean last,
            ReadRequestHeader rr, TerminateReason terminate) {
        if (rtrChecked || d != toResponder || reply == null || request == null) {
            return;
        }
        rtrChecked = true;
        EnhancedConnectionData r = reply.enhancedData();
        if (r == null || !r.peerToPeer()) {
            return;
        }
        if (d.afterGap) {
            // Octets of the Initiator's stream before this FPDU are lost: it may not be the first.
            out.note(frame, index, d.name, "MPA2-R-009 not checked: the capture lacks octets the Initiator sent"
                    + " before this FPDU, and its RTR may be among them");
            return;
        }
        RtrType sent = null;
        if (opcode == RdmapOpcode.SEND && payload == 0 && last) {
            sent = RtrType.SEND;
        } else if (opcode == RdmapOpcode.RDMA_WRITE && tagged && payload == 0 && last) {
            sent = RtrType.WRITE;
        } else if (opcode == RdmapOpcode.RDMA_READ_REQUEST && rr != null && rr.readMessageSize() == 0) {
            sent = RtrType.READ;
        }
        if (terminate != null && terminate.equals(TerminateReason.LLP_NO_MATCHING_RTR)) {
            return; // MPA2-R-010: the Initiator could not use any of the Reply's types
        }
        if (sent == null) {
            out.violation(Check.MPA2_RTR_FIRST, frame, index, d.name, "the Initiator's first FPDU is a "
                    + (opcode == null ? "reserved opcode" : opcodeName(opcode)) + " of " + payload
                    + " octets, not a zero-length RTR of " + r.rtrTypes());
        } else if (!r.rtrTypes().contains(sent)) {
            out.violation(Check.MPA2_RTR_FIRST, frame, index, d.name, "RTR of type " + sent
                    + ", the Reply allows " + r.rtrTypes());
        }
    }

    private String terminate(Direction d, long frame, byte[] u, long msn, long mo, boolean last,
            Map<String, Map<String, Object>> layers) {
        String dir = d.name;
        if (msn != 1 || mo != 0 || !last) {
            out.violation(Check.RDMAP_TERMINATE_QUEUE, frame, index, dir, "Terminate with MSN " + msn + ", MO " + mo
                    + (last ? "" : ", L clear"));
        }
        d.terminateFrame = frame;
        int payload = u.length - DdpConstants.UNTAGGED_HEADER_LENGTH;
        if (payload < 4) {
            out.violation(Check.RDMAP_TERMINATE_LAYOUT, frame, index, dir, "Terminate of " + payload + " octets: no"
                    + " Terminate Control field");
            rtrCheck(d, frame, RdmapOpcode.TERMINATE, false, payload, last, null, null);
            return "";
        }
        ByteBuf termOctets = Unpooled.wrappedBuffer(u, DdpConstants.UNTAGGED_HEADER_LENGTH, payload);
        TerminateMessage t;
        try {
            t = TerminateMessage.decode(termOctets);
        } finally {
            termOctets.release();
        }
        TerminateReason reason = t.reason();
        rtrCheck(d, frame, RdmapOpcode.TERMINATE, false, payload, last, null, reason);
        int word = t.controlWord();
        Map<String, Object> term = Findings.fields("layer", reason.layerCode(), "errorType", reason.errorType(),
                "errorCode", reason.errorCode(), "description", reason.description(), "M", t.segmentLengthValid(),
                "D", t.ddpHeaderIncluded(), "R", t.rdmaHeaderIncluded(), "reserved",
                String.format("0x%04x", t.reservedBits()));
        layers.put("terminate", term);
        StringBuilder s = new StringBuilder(" ").append(reason);
        TerminateReason swapped = reason.siwSwappedReading();
        if (!reason.isDefined()) {
            // The reason's description says it is undefined and, where it fits, what siw meant.
            out.violation(Check.RDMAP_TERMINATE_REASON, frame, index, dir, String.format("Terminate control %02x %02x:"
                    + " %s", word >>> 24, (word >>> 16) & 0xff, reason));
            if (swapped != null) {
                term.put("siwSwappedReading", swapped.toString());
                out.note(frame, index, dir, "Linux siw writes the Terminate Control field from a bit-field struct"
                        + " (iwarp.h): on little-endian hosts Layer and EType trade nibbles and M/D/R land in the"
                        + " reserved bits; read that way this Terminate is " + swapped);
            }
        }
        if (t.reservedBits() != 0) {
            out.violation(Check.RDMAP_TERMINATE_LAYOUT, frame, index, dir, String.format("reserved bits 0x%04x set",
                    t.reservedBits()) + (swapped != null && !reason.isDefined()
                    ? String.format(" (siw's M/D/R flags at the wrong place: M=%d D=%d R=%d)", (word >>> 8) & 1,
                            (word >>> 9) & 1, (word >>> 10) & 1) : ""));
        }
        if (!t.isComplete()) {
            out.violation(Check.RDMAP_TERMINATE_LAYOUT, frame, index, dir, "the headers announced by"
                    + (t.ddpHeaderIncluded() ? " D" : "") + (t.rdmaHeaderIncluded() ? " R" : "") + " are missing");
        }
        if (t.terminatedDdpHeader() != null) {
            term.put("terminatedDdpHeader", hex(t.terminatedDdpHeader()));
            term.put("ddpSegmentLength", t.ddpSegmentLength());
            s.append(", offending ").append(offending(t.terminatedDdpHeader()));
        }
        if (t.terminatedRdmaHeader() != null) {
            term.put("terminatedRdmaHeader", t.terminatedRdmaHeader().toString());
        }
        return s.toString();
    }

    private static String offending(byte[] h) {
        int ddp = h[0] & 0xff;
        RdmapOpcode op = RdmapControl.opcode(h[1] & 0xff);
        String name = op == null ? "opcode " + (h[1] & 0xf) : opcodeName(op);
        if ((ddp & DdpConstants.CONTROL_TAGGED) != 0) {
            return String.format("%s STag 0x%08x TO 0x%x", name, getInt(h, 2), getLong(h, 6));
        }
        return String.format("%s QN %d MSN %d MO %d", name, getInt(h, 6) & 0xffffffffL, getInt(h, 10) & 0xffffffffL,
                getInt(h, 14) & 0xffffffffL);
    }

    /**
     * Collects a Send's payload until its last segment, then hands it to RPC-over-RDMA; a Send the
     * capture does not hold from its first octet is not decoded (a note says so).
     */
    private String sendPayload(Direction d, long frame, byte[] u, int headerLength, long msn, long mo, boolean last,
            Map<String, Map<String, Object>> layers) {
        if (rpc == null) {
            return null;
        }
        return switch (d.send.add(msn, mo, u, headerLength, last)) {
            case MORE -> null;
            case WHOLE -> rpc.send(d == toResponder, frame, d.send.message(), layers);
            case INCOMPLETE -> {
                out.note(frame, index, d.name, "the Send of MSN " + msn + " is not decoded as RPC-over-RDMA: the"
                        + " segments here do not hold it whole from MO 0 (its start lost in a gap or before a"
                        + " mid-stream capture, or MOs out of sequence)");
                yield null;
            }
            case TOO_LONG -> {
                out.note(frame, index, d.name, "the Send of MSN " + msn + " is not decoded as RPC-over-RDMA: it is "
                        + d.send.length() + " octets long, and the decoder keeps at most " + (SendOctets.LIMIT >> 20)
                        + " MiB of one Send");
                yield null;
            }
        };
    }

    // ---------------------------------------------------------------- helpers

    private void unit(long frame, String dir, String summary, Map<String, Map<String, Object>> layers) {
        units++;
        out.unit(frame, index, dir, summary, layers);
    }

    static int getInt(byte[] b, int i) {
        return (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | b[i + 3] & 0xff;
    }

    static long getLong(byte[] b, int i) {
        return (getInt(b, i) & 0xffffffffL) << 32 | getInt(b, i + 4) & 0xffffffffL;
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }

}
