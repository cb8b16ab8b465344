package org.iwarp4j.rpcrdma.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.HeaderLimits;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderEncoder;

/**
 * Jazzer fuzz target for the RPC-over-RDMA header decoder (RFC 8166 §4), chunk lists included.
 * Every build replays the inputs in {@code RpcRdmaHeaderFuzzTargetInputs/fuzz/}: the RFC test
 * vectors and the headers of calls and replies in the Linux NFS-over-RDMA capture of {@code testdata/captures/} (xprtrdma and
 * svcrdma, with Read and Write chunks); {@code scripts/fuzz.sh} fuzzes it (docs/fuzzing.md).
 *
 * <p>Properties checked on every input: the decoder never throws; a rejection consumes nothing; an
 * accepted header never claims more octets than the input holds; and the encoding is canonical, so
 * re-encoding an accepted header (other than RDMA_MSGP, which is never sent) gives back exactly the
 * octets the decoder consumed.
 */
class RpcRdmaHeaderFuzzTarget {

    private static final RpcRdmaHeaderDecoder DECODER = new RpcRdmaHeaderDecoder(new HeaderLimits(16, 8, 16, 1 << 24));

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        ByteBuf in = Unpooled.wrappedBuffer(input);
        HeaderDecodeResult r = DECODER.decode(in);
        if (r instanceof HeaderDecodeResult.Rejected rejected) {
            assertThat(in.readerIndex()).isZero();
            assertThat(rejected.problem()).isNotNull();
            return;
        }
        RpcRdmaHeader h = ((HeaderDecodeResult.Decoded) r).header();
        int consumed = in.readerIndex();
        assertThat(consumed).isBetween(16, input.length);
        if (h instanceof RpcRdmaHeader.RdmaMsgp) {
            return;
        }
        ByteBuf out = Unpooled.buffer();
        RpcRdmaHeaderEncoder.encode(h, out);
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(java.util.Arrays.copyOf(input, consumed));
    }
}
