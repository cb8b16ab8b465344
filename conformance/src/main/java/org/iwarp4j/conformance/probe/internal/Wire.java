package org.iwarp4j.conformance.probe.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.ddp.UntaggedHeader;
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

    /** A received ULPDU, classified. */
    public record Message(RdmapOpcode opcode, boolean tagged, int payloadLength, int stag,
                          TerminateMessage terminate, String problem) {

        /** A zero-length Read Response. */
        public boolean isEmptyReadResponse() {
            return opcode == RdmapOpcode.RDMA_READ_RESPONSE && tagged && payloadLength == 0;
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
            return new Message(null, false, 0, 0, null, "not a DDP segment: " + e.getMessage());
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
            return new Message(opcode, segment.tagged(), segment.payloadLength(), stag, terminate, problem);
        } finally {
            segment.release();
            buf.release();
        }
    }
}
