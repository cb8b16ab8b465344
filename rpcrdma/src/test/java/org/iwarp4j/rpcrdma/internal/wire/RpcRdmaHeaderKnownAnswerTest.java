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

/**
 * The RPC-over-RDMA known-answer vectors of testdata/vectors/rpc-over-rdma.txt (V-RR-*), decoded
 * and encoded, and negative cases made from them.
 */
class RpcRdmaHeaderKnownAnswerTest {

    private static final int XID = 0x6B8B4567;
    private final RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder();

    private static ByteBuf withNullCall(byte[] header) {
        return Unpooled.wrappedBuffer(header, TestVectors.bytes("V-RPC-NULL"));
    }

    private RpcRdmaHeader decoded(ByteBuf in) {
        HeaderDecodeResult r = decoder.decode(in);
        assertThat(r).isInstanceOf(HeaderDecodeResult.Decoded.class);
        return ((HeaderDecodeResult.Decoded) r).header();
    }

    private HeaderDecodeResult.Rejected rejected(byte[] message) {
        ByteBuf in = Unpooled.wrappedBuffer(message);
        HeaderDecodeResult r = decoder.decode(in);
        assertThat(r).isInstanceOf(HeaderDecodeResult.Rejected.class);
        assertThat(in.readerIndex()).as("nothing consumed").isZero();
        return (HeaderDecodeResult.Rejected) r;
    }

    private static byte[] encoded(RpcRdmaHeader header) {
        ByteBuf out = Unpooled.buffer();
        RpcRdmaHeaderEncoder.encode(header, out);
        assertThat(out.readableBytes()).isEqualTo(RpcRdmaHeaderEncoder.encodedLength(header));
        return ByteBufUtil.getBytes(out);
    }

    @Test
    void vRr1RdmaMsgWithoutChunksIs28OctetsThenThePayloadStream() { // RPC-R-002, RPC-R-039, RPC-R-041
        ByteBuf in = withNullCall(TestVectors.bytes("V-RR-1"));
        RpcRdmaHeader h = decoded(in);
        assertThat(h).isEqualTo(new RpcRdmaHeader.RdmaMsg(XID, 1, 32, ChunkLists.NONE));
        assertThat(in.readerIndex()).isEqualTo(RpcRdmaConstants.MIN_HEADER_LENGTH);
        assertThat(ByteBufUtil.getBytes(in)).isEqualTo(TestVectors.bytes("V-RPC-NULL"));
        assertThat(encoded(h)).isEqualTo(TestVectors.bytes("V-RR-1"));
    }

    @Test
    void vRr2LongCallWithPositionZeroReadChunkAndReplyChunk() { // RPC-R-031, RPC-R-032, RPC-R-042
        RpcRdmaHeader h = decoded(Unpooled.wrappedBuffer(TestVectors.bytes("V-RR-2")));
        RpcRdmaHeader expected = new RpcRdmaHeader.RdmaNomsg(XID, 1, 32, new ChunkLists(
                List.of(new ReadSegment(0, new RdmaSegment(0x11223344, 4096, 0x00007F0000001000L))),
                List.of(),
                Optional.of(WriteChunk.of(new RdmaSegment(0x55667788, 8192, 0x00007F0000100000L)))));
        assertThat(h).isEqualTo(expected);
        assertThat(((RpcRdmaHeader.RdmaNomsg) h).chunks().readChunks())
                .containsExactly(new ReadChunk(0, List.of(new RdmaSegment(0x11223344, 4096, 0x00007F0000001000L))));
        assertThat(encoded(expected)).isEqualTo(TestVectors.bytes("V-RR-2")).hasSize(72);
    }

    @Test
    void vRr3WriteListOfOneTwoSegmentChunk() { // RPC-R-016, RPC-R-027
        RpcRdmaHeader expected = new RpcRdmaHeader.RdmaMsg(XID, 1, 32, new ChunkLists(List.of(),
                List.of(WriteChunk.of(new RdmaSegment(0xAABBCCDD, 4096, 0x1000), new RdmaSegment(0xAABBCCDE, 4096, 0x2000))),
                Optional.empty()));
        assertThat(encoded(expected)).isEqualTo(TestVectors.bytes("V-RR-3")).hasSize(68);
        // V-RR-3 is a header only; a Call follows it in a real Send.
        assertThat(decoded(withNullCall(TestVectors.bytes("V-RR-3")))).isEqualTo(expected);
    }

    /**
     * RPC-R-001: a handle takes all 32 bits and an offset all 64, both carried exactly (no sign or
     * truncation), on the wire and back.
     */
    @Test
    void aSegmentCarriesA32BitHandleAndA64BitOffset() {
        RdmaSegment wide = new RdmaSegment(0xFFFFFFFE, 4096, 0xFFFFFFFF_00000000L);
        RpcRdmaHeader h = new RpcRdmaHeader.RdmaMsg(XID, 1, 32, new ChunkLists(List.of(), List.of(WriteChunk.of(wide)),
                Optional.empty()));
        byte[] octets = encoded(h);
        // xid, vers, credits, proc, no Read list, a Write chunk of 1 segment: handle, length, offset (2 words)
        assertThat(Arrays.copyOfRange(octets, 24, 44)).isEqualTo(Hex.decode("00000001 fffffffe 00001000 ffffffff 00000000"));
        assertThat(decoded(withNullCall(octets))).isEqualTo(h);
    }

    @Test
    void vRr4ReplyReportsTheOctetsActuallyWritten() { // RPC-R-028, RPC-R-029
        WriteChunk provided = WriteChunk.of(new RdmaSegment(0xAABBCCDD, 4096, 0x1000),
                new RdmaSegment(0xAABBCCDE, 4096, 0x2000));
        WriteChunk returned = provided.withWritten(5000);
        assertThat(returned.segments()).extracting(RdmaSegment::length).containsExactly(4096L, 904L);
        RpcRdmaHeader reply = new RpcRdmaHeader.RdmaMsg(XID, 1, 32, new ChunkLists(List.of(), List.of(returned),
                Optional.empty()));
        assertThat(encoded(reply)).isEqualTo(TestVectors.bytes("V-RR-4"));
    }

    @Test
    void vRr5ErrVersCarriesTheSupportedRange() { // RPC-R-061, RPC-R-064
        RpcRdmaHeader h = decoded(Unpooled.wrappedBuffer(TestVectors.bytes("V-RR-5")));
        assertThat(h).isEqualTo(new RpcRdmaHeader.RdmaError(XID, 1, 32, RdmaErrorCode.ERR_VERS, 1, 1));
        assertThat(encoded(RpcRdmaHeader.RdmaError.errVers(XID, 1, 32))).isEqualTo(TestVectors.bytes("V-RR-5"));
    }

    @Test
    void vRr6ErrChunkOf20OctetsIsAcceptedDespiteThe28OctetMinimum() { // RPC-R-058, RPC-R-061
        RpcRdmaHeader h = decoded(Unpooled.wrappedBuffer(TestVectors.bytes("V-RR-6")));
        assertThat(h).isEqualTo(RpcRdmaHeader.RdmaError.errChunk(XID, 1, 32));
        assertThat(encoded(h)).isEqualTo(TestVectors.bytes("V-RR-6")).hasSize(20);
    }

    @Test
    void vRr7RdmaDoneDecodesSoThatTheTransportCanDiscardIt() { // RPC-R-071 (the transport discards it)
        assertThat(decoded(Unpooled.wrappedBuffer(TestVectors.bytes("V-RR-7"))))
                .isEqualTo(new RpcRdmaHeader.RdmaDone(XID, 1, 32));
    }

    // ---- negative cases under the table ----

    @Test
    void version2GetsErrVersEchoingTheVersion() { // RPC-R-064
        byte[] m = withVersion(TestVectors.bytes("V-RR-1"), 2);
        HeaderDecodeResult.Rejected r = rejected(m);
        assertThat(r.problem()).isEqualTo(HeaderProblem.VERSION_NOT_SUPPORTED);
        assertThat(r.problem().atRequester()).isEqualTo(HeaderProblem.Reaction.DISCARD);
        byte[] expected = TestVectors.bytes("V-RR-5");
        expected[7] = 2; // rdma_vers echoed
        assertThat(encoded(r.errorReply(32))).isEqualTo(expected);
    }

    @Test
    void anRdmaErrorOfVersion2IsDroppedByBothEnds() { // RPC-R-044: §7 fixes RDMA_ERROR for every version
        byte[] m = withVersion(TestVectors.bytes("V-RR-6"), 2);
        HeaderDecodeResult.Rejected r = rejected(java.util.Arrays.copyOf(m, 28)); // as long as a minimal header
        assertThat(r.problem()).isEqualTo(HeaderProblem.RDMA_ERROR_OF_OTHER_VERSION);
        assertThat(r.errorReply(32)).isNull();
        assertThat(r.problem().atRequester()).isEqualTo(HeaderProblem.Reaction.DISCARD);
        assertThat(r.problem().namesACall()).isFalse();
    }

    @Test
    void unknownProcedureIsAnXdrErrorAnsweredWithErrChunk() { // RPC-R-065
        byte[] m = TestVectors.bytes("V-RR-1");
        m[15] = 5;
        HeaderDecodeResult.Rejected r = rejected(m);
        assertThat(r.problem()).isEqualTo(HeaderProblem.XDR_ERROR);
        assertThat(encoded(r.errorReply(32))).isEqualTo(TestVectors.bytes("V-RR-6"));
    }

    @Test
    void rdmaNomsgWithoutAnyChunkIsErrChunk() { // RPC-R-042, RPC-R-065
        byte[] m = TestVectors.bytes("V-RR-1");
        m[15] = 1;
        assertThat(rejected(m).problem().atResponder()).isEqualTo(HeaderProblem.Reaction.SEND_ERR_CHUNK);
    }

    @Test
    void writeChunkCountingMoreSegmentsThanTheMessageHoldsIsErrChunk() { // RPC-R-065
        byte[] m = TestVectors.bytes("V-RR-3");
        m[27] = 3;
        HeaderDecodeResult.Rejected r = rejected(m);
        assertThat(r.problem()).isEqualTo(HeaderProblem.XDR_ERROR);
        assertThat(r.detail()).contains("overruns");
    }

    @Test
    void truncatedTo24OctetsIsSilentlyDiscarded() { // RPC-R-058
        byte[] m = java.util.Arrays.copyOf(TestVectors.bytes("V-RR-1"), 24);
        HeaderDecodeResult.Rejected r = rejected(m);
        assertThat(r.problem()).isEqualTo(HeaderProblem.TOO_SHORT);
        assertThat(r.errorReply(32)).isNull();
    }

    @Test
    void readSegmentPositionSixIsErrChunk() { // RPC-R-023
        byte[] m = TestVectors.bytes("V-RR-2");
        m[23] = 6;
        HeaderDecodeResult.Rejected r = rejected(m);
        assertThat(r.problem()).isEqualTo(HeaderProblem.XDR_ERROR);
        assertThat(r.detail()).contains("Position 6");
    }

    @Test
    void xidOfTheRpcMessageMustMatchRdmaXid() { // RPC-R-038
        byte[] call = TestVectors.bytes("V-RPC-NULL");
        call[3] ^= 1;
        ByteBuf in = Unpooled.wrappedBuffer(TestVectors.bytes("V-RR-1"), call);
        HeaderDecodeResult r = decoder.decode(in);
        assertThat(r).isInstanceOfSatisfying(HeaderDecodeResult.Rejected.class,
                x -> assertThat(x.problem()).isEqualTo(HeaderProblem.XDR_ERROR));
    }

    @Test
    void rdmaErrorWithAnUnknownCodeCannotBeDecodedAndIsDiscarded() { // RPC-R-063
        byte[] m = TestVectors.bytes("V-RR-6");
        m[19] = 7;
        HeaderDecodeResult.Rejected r = rejected(m);
        assertThat(r.problem()).isEqualTo(HeaderProblem.UNDECODABLE_ERROR);
        assertThat(r.problem().atRequester()).isEqualTo(HeaderProblem.Reaction.DISCARD);
        assertThat(r.problem().atResponder()).isEqualTo(HeaderProblem.Reaction.DISCARD);
    }

    @Test
    void errVersWithoutItsRangeCannotBeDecoded() { // RPC-R-063
        byte[] m = java.util.Arrays.copyOf(TestVectors.bytes("V-RR-5"), 24);
        assertThat(rejected(m).problem()).isEqualTo(HeaderProblem.UNDECODABLE_ERROR);
    }

    @Test
    void errVersEchoingAnotherVersionStillDecodes() { // RPC-R-062: §7 fixes its layout for every version
        byte[] m = withVersion(TestVectors.bytes("V-RR-5"), 2);
        assertThat(decoded(Unpooled.wrappedBuffer(m)))
                .isEqualTo(new RpcRdmaHeader.RdmaError(XID, 2, 32, RdmaErrorCode.ERR_VERS, 1, 1));
    }

    @Test
    void errChunkOfAnotherVersionIsStillAVersionProblem() { // RPC-R-063: only ERR_VERS's layout is version-independent
        HeaderDecodeResult.Rejected r = rejected(withVersion(TestVectors.bytes("V-RR-6"), 2));
        assertThat(r.problem()).isEqualTo(HeaderProblem.TOO_SHORT); // 20 octets: below a minimal header of another version
        assertThat(r.problem().atRequester()).isEqualTo(HeaderProblem.Reaction.DISCARD);
    }

    @Test
    void twelveOctetsAreDiscardedWithoutReadingAnything() { // RPC-R-058
        HeaderDecodeResult.Rejected r = rejected(java.util.Arrays.copyOf(TestVectors.bytes("V-RR-1"), 12));
        assertThat(r.problem()).isEqualTo(HeaderProblem.TOO_SHORT);
        assertThat(r.xid()).isZero();
    }

    @Test
    void rdmaMsgpIsDecodedForItsAnswerButNeverEncoded() { // RPC-R-070
        byte[] m = org.iwarp4j.testkit.Hex.decode(
                "6b8b4567 00000001 00000020 00000002 00000004 00000400 00000000 00000000 00000000");
        RpcRdmaHeader h = decoded(Unpooled.wrappedBuffer(m));
        assertThat(h).isEqualTo(new RpcRdmaHeader.RdmaMsgp(XID, 1, 32, 4, 1024, ChunkLists.NONE));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> encoded(h))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4.6.1");
    }

    private static byte[] withVersion(byte[] header, int version) {
        byte[] m = header.clone();
        m[4] = (byte) (version >>> 24);
        m[5] = (byte) (version >>> 16);
        m[6] = (byte) (version >>> 8);
        m[7] = (byte) version;
        return m;
    }
}
