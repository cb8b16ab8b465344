package org.iwarp4j.rpcrdma.sample;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rpcrdma.UpperLayerBinding;

/**
 * The Upper-Layer Binding of {@link EchoProgram} (RFC 8166 §6): the {@code data} argument of SINK
 * is DDP-eligible (a Read chunk), and so is the result of SOURCE (a Write chunk of {@code count}
 * octets). ECHO's data is not eligible, so a large ECHO travels as a Long Call and a Long Reply.
 *
 * <p>Reply sizes: every accepted reply starts with 24 octets (xid, msg_type, reply_stat, an
 * AUTH_NONE verifier, accept_stat). ECHO returns its argument, so its reply is at most the
 * call's length plus that header; SOURCE returns a length word and {@code count} octets plus padding.
 */
public final class EchoBinding implements UpperLayerBinding {

    /** xid, msg_type, reply_stat, verifier flavor and length, accept_stat. */
    static final int ACCEPTED_REPLY_HEADER = 24;

    private final int maxData;

    /** The binding of {@link EchoProgram#create()}. */
    public EchoBinding() {
        this(EchoProgram.DEFAULT_MAX_DATA);
    }

    /** The binding of {@link EchoProgram#create(int)} with the same {@code maxData}. */
    public EchoBinding(int maxData) {
        this.maxData = maxData;
    }

    @Override
    public boolean covers(int program, int version) {
        return program == EchoProgram.PROGRAM && version == EchoProgram.VERSION;
    }

    @Override
    public ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage) {
        switch (call.procedure()) {
            case EchoProgram.PROC_ECHO:
                return ReplyEstimate.inlineOnly(ACCEPTED_REPLY_HEADER + (long) callMessage.readableBytes());
            case EchoProgram.PROC_SINK:
                return ReplyEstimate.inlineOnly(ACCEPTED_REPLY_HEADER + 8);
            case EchoProgram.PROC_SOURCE: {
                long count = Math.min(sourceCount(callMessage), maxData);
                long reduced = ACCEPTED_REPLY_HEADER + 4;
                return new ReplyEstimate(reduced + count + XdrMessage.padding((int) count), reduced, List.of(count));
            }
            default: // NULL and unknown procedures: the header, or an error reply
                return ReplyEstimate.inlineOnly(ACCEPTED_REPLY_HEADER);
        }
    }

    @Override
    public boolean hasDdpEligibleArgument(RpcCallInfo call) {
        return call.procedure() == EchoProgram.PROC_SINK;
    }

    @Override
    public boolean hasDdpEligibleResult(RpcCallInfo call) {
        return call.procedure() == EchoProgram.PROC_SOURCE;
    }

    /** SOURCE's only argument, the count, is the call's last word. */
    private static long sourceCount(XdrMessage callMessage) {
        ByteBuf stream = callMessage.stream();
        try {
            return stream.readableBytes() < 4 ? 0 : stream.getUnsignedInt(stream.writerIndex() - 4);
        } finally {
            stream.release();
        }
    }
}
