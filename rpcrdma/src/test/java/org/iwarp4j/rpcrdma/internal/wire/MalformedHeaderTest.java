package org.iwarp4j.rpcrdma.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.iwarp4j.testkit.Hex;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Headers a peer could send to hurt us: truncated, unterminated, with absurd counts or lengths.
 * Each gets exactly the RFC 8166 §4.5 answer (ERR_CHUNK for a Call's header, discard for a Reply's,
 * discard for anything shorter than a minimal header) and nothing is allocated beyond what the
 * message holds.
 */
class MalformedHeaderTest {

    private static final String FIXED_NOMSG = "6b8b4567 00000001 00000020 00000001 ";
    private final RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder(new HeaderLimits(4, 2, 3, 1 << 20));

    private HeaderDecodeResult.Rejected rejected(String hex) {
        return rejected(Hex.decode(hex));
    }

    private HeaderDecodeResult.Rejected rejected(byte[] message) {
        ByteBuf in = Unpooled.wrappedBuffer(message);
        HeaderDecodeResult r = decoder.decode(in);
        assertThat(r).isInstanceOf(HeaderDecodeResult.Rejected.class);
        assertThat(in.readerIndex()).isZero();
        return (HeaderDecodeResult.Rejected) r;
    }

    @Test
    void everyProperPrefixOfALongCallHeaderIsRejectedNeverThrown() { // RPC-R-058, RPC-R-065
        byte[] full = TestVectors.bytes("V-RR-2");
        for (int n = 0; n < full.length; n++) {
            HeaderDecodeResult.Rejected r = rejected(Arrays.copyOf(full, n));
            if (n < RpcRdmaConstants.MIN_HEADER_LENGTH) {
                assertThat(r.problem()).as("%d octets", n).isEqualTo(HeaderProblem.TOO_SHORT);
            } else {
                assertThat(r.problem()).as("%d octets", n).isEqualTo(HeaderProblem.XDR_ERROR);
                assertThat(r.errorReply(8)).isEqualTo(RpcRdmaHeader.RdmaError.errChunk(0x6B8B4567, 1, 8));
            }
            assertThat(r.problem().atRequester()).isEqualTo(HeaderProblem.Reaction.DISCARD); // RPC-R-060
        }
    }

    @Test
    void aSegmentCountOfFourBillionIsRejectedBeforeAnythingIsAllocated() { // RPC-R-065
        HeaderDecodeResult.Rejected r = rejected(FIXED_NOMSG + "00000000 00000001 ffffffff 00000000");
        assertThat(r.problem()).isEqualTo(HeaderProblem.XDR_ERROR);
        assertThat(r.detail()).contains("4294967295 segments overruns");
    }

    @Test
    void aReplyChunkCountLargerThanTheMessageIsRejected() { // RPC-R-065
        HeaderDecodeResult.Rejected r = rejected(FIXED_NOMSG + "00000000 00000000 00000001 00000002 "
                + "11111111 00000100 00000000 00001000");
        assertThat(r.problem()).isEqualTo(HeaderProblem.XDR_ERROR);
    }

    @Test
    void moreSegmentsThanTheLocalLimitIsErrChunk() { // RPC-R-065 ("chunk complexity beyond local limits")
        StringBuilder m = new StringBuilder(FIXED_NOMSG + "00000000 00000001 00000004");
        for (int i = 0; i < 4; i++) {
            m.append(" 11111111 00000100 00000000 00001000");
        }
        m.append(" 00000000 00000000");
        HeaderDecodeResult.Rejected r = rejected(m.toString());
        assertThat(r.problem()).isEqualTo(HeaderProblem.LIMIT_EXCEEDED);
        assertThat(r.problem().atResponder()).isEqualTo(HeaderProblem.Reaction.SEND_ERR_CHUNK);
    }

    @Test
    void moreReadSegmentsOrWriteChunksThanTheLimitIsErrChunk() {
        StringBuilder reads = new StringBuilder(FIXED_NOMSG);
        for (int i = 0; i < 5; i++) {
            reads.append(" 00000001 00000000 11111111 00000100 00000000 00001000");
        }
        reads.append(" 00000000 00000000 00000000");
        assertThat(rejected(reads.toString()).problem()).isEqualTo(HeaderProblem.LIMIT_EXCEEDED);
        StringBuilder writes = new StringBuilder(FIXED_NOMSG + "00000000");
        for (int i = 0; i < 3; i++) {
            writes.append(" 00000001 00000001 11111111 00000100 00000000 00001000");
        }
        writes.append(" 00000000 00000000");
        assertThat(rejected(writes.toString()).problem()).isEqualTo(HeaderProblem.LIMIT_EXCEEDED);
    }

    @Test
    void aFourGibibyteReadChunkIsRefused() { // RPC-R-077
        HeaderDecodeResult.Rejected r = rejected(FIXED_NOMSG
                + "00000001 00000000 11223344 ffffffff 00007f00 00001000 00000000 00000000 00000000");
        assertThat(r.problem()).isEqualTo(HeaderProblem.LIMIT_EXCEEDED);
        assertThat(r.detail()).contains("Read chunk at Position 0");
    }

    @Test
    void segmentsOfOneReadChunkAddUpAgainstTheLengthLimit() { // RPC-R-077
        String seg = " 00000001 00000008 11223344 00080000 00007f00 00001000"; // 512 KiB each, Position 8
        assertThat(rejected(FIXED_NOMSG + seg.substring(1) + seg + seg + " 00000000 00000000 00000000").problem())
                .isEqualTo(HeaderProblem.LIMIT_EXCEEDED);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // Read list: Position 0, handle, length 0x100, offset 2^64 - 0x80; then no Write list, no Reply chunk
        "Read segment, 00000001 00000000 11223344 00000100 ffffffff ffffff80 00000000 00000000 00000000",
        // Write list: one chunk of one segment, length 0x100 at 2^64 - 0x100 (its end is 2^64 itself)
        "Write chunk segment, 00000000 00000001 00000001 11223344 00000100 ffffffff ffffff00 00000000 00000000",
        // Reply chunk: one segment, length 0x10 at 2^64 - 1
        "Reply chunk segment, 00000000 00000000 00000001 00000001 11223344 00000010 ffffffff ffffffff"})
    void aSegmentWhoseOffsetPlusLengthWrapsIsErrChunk(String what, String lists) { // RPC-R-065
        // RdmaEndpoint would post an RDMA Read or Write at offset + length past 2^64, which no DDP
        // can address: refused in the header, ERR_CHUNK from a Responder, discarded by a Requester.
        HeaderDecodeResult.Rejected r = rejected(FIXED_NOMSG + lists);
        assertThat(r.problem()).as(what).isEqualTo(HeaderProblem.XDR_ERROR);
        assertThat(r.problem().atResponder()).isEqualTo(HeaderProblem.Reaction.SEND_ERR_CHUNK);
        assertThat(r.problem().atRequester()).isEqualTo(HeaderProblem.Reaction.DISCARD);
        assertThat(r.errorReply(8)).isEqualTo(RpcRdmaHeader.RdmaError.errChunk(0x6B8B4567, 1, 8));
        assertThat(r.detail()).as(what).contains("wraps 2^64");
    }

    @Test
    void aSegmentEndingAtTheLastAddressableOctetDecodes() {
        // The boundary of the check above: the last octet at TO 2^64 - 1 is fine, as is an empty segment anywhere.
        RpcRdmaHeader h = new RpcRdmaHeader.RdmaNomsg(1, 1, 1, new ChunkLists(List.of(),
                List.of(WriteChunk.of(new RdmaSegment(5, 0xFF, 0xFFFF_FFFF_FFFF_FF00L),
                        new RdmaSegment(6, 0, 0xFFFF_FFFF_FFFF_FFFFL))),
                Optional.empty()));
        ByteBuf out = Unpooled.buffer();
        RpcRdmaHeaderEncoder.encode(h, out);
        assertThat(decoder.decode(Unpooled.wrappedBuffer(ByteBufUtil.getBytes(out))))
                .isEqualTo(new HeaderDecodeResult.Decoded(h));
    }

    @Test
    void aListDiscriminatorOtherThanZeroOrOneIsAnXdrError() { // RPC-R-065
        HeaderDecodeResult.Rejected r = rejected(FIXED_NOMSG + "00000002 00000000 00000000");
        assertThat(r.problem()).isEqualTo(HeaderProblem.XDR_ERROR);
        assertThat(r.detail()).contains("discriminator 2");
    }

    @Test
    void aHeaderEndingBeforeAListDiscriminatorOrASegmentCountNamesWhatIsMissing() { // RPC-R-065
        // the names are built only on failure: decoding a good header builds no string
        String readSegment = "00000001 00000000 11223344 00001000 00000000 00007f00 ";
        HeaderDecodeResult.Rejected noWriteList = rejected(FIXED_NOMSG + readSegment + "00000000");
        assertThat(noWriteList.problem()).isEqualTo(HeaderProblem.XDR_ERROR);
        assertThat(noWriteList.detail()).contains("Write list discriminator needs 4 octets, 0 left");
        HeaderDecodeResult.Rejected noCount = rejected(FIXED_NOMSG + readSegment + "00000000 00000001");
        assertThat(noCount.problem()).isEqualTo(HeaderProblem.XDR_ERROR);
        assertThat(noCount.detail()).contains("segment count needs 4 octets, 0 left");
    }

    @Test
    void anUnterminatedReadListIsAnXdrError() { // RPC-R-065 ("list not terminated")
        assertThat(rejected(FIXED_NOMSG + "00000001 00000000 11223344 00001000 00007f00 00001000").problem())
                .isEqualTo(HeaderProblem.XDR_ERROR);
    }

    @Test
    void aVersionMismatchShorterThanAMinimalHeaderIsDiscardedNotAnswered() { // RPC-R-058
        HeaderDecodeResult.Rejected r = rejected("6b8b4567 00000002 00000020 00000000 00000000");
        assertThat(r.problem()).isEqualTo(HeaderProblem.TOO_SHORT);
    }

    @Test
    void anRdmaMsgWithoutAnyPayloadIsAnXdrError() { // RPC-R-038
        assertThat(rejected(TestVectors.bytes("V-RR-1")).problem()).isEqualTo(HeaderProblem.XDR_ERROR);
    }

    @Test
    void trailingOctetsAfterAnRdmaNomsgAreIgnored() {
        ByteBuf in = Unpooled.wrappedBuffer(TestVectors.bytes("V-RR-2"), new byte[] {1, 2, 3, 4});
        assertThat(decoder.decode(in)).isInstanceOf(HeaderDecodeResult.Decoded.class);
        assertThat(in.readableBytes()).isEqualTo(4);
    }

    @Test
    void aMessageFullOfSegmentsWithinTheLimitsDecodes() {
        RpcRdmaHeader h = new RpcRdmaHeader.RdmaNomsg(1, 1, 1, new ChunkLists(
                List.of(new ReadSegment(0, new RdmaSegment(1, 10, 0)), new ReadSegment(0, new RdmaSegment(2, 10, 10)),
                        new ReadSegment(8, new RdmaSegment(3, 10, 0)), new ReadSegment(4, new RdmaSegment(4, 10, 0))),
                List.of(WriteChunk.of(new RdmaSegment(5, 1, 0), new RdmaSegment(6, 1, 0), new RdmaSegment(7, 1, 0)),
                        WriteChunk.of()),
                Optional.of(WriteChunk.of(new RdmaSegment(8, 1, 0)))));
        ByteBuf out = Unpooled.buffer();
        RpcRdmaHeaderEncoder.encode(h, out);
        assertThat(decoder.decode(Unpooled.wrappedBuffer(ByteBufUtil.getBytes(out))))
                .isEqualTo(new HeaderDecodeResult.Decoded(h));
        assertThat(((RpcRdmaHeader.RdmaNomsg) h).chunks().readChunks()).extracting(ReadChunk::position)
                .containsExactly(0L, 8L, 4L); // RPC-R-024: grouped by Position, in list order
    }
}
