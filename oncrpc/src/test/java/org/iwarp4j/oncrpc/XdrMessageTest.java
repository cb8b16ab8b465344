package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The representation of DDP-eligible items in an {@link XdrMessage} (RFC 8166 §3.4) and the
 * message's reference counting.
 */
class XdrMessageTest {

    /** int 0x11111111, then opaque<> of 5 DDP-eligible octets, then int 0x22222222. */
    private static XdrMessage withFiveDdpOctets() {
        return XdrEncoder.create()
                .writeInt(0x11111111)
                .writeDdpEligibleOpaque(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5}), 16)
                .writeInt(0x22222222)
                .toMessage();
    }

    @Test
    void ddpEligiblePieceIsTheBodyOnlyWithImplicitPadding() { // RPC-R-017, RPC-R-021, RPC-R-026, RPC-R-030
        XdrMessage message = withFiveDdpOctets();
        try {
            List<XdrPiece> pieces = message.pieces();
            assertThat(pieces).extracting(XdrPiece::ddpEligible).containsExactly(false, true, false);
            // The length word stays with the inline octets before the item (counted array, §3.4.4.1).
            assertThat(ByteBufUtil.hexDump(pieces.get(0).data())).isEqualTo("1111111100000005");
            // The piece, like a Read chunk or a returned Write chunk, has no roundup padding.
            assertThat(ByteBufUtil.hexDump(pieces.get(1).data())).isEqualTo("0102030405");
            assertThat(pieces.get(1).streamLength()).isEqualTo(8);
            // The next item starts immediately: dropping the piece gives the reduced stream (§3.4.4.4).
            assertThat(ByteBufUtil.hexDump(pieces.get(2).data())).isEqualTo("22222222");
            // The full stream has the padding.
            assertThat(XdrBytes.hex(message)).isEqualTo("1111111100000005" + "0102030405000000" + "22222222");
            assertThat(message.readableBytes()).isEqualTo(20);
            assertThat(message.hasDdpEligiblePieces()).isTrue();
        } finally {
            message.release();
        }
    }

    @Test
    void positionOfAPieceIsItsOffsetInTheUnreducedStream() { // RPC-R-022, RPC-R-023
        XdrMessage message = XdrEncoder.create()
                .writeDdpEligibleOpaque(Unpooled.wrappedBuffer(new byte[] {9, 9, 9}), 16)
                .writeDdpEligibleOpaque(Unpooled.wrappedBuffer(new byte[] {7}), 16)
                .toMessage();
        try {
            assertThat(message.pieces()).hasSize(4);
            assertThat(message.position(1)).isEqualTo(4);      // after the first length word
            assertThat(message.position(3)).isEqualTo(4 + 4 + 4); // 3 octets + 1 pad, then a length word
            assertThat(message.position(1) % 4).isZero();
            assertThat(message.position(3) % 4).isZero();
            assertThat(message.position(4)).isEqualTo(message.readableBytes()).isEqualTo(16);
        } finally {
            message.release();
        }
    }

    @Test
    void receiverRebuildsTheStreamByInsertingAReadChunkAtItsPosition() { // RPC-R-024, RPC-R-026
        // As an RPC-over-RDMA responder would: reduced inline octets split at the Position, the
        // chunk's data (without padding) flagged DDP-eligible in between.
        XdrMessage rebuilt = XdrMessage.of(List.of(
                XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("11111111 00000005"))),
                XdrPiece.ddpEligible(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5})),
                XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("22222222")))));
        // A chunk that carried the padding is inserted as an inline piece instead.
        XdrMessage padded = XdrMessage.of(List.of(
                XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("11111111 00000005"))),
                XdrPiece.inline(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 0, 0, 0})),
                XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("22222222")))));
        XdrMessage original = withFiveDdpOctets();
        try {
            assertThat(XdrBytes.hex(rebuilt)).isEqualTo(XdrBytes.hex(original)).isEqualTo(XdrBytes.hex(padded));
        } finally {
            rebuilt.release();
            padded.release();
            original.release();
        }
    }

    /** 11111111, the DDP-eligible opaque 0102030405, 22222222: as {@link #withFiveDdpOctets()} writes them. */
    private static void readsTheFiveOctetsBetweenTwoInts(XdrDecoder in) {
        assertThat(in.readInt()).isEqualTo(0x11111111);
        ByteBuf data = in.readDdpEligibleOpaque(16);
        assertThat(ByteBufUtil.getBytes(data)).containsExactly(1, 2, 3, 4, 5);
        data.release();
        assertThat(in.readInt()).isEqualTo(0x22222222);
    }

    /**
     * RPC-R-018: optional data whose value is a DDP-eligible opaque keeps its presence word in the
     * Payload stream; only the value's octets form the piece that may leave it.
     */
    @Test
    void anOptionalEligibleValueLeavesItsPresenceWordInline() {
        XdrMessage message = XdrEncoder.create()
                .writeOptional(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), (e, d) -> e.writeDdpEligibleOpaque(d, 16))
                .writeOptional(null, (e, d) -> e.writeInt(0))
                .toMessage();
        try {
            List<XdrPiece> pieces = message.pieces();
            assertThat(pieces).extracting(XdrPiece::ddpEligible).containsExactly(false, true, false);
            assertThat(ByteBufUtil.hexDump(pieces.get(0).data())).isEqualTo("00000001" + "00000003");
            assertThat(ByteBufUtil.hexDump(pieces.get(1).data())).isEqualTo("010203");
            assertThat(ByteBufUtil.hexDump(pieces.get(2).data())).isEqualTo("00000000");
        } finally {
            message.release();
        }
    }

    @Test
    void reducedItemsAreTakenByTheDdpEligibleReader() { // RPC-R-029, RPC-R-030 (Write chunk in a Reply)
        ByteBuf item = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        XdrMessage reply = XdrMessage.ofReduced(
                List.of(XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("11111111 00000005 22222222")))),
                List.of(item));
        ByteBuf stream = reply.stream();
        try {
            XdrDecoder in = new XdrDecoder(stream, reply.reducedItems());
            readsTheFiveOctetsBetweenTwoInts(in);
            assertThat(in.isEmpty()).isTrue();
        } finally {
            stream.release();
            reply.release();
        }
        assertThat(item.refCnt()).isZero();
    }

    @Test
    void reducedItemMustMatchItsLengthWord() {
        XdrMessage reply = XdrMessage.ofReduced(
                List.of(XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("00000006")))),
                List.of(Unpooled.wrappedBuffer(new byte[5])));
        ByteBuf stream = reply.stream();
        try {
            XdrDecoder in = new XdrDecoder(stream, reply.reducedItems());
            assertThatThrownBy(() -> in.readDdpEligibleOpaque(16)).isInstanceOf(XdrException.class)
                    .hasMessageContaining("does not match");
        } finally {
            stream.release();
            reply.release();
        }
    }

    @Test
    void emptyItemIsReadInlineAndLeavesReducedItemsForLaterOnes() {
        // Zero-length result: nothing was written into a chunk, the length word 0 is all there is.
        XdrMessage reply = XdrMessage.ofReduced(
                List.of(XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("00000000 00000002")))),
                List.of(Unpooled.wrappedBuffer(new byte[] {8, 9})));
        ByteBuf stream = reply.stream();
        try {
            XdrDecoder in = new XdrDecoder(stream, reply.reducedItems());
            ByteBuf empty = in.readDdpEligibleOpaque(16);
            assertThat(empty.readableBytes()).isZero();
            empty.release();
            ByteBuf second = in.readDdpEligibleOpaque(16);
            assertThat(ByteBufUtil.getBytes(second)).containsExactly(8, 9);
            second.release();
        } finally {
            stream.release();
            reply.release();
        }
    }

    /**
     * RPC-R-074: an empty reduced item is a Write chunk returned holding nothing. A result of more
     * octets found inline while it was available is refused (RFC 8166 §6.1); one of 0 octets takes it.
     */
    @Test
    void aResultInlineWhileAnUnusedWriteChunkWasAvailableIsRefused() {
        XdrMessage reply = XdrMessage.ofReduced(
                List.of(XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("00000000 00000002 0809 0000")))),
                List.of(Unpooled.EMPTY_BUFFER, Unpooled.EMPTY_BUFFER));
        ByteBuf stream = reply.stream();
        try {
            XdrDecoder in = new XdrDecoder(stream, reply.reducedItems());
            in.readDdpEligibleOpaque(16).release(); // 0 octets: takes the first unused chunk
            assertThatThrownBy(() -> in.readDdpEligibleOpaque(16)).isInstanceOf(XdrException.class)
                    .hasMessageContaining("2 octets returned inline").hasMessageContaining("1 Write chunk(s)")
                    .hasMessageContaining("RFC 8166 §6.1");
        } finally {
            stream.release();
            reply.release();
        }
    }

    /** RFC 8267 §6.4.1 pairing: an unused chunk (an earlier READ of 0 octets) is passed over to a filled one. */
    @Test
    void anUnusedWriteChunkIsPassedOverToTheNextFilledOne() {
        XdrMessage reply = XdrMessage.ofReduced(
                List.of(XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode("00000002")))),
                List.of(Unpooled.EMPTY_BUFFER, Unpooled.wrappedBuffer(new byte[] {8, 9})));
        ByteBuf stream = reply.stream();
        try {
            ByteBuf data = new XdrDecoder(stream, reply.reducedItems()).readDdpEligibleOpaque(16);
            assertThat(ByteBufUtil.getBytes(data)).containsExactly(8, 9);
            data.release();
        } finally {
            stream.release();
            reply.release();
        }
    }

    /**
     * RPC-R-073: in a received Call the DDP-eligible pieces are data placed from Read chunks. Only
     * {@link XdrDecoder#readDdpEligibleOpaque} may take one, at its item; read as anything else, it
     * is refused and the Call must not be processed.
     */
    @Test
    void placedDataIsTakenOnlyByTheDdpEligibleItemAtItsPlace() {
        XdrMessage call = withFiveDdpOctets(); // 11111111 00000005 | 0102030405 (+3) | 22222222
        try {
            decode(call, in -> {
                readsTheFiveOctetsBetweenTwoInts(in);
                assertThat(in.placedDataViolation()).isNull();
            });
            decode(call, in -> {
                in.readInt();
                // the same octets, read as an item that is not eligible
                assertThatThrownBy(() -> in.readOpaqueBuf(16).release()).isInstanceOf(XdrException.class)
                        .hasMessageContaining("Read chunk data at stream offset 8 read as an opaque");
                assertThat(in.placedDataViolation()).contains("RFC 8166 §6.1");
            });
            decode(call, in -> {
                in.readInt();
                assertThat(in.placedDataViolation()).as("not reached: a procedure may stop early").isNull();
                in.readInt();
                assertThat(in.placedDataViolation()).as("reached, left to no item").contains("stream offset 8");
            });
        } finally {
            call.release();
        }
    }

    /** Runs {@code reads} on a decoder of {@code message} that knows its placed pieces; the message stays. */
    private static void decode(XdrMessage message, java.util.function.Consumer<XdrDecoder> reads) {
        ByteBuf stream = message.stream();
        try {
            reads.accept(new XdrDecoder(message, stream));
        } finally {
            stream.release();
        }
    }

    @Test
    void ddpEligibleItemIsReadFromTheStreamWhenNothingWasReduced() {
        XdrMessage message = withFiveDdpOctets();
        ByteBuf stream = message.stream();
        try {
            XdrDecoder in = new XdrDecoder(stream);
            in.readInt();
            ByteBuf data = in.readDdpEligibleOpaque(16);
            assertThat(ByteBufUtil.getBytes(data)).containsExactly(1, 2, 3, 4, 5);
            data.release();
            assertThat(in.readInt()).isEqualTo(0x22222222);
        } finally {
            stream.release();
            message.release();
        }
    }

    @Test
    void releasingTheMessageReleasesEveryPieceAndStreamsHoldTheirOwnReferences() {
        ByteBuf a = Unpooled.buffer().writeInt(1);
        ByteBuf b = Unpooled.buffer().writeByte(2);
        XdrMessage message = XdrMessage.of(List.of(XdrPiece.inline(a), XdrPiece.ddpEligible(b)));
        ByteBuf stream = message.stream();
        assertThat(ByteBufUtil.hexDump(stream)).isEqualTo("0000000102000000");
        message.release();
        assertThat(a.refCnt()).as("the stream still holds the pieces").isPositive();
        assertThat(stream.readInt()).isEqualTo(1);
        stream.release();
        assertThat(a.refCnt()).isZero();
        assertThat(b.refCnt()).isZero();
    }

    @Test
    void readingTheStreamDoesNotMoveThePieces() {
        XdrMessage message = withFiveDdpOctets();
        try {
            ByteBuf first = message.stream();
            first.skipBytes(first.readableBytes());
            first.release();
            assertThat(XdrBytes.hex(message)).isEqualTo("1111111100000005" + "0102030405000000" + "22222222");
        } finally {
            message.release();
        }
    }

    @Test
    void concatConsumesBothAndKeepsFlags() {
        XdrMessage header = XdrMessage.of(Unpooled.wrappedBuffer(Hex.decode("0000000a")));
        XdrMessage body = withFiveDdpOctets();
        XdrMessage whole = XdrMessage.concat(header, body);
        try {
            assertThat(header.refCnt()).isZero();
            assertThat(body.refCnt()).isZero();
            assertThat(whole.pieces()).extracting(XdrPiece::ddpEligible).containsExactly(false, false, true, false);
            assertThat(whole.position(2)).isEqualTo(12);
            assertThat(XdrBytes.hex(whole)).startsWith("0000000a11111111");
        } finally {
            whole.release();
        }
    }

    @Test
    void paddingIsTheRoundupToFourOctets() { // RFC 4506 §4.10
        assertThat(List.of(0, 1, 2, 3, 4, 5, 8).stream().map(XdrMessage::padding)).containsExactly(0, 3, 2, 1, 0, 3, 0);
    }
}
