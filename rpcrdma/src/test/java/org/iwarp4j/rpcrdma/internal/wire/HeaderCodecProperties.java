package org.iwarp4j.rpcrdma.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Round trips of generated headers and the decoder's contract on arbitrary octets. */
class HeaderCodecProperties {

    private static final HeaderLimits LIMITS = new HeaderLimits(8, 4, 8, Long.MAX_VALUE);
    private final RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder(LIMITS);

    @Property
    void encodedHeadersDecodeToThemselves(@ForAll("headers") RpcRdmaHeader header) { // RPC-R-036
        ByteBuf out = Unpooled.buffer();
        RpcRdmaHeaderEncoder.encode(header, out);
        int headerLength = out.readableBytes();
        if (header instanceof RpcRdmaHeader.RdmaMsg) {
            out.writeInt(header.xid()).writeInt(0); // the RPC message starts with its XID
        }
        HeaderDecodeResult r = decoder.decode(out);
        assertThat(r).isEqualTo(new HeaderDecodeResult.Decoded(header));
        assertThat(out.readerIndex()).isEqualTo(headerLength);
    }

    @Property
    void arbitraryOctetsNeverThrowAndRejectionsConsumeNothing(@ForAll @Size(max = 200) byte[] message) {
        ByteBuf in = Unpooled.wrappedBuffer(message);
        HeaderDecodeResult r = decoder.decode(in);
        if (r instanceof HeaderDecodeResult.Rejected) {
            assertThat(in.readerIndex()).isZero();
        } else {
            assertThat(in.readerIndex()).isBetween(RpcRdmaConstants.FIXED_HEADER_LENGTH, message.length);
        }
    }

    @Property
    void wordSequencesWithSmallValuesNeverThrow(@ForAll("wordMessages") byte[] message) { // RPC-R-065
        ByteBuf in = Unpooled.wrappedBuffer(message);
        HeaderDecodeResult r = decoder.decode(in);
        if (r instanceof HeaderDecodeResult.Decoded d && d.header() instanceof RpcRdmaHeader.RdmaNomsg n) {
            assertThat(n.chunks().isEmpty()).isFalse();
        }
    }

    @Provide
    Arbitrary<byte[]> wordMessages() {
        // Version 1, small procedures and counts: the shapes that reach deep into the list decoder.
        return Arbitraries.integers().between(0, 5).list().ofMaxSize(60).map(words -> {
            ByteBuf b = Unpooled.buffer();
            b.writeInt(7).writeInt(1).writeInt(1);
            words.forEach(b::writeInt);
            byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        });
    }

    @Provide
    Arbitrary<RpcRdmaHeader> headers() {
        Arbitrary<Integer> ints = Arbitraries.integers();
        // Any offset whose range stays below 2^64: the decoder refuses one that wraps (MalformedHeaderTest).
        Arbitrary<RdmaSegment> segment = Combinators.combine(ints, Arbitraries.longs().between(0, 0xFFFF_FFFFL),
                Arbitraries.longs()).as(RdmaSegment::new)
                .filter(s -> !org.iwarp4j.ddp.DdpSegmenter.wrapsTaggedOffset(s.offset(), s.length()));
        Arbitrary<ReadSegment> read = Combinators.combine(
                Arbitraries.longs().between(0, 0x3FFF_FFFFL).map(p -> p * 4), segment).as(ReadSegment::new);
        Arbitrary<WriteChunk> chunk = segment.list().ofMaxSize(8).map(WriteChunk::new);
        Arbitrary<ChunkLists> lists = Combinators.combine(read.list().ofMaxSize(8), chunk.list().ofMaxSize(4),
                chunk.optional()).as(ChunkLists::new);
        Arbitrary<RpcRdmaHeader> msg = Combinators.combine(ints, ints, lists)
                .as((x, c, l) -> new RpcRdmaHeader.RdmaMsg(x, 1, c, l));
        Arbitrary<RpcRdmaHeader> nomsg = Combinators.combine(ints, ints, lists.filter(l -> !l.isEmpty()))
                .as((x, c, l) -> new RpcRdmaHeader.RdmaNomsg(x, 1, c, l));
        Arbitrary<RpcRdmaHeader> error = Combinators.combine(ints, ints, Arbitraries.of(RdmaErrorCode.values()))
                .as((x, c, e) -> e == RdmaErrorCode.ERR_CHUNK ? RpcRdmaHeader.RdmaError.errChunk(x, 1, c)
                        : RpcRdmaHeader.RdmaError.errVers(x, 1, c));
        Arbitrary<RpcRdmaHeader> done = Combinators.combine(ints, ints).as((x, c) -> new RpcRdmaHeader.RdmaDone(x, 1, c));
        return Arbitraries.oneOf(msg, nomsg, error, done);
    }

}
