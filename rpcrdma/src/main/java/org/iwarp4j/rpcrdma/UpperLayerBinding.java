package org.iwarp4j.rpcrdma;

import java.util.List;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.XdrMessage;

/**
 * An Upper-Layer Binding (RFC 8166 §6): what RPC-over-RDMA needs to know about an RPC program
 * that it cannot learn from the messages. The NFS binding (RFC 8267) implements it; {@link
 * org.iwarp4j.rpcrdma.sample.EchoBinding} is the binding of the sample echo program.
 *
 * <ul>
 *   <li>Which XDR items are DDP-eligible (§6.1). Senders mark the items themselves ({@link
 *       org.iwarp4j.oncrpc.XdrPiece#ddpEligible()}); the binding tells a Responder whether a Call of
 *       a procedure may have reduced an argument at all, so that a Call that reduced something else
 *       gets ERR_CHUNK (RPC-R-073), and tells both ends whether results may go into Write chunks.</li>
 *   <li>The largest possible Reply to a Call (§6.2, §4.3.3) and the largest each DDP-eligible result
 *       can be (§3.4.6, §4.3.2.2), so that a Requester can provide a Reply chunk and Write chunks
 *       big enough before the Responder has formed the Reply.</li>
 * </ul>
 *
 * Implementations are stateless or thread-safe: both ends call them from several threads.
 */
public interface UpperLayerBinding {

    /** A binding for no program: nothing is DDP-eligible, and replies are sized by the transport's default. */
    UpperLayerBinding NONE = new UpperLayerBinding() {
        @Override
        public boolean covers(int program, int version) {
            return false;
        }

        @Override
        public ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage) {
            throw new UnsupportedOperationException("no binding");
        }

        @Override
        public boolean hasDdpEligibleArgument(RpcCallInfo call) {
            return false;
        }

        @Override
        public boolean hasDdpEligibleResult(RpcCallInfo call) {
            return false;
        }
    };

    /** Whether this binding speaks for the program version; the other methods are asked only then. */
    boolean covers(int program, int version);

    /**
     * Requester: how large the Reply to {@code callMessage} can be. {@code callMessage} is the whole
     * Call from the xid on (a binding may read its arguments, e.g. a READ count, without changing
     * the pieces' indices); the binding must not release it.
     */
    ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage);

    /** Responder: whether a Call of this procedure has a DDP-eligible argument that may arrive in a Read chunk. */
    boolean hasDdpEligibleArgument(RpcCallInfo call);

    /** Both ends: whether the Reply of this procedure has DDP-eligible results that may go into Write chunks. */
    boolean hasDdpEligibleResult(RpcCallInfo call);

    /** The first of {@code bindings} that covers a program; {@link #NONE} for the others. */
    static UpperLayerBinding of(List<UpperLayerBinding> bindings) {
        List<UpperLayerBinding> copy = List.copyOf(bindings);
        return new UpperLayerBinding() {
            private UpperLayerBinding find(int program, int version) {
                for (UpperLayerBinding b : copy) {
                    if (b.covers(program, version)) {
                        return b;
                    }
                }
                return NONE;
            }

            @Override
            public boolean covers(int program, int version) {
                return find(program, version) != NONE;
            }

            @Override
            public ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage) {
                return find(call.program(), call.version()).replyEstimate(call, callMessage);
            }

            @Override
            public boolean hasDdpEligibleArgument(RpcCallInfo call) {
                return find(call.program(), call.version()).hasDdpEligibleArgument(call);
            }

            @Override
            public boolean hasDdpEligibleResult(RpcCallInfo call) {
                return find(call.program(), call.version()).hasDdpEligibleResult(call);
            }
        };
    }

    /**
     * The Reply a Requester must be ready for (RFC 8166 §3.5.3, §4.3.2.2, §4.3.3).
     *
     * @param maxReplySize the largest whole Reply Payload stream, from the xid on, with every
     *     result inline
     * @param maxReducedReplySize the largest Reply Payload stream once the DDP-eligible results
     *     are in the Write chunks; equal to {@code maxReplySize} when there are none
     * @param writeChunkSizes one entry per DDP-eligible result the Reply may carry, in order: the
     *     largest that result can be, without XDR padding (RPC-R-027, RPC-R-030); empty if none
     */
    record ReplyEstimate(long maxReplySize, long maxReducedReplySize, List<Long> writeChunkSizes) {

        public ReplyEstimate {
            writeChunkSizes = List.copyOf(writeChunkSizes);
            if (maxReplySize < 0 || maxReducedReplySize < 0 || maxReducedReplySize > maxReplySize) {
                throw new IllegalArgumentException("sizes must satisfy 0 <= reduced <= whole: "
                        + maxReducedReplySize + ", " + maxReplySize);
            }
            for (long s : writeChunkSizes) {
                if (s < 0) {
                    throw new IllegalArgumentException("negative Write chunk size " + s);
                }
            }
        }

        /** A Reply with no DDP-eligible result and at most {@code maxReplySize} octets. */
        public static ReplyEstimate inlineOnly(long maxReplySize) {
            return new ReplyEstimate(maxReplySize, maxReplySize, List.of());
        }
    }
}
