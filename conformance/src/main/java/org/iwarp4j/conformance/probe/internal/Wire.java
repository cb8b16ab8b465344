package org.iwarp4j.conformance.probe.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.ddp.UntaggedHeader;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.RdmapControl;
import org.iwarp4j.rdmap.internal.wire.RdmapOpcode;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;

/**
 * The ULPDUs a probe sends, built with the project's DDP and RDMAP encoders ({@link DdpSegment},
 * {@link TaggedHeader}, {@link UntaggedHeader}, {@link ReadRequestHeader}, {@link
 * TerminateMessage}), and the few questions a probe asks about what comes back.
 */
public final class Wire {

    /** Queue numbers of RFC 5040 §5: Sends, Read Requests, Terminate. */
    static final int QN_SEND = 0;
    static final int QN_READ_REQUEST = 1;
    static final int QN_TERMINATE = 2;

    private Wire() {
    }

    /** An RDMA Write of {@code payload} (copied) to {@code stag}/{@code to}, one segment with L set. */
    public static ByteBuf write(int stag, long to, byte[] payload) {
        return DdpSegment.encode(ByteBufAllocator.DEFAULT,
                new TaggedHeader(true, RdmapControl.encode(RdmapOpcode.RDMA_WRITE), stag, to),
                Unpooled.wrappedBuffer(payload));
    }

    /** A Read Request (queue 1) carrying {@code header}. */
    public static ByteBuf readRequest(int msn, ReadRequestHeader header) {
        ByteBuf payload = Unpooled.buffer(28);
        header.encode(payload);
        return DdpSegment.encode(ByteBufAllocator.DEFAULT,
                new UntaggedHeader(true, RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST), 0, QN_READ_REQUEST, msn, 0),
                payload);
    }

    /** A Terminate (queue 2, MSN 1, MO 0, L=1: RDMAP-R-025) with no HdrCt bits and no echoed header. */
    public static ByteBuf terminate(TerminateReason reason) {
        return TerminateMessage.withoutHeaders(reason).encodeSegment(ByteBufAllocator.DEFAULT);
    }

    /** A zero-length Send (queue 0). */
    public static ByteBuf zeroLengthSend(int msn) {
        return DdpSegment.encode(ByteBufAllocator.DEFAULT,
                new UntaggedHeader(true, RdmapControl.encode(RdmapOpcode.SEND), 0, QN_SEND, msn, 0),
                Unpooled.EMPTY_BUFFER);
    }

    /** The header octets of a ULPDU we built: 14 tagged or 18 untagged (the DDP header). */
    public static byte[] ddpHeaderOf(byte[] ulpdu) {
        int length = (ulpdu[0] & 0x80) != 0 ? 14 : 18;
        return java.util.Arrays.copyOf(ulpdu, length);
    }

    /**
     * A received ULPDU, classified: its DDP header's fields ({@code qn}, {@code msn}, {@code mo}
     * are -1 for a tagged segment), the RDMAP version and opcode, and a Terminate's header.
     */
    public record Message(RdmapOpcode opcode, boolean tagged, int payloadLength, int stag,
                          TerminateMessage terminate, String problem, boolean last, int rdmapVersion, long qn,
                          long msn, long mo) {

        /**
         * The zero-length Read Response that answers a zero-length Read Request whose Data Sink
         * STag was {@code sinkStag} (RFC 5040 §5.2.1): tagged, that STag, no data, L set.
         */
        public boolean isEmptyReadResponseTo(int sinkStag) {
            return opcode == RdmapOpcode.RDMA_READ_RESPONSE && tagged && payloadLength == 0 && stag == sinkStag
                    && last;
        }

        /** One of the four Sends, untagged: a message of the peer's own ULP, not an answer to a probe. */
        public boolean isSend() {
            return opcode != null && opcode.isSendType() && !tagged;
        }

        /** Octets of the DDP header: 14 tagged, 18 untagged. */
        public int headerLength() {
            return tagged ? 14 : 18;
        }

        /**
         * For a Terminate, what in its DDP and RDMAP headers is not as RFC 5040 §5.4 sends one
         * ("tagged", "QN 0", "MSN 2", "MO 4", "RDMAP version 0"), comma-separated; empty if
         * nothing is. The rule is RDMAP-R-025 (untagged, queue 2, MSN 1, MO 0) and, for the
         * version, RDMAP-R-002. L is not among them: one segment with L set is practice, not RFC
         * text (the catalogue's note to RDMAP-R-025), so L=0 is the caller's warning ({@link #last}).
         */
        public String terminateFramingProblem() {
            java.util.List<String> wrong = new java.util.ArrayList<>();
            if (tagged) {
                wrong.add("tagged");
            } else {
                if (qn != QN_TERMINATE) {
                    wrong.add("QN " + qn);
                }
                if (msn != 1) {
                    wrong.add("MSN " + msn);
                }
                if (mo != 0) {
                    wrong.add("MO " + mo);
                }
            }
            if (rdmapVersion != 1) {
                wrong.add("RDMAP version " + rdmapVersion);
            }
            return String.join(", ", wrong);
        }
    }

    /** Decodes a ULPDU's DDP header and RDMAP opcode, and a Terminate's header. */
    public static Message parse(byte[] ulpdu) {
        ByteBuf buf = Unpooled.wrappedBuffer(ulpdu);
        DdpSegment segment;
        try {
            segment = DdpSegment.decode(buf);
        } catch (DdpException e) {
            buf.release();
            return new Message(null, false, 0, 0, null, "not a DDP segment: " + e.getMessage(), false, -1, -1, -1, -1);
        }
        try {
            int control = segment.header().rsvdUlp();
            RdmapOpcode opcode = RdmapControl.opcode(control);
            int stag = segment.tagged() ? segment.taggedHeader().stag() : 0;
            TerminateMessage terminate = null;
            String problem = "";
            if (opcode == RdmapOpcode.TERMINATE) {
                try {
                    terminate = TerminateMessage.decode(segment.payload().duplicate());
                } catch (RuntimeException e) {
                    problem = "Terminate too short: " + ByteBufUtil.hexDump(segment.payload());
                }
            }
            UntaggedHeader untagged = segment.tagged() ? null : segment.untaggedHeader();
            return new Message(opcode, segment.tagged(), segment.payloadLength(), stag, terminate, problem,
                    segment.last(), RdmapControl.version(control), untagged == null ? -1 : untagged.qn() & 0xFFFF_FFFFL,
                    untagged == null ? -1 : untagged.msn() & 0xFFFF_FFFFL, untagged == null ? -1 : untagged.mo() & 0xFFFF_FFFFL);
        } finally {
            segment.release();
            buf.release();
        }
    }
}
