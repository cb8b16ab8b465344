package org.iwarp4j.rpcrdma.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.function.Consumer;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rpcrdma.UpperLayerBinding;
import org.iwarp4j.rpcrdma.UpperLayerBinding.ReplyEstimate;
import org.junit.jupiter.api.Test;

/** The echo program's binding: eligibility (RPC-R-015) and reply sizing (RPC-R-027, RPC-R-054). */
class EchoBindingTest {

    private final EchoBinding binding = new EchoBinding();

    static RpcCallInfo info(int procedure) {
        return new RpcCallInfo(0x1234, EchoProgram.PROGRAM, EchoProgram.VERSION, procedure);
    }

    /** A call as RpcClient encodes it: header with AUTH_NONE, then the arguments. */
    static XdrMessage call(int procedure, Consumer<XdrEncoder> args) {
        XdrEncoder out = XdrEncoder.create();
        // The call header (RFC 5531 §9), written here field by field: the encoder that RpcClient uses
        // lives in oncrpc's internal package, which that module does not export.
        RpcCallInfo info = info(procedure);
        out.writeInt(info.xid()).writeEnum(RpcConstants.CALL).writeInt(RpcConstants.RPC_VERSION)
                .writeInt(info.program()).writeInt(info.version()).writeInt(info.procedure());
        OpaqueAuth.NONE.encode(out);
        OpaqueAuth.NONE.encode(out);
        args.accept(out);
        return out.toMessage();
    }

    @Test
    void coversOnlyTheEchoProgramVersionOne() {
        assertThat(binding.covers(EchoProgram.PROGRAM, 1)).isTrue();
        assertThat(binding.covers(EchoProgram.PROGRAM, 2)).isFalse();
        assertThat(binding.covers(100003, 3)).isFalse();
        assertThat(UpperLayerBinding.of(List.of(binding)).covers(EchoProgram.PROGRAM, 1)).isTrue();
        assertThat(UpperLayerBinding.NONE.covers(EchoProgram.PROGRAM, 1)).isFalse();
    }

    @Test
    void onlySinkDataAndSourceResultsAreDdpEligible() { // RPC-R-015
        assertThat(binding.hasDdpEligibleArgument(info(EchoProgram.PROC_SINK))).isTrue();
        assertThat(binding.hasDdpEligibleArgument(info(EchoProgram.PROC_ECHO))).isFalse();
        assertThat(binding.hasDdpEligibleArgument(info(EchoProgram.PROC_SOURCE))).isFalse();
        assertThat(binding.hasDdpEligibleResult(info(EchoProgram.PROC_SOURCE))).isTrue();
        assertThat(binding.hasDdpEligibleResult(info(EchoProgram.PROC_ECHO))).isFalse();
        assertThat(binding.hasDdpEligibleResult(info(EchoProgram.PROC_SINK))).isFalse();
    }

    @Test
    void sourceNeedsAWriteChunkOfCountOctetsWithoutPadding() { // RPC-R-027, RPC-R-030
        XdrMessage call = call(EchoProgram.PROC_SOURCE, a -> a.writeUnsignedInt(5));
        try {
            int before = call.readableBytes();
            ReplyEstimate e = binding.replyEstimate(info(EchoProgram.PROC_SOURCE), call);
            assertThat(e.writeChunkSizes()).containsExactly(5L);
            assertThat(e.maxReducedReplySize()).isEqualTo(28);
            assertThat(e.maxReplySize()).isEqualTo(28 + 8);
            assertThat(call.readableBytes()).isEqualTo(before);
            assertThat(call.refCnt()).isEqualTo(1);
        } finally {
            call.release();
        }
    }

    @Test
    void sourceCountIsCappedByMaxData() {
        EchoBinding small = new EchoBinding(4096);
        XdrMessage call = call(EchoProgram.PROC_SOURCE, a -> a.writeUnsignedInt(1L << 30));
        try {
            assertThat(small.replyEstimate(info(EchoProgram.PROC_SOURCE), call).writeChunkSizes())
                    .containsExactly(4096L);
        } finally {
            call.release();
        }
    }

    @Test
    void echoRepliesAreAsLongAsTheCallPlusAReplyHeader() { // RPC-R-054
        XdrMessage call = call(EchoProgram.PROC_ECHO, a -> a.writeOpaque(new byte[3000], 1 << 20));
        try {
            ReplyEstimate e = binding.replyEstimate(info(EchoProgram.PROC_ECHO), call);
            assertThat(e.writeChunkSizes()).isEmpty();
            assertThat(e.maxReplySize()).isEqualTo(24 + call.readableBytes()).isGreaterThan(24 + 4 + 3000);
            assertThat(e.maxReducedReplySize()).isEqualTo(e.maxReplySize());
        } finally {
            call.release();
        }
    }

    @Test
    void sinkDataIsADdpEligiblePieceOfTheCall() { // RPC-R-017: the length word stays inline
        XdrMessage call = call(EchoProgram.PROC_SINK,
                a -> a.writeDdpEligibleOpaque(Unpooled.wrappedBuffer(new byte[5]), 1 << 20));
        try {
            assertThat(call.pieces()).extracting(p -> p.ddpEligible()).containsExactly(false, true);
            assertThat(call.pieces().get(1).data().readableBytes()).isEqualTo(5);
            assertThat(binding.replyEstimate(info(EchoProgram.PROC_SINK), call)).isEqualTo(ReplyEstimate.inlineOnly(32));
        } finally {
            call.release();
        }
    }
}
