package org.iwarp4j.rpcrdma;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcProcedure;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.sample.EchoProgram;

/**
 * A test program with two DDP-eligible results per reply, for several Write chunks (RFC 8166
 * §4.3.2.1) and a union arm without data (§4.3.2.2):
 * <pre>
 * program PAIR {
 *     version 1 {
 *         opaque_pair TWO(unsigned a, unsigned b) = 1;   // a, then b octets of the SOURCE pattern, both eligible
 *         maybe_pair  MAYBE(bool first, unsigned n) = 2; // bool first; [opaque n if first]; opaque n, eligible
 *     } = 1;
 * } = 0x20495702;
 * </pre>
 */
final class PairProgram {

    static final int PROGRAM = 0x2049_5702;
    static final int VERSION = 1;
    static final int TWO = 1;
    static final int MAYBE = 2;
    private static final int MAX = 1 << 20;

    private PairProgram() {
    }

    static RpcProgram create() {
        return RpcProgram.builder(PROGRAM, VERSION)
                .procedure(TWO, RpcProcedure.of((ctx, args, results) -> {
                    int a = args.readInt();
                    int b = args.readInt();
                    results.writeDdpEligibleOpaque(EchoProgram.source(a, ctx.transport().alloc()), MAX);
                    results.writeDdpEligibleOpaque(EchoProgram.source(b, ctx.transport().alloc()), MAX);
                }))
                .procedure(MAYBE, RpcProcedure.of((ctx, args, results) -> {
                    boolean first = args.readBoolean();
                    int n = args.readInt();
                    results.writeBoolean(first);
                    if (first) {
                        results.writeDdpEligibleOpaque(EchoProgram.source(n, ctx.transport().alloc()), MAX);
                    }
                    results.writeDdpEligibleOpaque(EchoProgram.source(n, ctx.transport().alloc()), MAX);
                }))
                .build();
    }

    /** The binding: one Write chunk per possible result, as large as the counts asked for. */
    static UpperLayerBinding binding() {
        return new UpperLayerBinding() {
            @Override
            public boolean covers(int program, int version) {
                return program == PROGRAM && version == VERSION;
            }

            @Override
            public ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage) {
                ByteBuf s = callMessage.stream();
                try {
                    long x = s.getUnsignedInt(s.writerIndex() - 8);
                    long y = s.getUnsignedInt(s.writerIndex() - 4);
                    long a = call.procedure() == TWO ? x : y;
                    long b = y;
                    long reduced = 24 + 4 + 4 + 4 + 4;
                    return new ReplyEstimate(reduced + a + b + 6, reduced, List.of(a, b));
                } finally {
                    s.release();
                }
            }

            @Override
            public boolean hasDdpEligibleArgument(RpcCallInfo call) {
                return false;
            }

            @Override
            public boolean hasDdpEligibleResult(RpcCallInfo call) {
                return true;
            }
        };
    }
}
