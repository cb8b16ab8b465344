package org.iwarp4j.conformance.probe;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Set;
import org.iwarp4j.ddp.DdpHeader;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.ddp.UntaggedHeader;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;

/**
 * Replies and answers for {@link ScriptedResponder}s, octet by octet: what a conformant RFC 6581
 * Responder sends (RFC 5040 §5.2.1 zero-length Read Responses, RFC 5040 §4.8 and §5.4
 * Terminates echoing the offending headers), for tests to vary one thing at a time.
 */
final class ScriptedAnswers {

    /** The STag the probe aims its errors at. */
    static final int BOGUS_STAG = 0xDEADBE00;

    private ScriptedAnswers() {
    }

    /** An accepting enhanced Reply (C echoed, A echoed, RTR Write and Read if A) to an enhanced Request, else a plain rev 1 one. */
    static MpaStartupFrame enhancedReply(MpaStartupFrame request) {
        EnhancedConnectionData offer = request.enhancedData();
        if (offer == null) {
            return MpaStartupFrame.reply(false, request.crc(), false, 1, null, new byte[0]);
        }
        Set<RtrType> rtr = offer.peerToPeer() ? Set.of(RtrType.WRITE, RtrType.READ) : Set.of();
        // Responder ORD at most the Initiator IRD, Responder IRD at least the Initiator ORD (MPA2-R-005).
        EnhancedConnectionData word = new EnhancedConnectionData(offer.peerToPeer(), rtr, Math.max(offer.ord(), 1),
                Math.min(offer.ird(), 8));
        return MpaStartupFrame.reply(false, request.crc(), false, 2, word, new byte[0]);
    }

    /** A plain RFC 5044 Reply, C echoed. */
    static MpaStartupFrame plainReply(MpaStartupFrame request) {
        return MpaStartupFrame.reply(false, request.crc(), false, 1, null, new byte[0]);
    }

    /**
     * A conformant Responder's answers: a zero-length Read Request gets its zero-length Read
     * Response (sink STag and TO echoed), the Read of the bogus STag a Terminate 0/1/00 with M, D
     * and R and both headers (RDMAP-R-014), the Write to it a Terminate 1/1/00 with M and D
     * (DDP-R-049); anything else nothing.
     */
    static byte[] conformant(byte[] ulpdu) {
        if (isReadRequest(ulpdu)) {
            ByteBuffer in = ByteBuffer.wrap(ulpdu);
            if (in.getInt(30) == 0) {
                return emptyReadResponse(ulpdu);
            }
            if (in.getInt(34) == BOGUS_STAG) {
                return terminate(TerminateMessage.of(TerminateReason.RDMAP_INVALID_STAG, true, true, true, 0,
                        ulpdu.length, Arrays.copyOf(ulpdu, 18), readRequestHeader(ulpdu)));
            }
        }
        if (isBogusWrite(ulpdu)) {
            return terminate(TerminateMessage.of(TerminateReason.DDP_TAGGED_INVALID_STAG, true, true, false, 0,
                    ulpdu.length, Arrays.copyOf(ulpdu, 14), null));
        }
        return null;
    }

    static boolean isReadRequest(byte[] ulpdu) {
        return (ulpdu[0] & 0x80) == 0 && (ulpdu[1] & 0x0F) == 1;
    }

    /** A tagged Write with data to the bogus STag. */
    static boolean isBogusWrite(byte[] ulpdu) {
        return (ulpdu[0] & 0x80) != 0 && (ulpdu[1] & 0x0F) == 0 && ulpdu.length > 14
                && ByteBuffer.wrap(ulpdu).getInt(2) == BOGUS_STAG;
    }

    /** A Read Request of the bogus source STag. */
    static boolean isBogusRead(byte[] ulpdu) {
        return isReadRequest(ulpdu) && ByteBuffer.wrap(ulpdu).getInt(34) == BOGUS_STAG;
    }

    static ReadRequestHeader readRequestHeader(byte[] ulpdu) {
        return ReadRequestHeader.decode(Unpooled.wrappedBuffer(ulpdu, 18, 28));
    }

    /** The zero-length Read Response to a Read Request: tagged, L=1, RDMAP 0x42, the sink STag and TO. */
    static byte[] emptyReadResponse(byte[] readRequest) {
        ByteBuffer in = ByteBuffer.wrap(readRequest);
        return segment(new TaggedHeader(true, 0x42, in.getInt(18), in.getLong(22)), new byte[0]);
    }

    /** The Terminate segment RFC 5040 §5.4 has: untagged, L=1, RDMAP 0x47, QN 2, MSN 1, MO 0. */
    static byte[] terminate(TerminateMessage t) {
        ByteBuf buf = t.encodeSegment(io.netty.buffer.ByteBufAllocator.DEFAULT);
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** A Send (untagged, QN 0, L=1, RDMAP 0x43) of {@code payload}, MSN {@code msn}. */
    static byte[] send(int msn, byte[] payload) {
        return segment(new UntaggedHeader(true, 0x43, 0, 0, msn, 0), payload);
    }

    static byte[] segment(DdpHeader header, byte[] payload) {
        ByteBuf buf = Unpooled.buffer();
        header.encode(buf);
        buf.writeBytes(payload);
        return ByteBufUtil.getBytes(buf);
    }
}
