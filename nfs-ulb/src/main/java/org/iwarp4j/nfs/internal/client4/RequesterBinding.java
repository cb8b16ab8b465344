package org.iwarp4j.nfs.internal.client4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.iwarp4j.nfs.binding.Nfs4Binding;
import org.iwarp4j.nfs.binding.NfsUpperLayerBinding;
import org.iwarp4j.nfs.binding.ReplyResources;
import org.iwarp4j.nfs.binding.ReplySizeEstimate;
import org.iwarp4j.nfs.binding.ReplySizeLimits;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rpcrdma.UpperLayerBinding;

/**
 * The NFS binding as the NFSv4 client's Requester uses it (RFC 8267 §6): it walks the COMPOUND the
 * client built and sizes the Reply from its operations (§6.2) instead of assuming the largest READ
 * — one Write chunk of the READ's count per READ, in order (the Responder pairs the k-th READ with
 * the k-th Write chunk, §6.4.1), and a Reply chunk when the rest of the Reply can exceed the inline
 * threshold, as a READDIR's maxcount can. COMPOUNDs with an operation this walker does not know
 * get {@link NfsUpperLayerBinding}'s conservative estimate. The client puts at most one READ and
 * one WRITE in a COMPOUND, so it never needs more than one Write chunk and one Read chunk, the
 * limits §6.4.2 asks a client to stay within when it knows nothing of the server's (ULB-R-023).
 *
 * <p>The attributes the client asks for are of fixed size but for owner and owner_group, two short
 * strings ("user@domain" or a number), and it asks for no delegation, so the unpredictable parts of
 * GETATTR, READDIR entries and OPEN results are allotted {@link #UNPREDICTABLE_ALLOTMENT} octets; a
 * READDIR's maxcount bounds its reply whatever the entries hold.
 */
final class RequesterBinding implements UpperLayerBinding {

    static final long UNPREDICTABLE_ALLOTMENT = 1024;

    private final NfsUpperLayerBinding base = new NfsUpperLayerBinding();
    private final ReplySizeLimits limits = new ReplySizeLimits(ReplySizeLimits.DEFAULT_MAX_PATH_LENGTH,
            UNPREDICTABLE_ALLOTMENT, OptionalLong.empty());

    @Override
    public boolean covers(int program, int version) {
        return base.covers(program, version);
    }

    @Override
    public boolean hasDdpEligibleArgument(RpcCallInfo call) {
        return base.hasDdpEligibleArgument(call);
    }

    @Override
    public boolean hasDdpEligibleResult(RpcCallInfo call) {
        return base.hasDdpEligibleResult(call);
    }

    @Override
    public ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage) {
        if (call.program() != PROGRAM || call.version() != VERSION || call.procedure() != NFSPROC4_COMPOUND) {
            return base.replyEstimate(call, callMessage);
        }
        ByteBuf stream = callMessage.stream();
        try {
            ReplyEstimate estimate = walk(stream);
            return estimate != null ? estimate : base.replyEstimate(call, callMessage);
        } catch (IndexOutOfBoundsException e) {
            return base.replyEstimate(call, callMessage);
        } finally {
            stream.release();
        }
    }

    /** The estimate from the COMPOUND's operations, or null if one is not known here. */
    private ReplyEstimate walk(ByteBuf m) {
        int at = m.readerIndex() + 24;                // xid, mtype, rpcvers, prog, vers, proc
        at += 4 + opaque(m, at + 4);                  // credential
        at += 4 + opaque(m, at + 4);                  // verifier
        int tag = m.getInt(at);
        at += opaque(m, at);
        int minor = m.getInt(at);
        long count = m.getUnsignedInt(at + 4);
        at += 8;
        if (minor < 1 || minor > 2 || count > 64) {
            return null;
        }
        long whole = ReplyResources.RPC_ACCEPTED_REPLY_HEADER + 4 + ReplySizeEstimate.roundUp(tag) + 4 + 4;
        List<Long> reads = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            int opcode = m.getInt(at);
            at += 4;
            long countArgument = 0;
            switch (opcode) {
                case OP_SEQUENCE -> at += 16 + 16;
                case OP_PUTROOTFH, OP_GETFH, OP_SAVEFH, OP_RESTOREFH, OP_LOOKUPP, OP_READLINK -> { }
                case OP_PUTFH, OP_LOOKUP, OP_REMOVE -> at += opaque(m, at);
                case OP_GETATTR -> at += bitmap(m, at);
                case OP_READ -> {
                    countArgument = m.getUnsignedInt(at + 16 + 8);
                    reads.add(countArgument);
                    at += 16 + 8 + 4;
                }
                case OP_WRITE -> at += 16 + 8 + 4 + opaque(m, at + 16 + 8 + 4);
                case OP_COMMIT -> at += 12;
                case OP_CLOSE -> at += 4 + 16;
                case OP_READDIR -> {
                    countArgument = m.getUnsignedInt(at + 20);
                    at += 24;
                    at += bitmap(m, at);
                }
                case OP_OPEN -> {
                    at += 12;                              // seqid, share_access, share_deny
                    at += 8;                               // clientid
                    at += opaque(m, at);                   // owner
                    int opentype = m.getInt(at);
                    at += 4;
                    if (opentype == OPEN4_CREATE) {
                        int mode = m.getInt(at);
                        at += 4;
                        if (mode == UNCHECKED4 || mode == GUARDED4) {
                            at += bitmap(m, at);
                            at += opaque(m, at);
                        } else {
                            return null;
                        }
                    }
                    int claim = m.getInt(at);
                    at += 4;
                    if (claim == CLAIM_NULL) {
                        at += opaque(m, at);
                    } else if (claim != CLAIM_FH) {
                        return null;
                    }
                }
                case OP_RECLAIM_COMPLETE -> at += 4;
                case OP_DESTROY_SESSION -> at += 16;
                case OP_DESTROY_CLIENTID -> at += 8;
                default -> {
                    return null; // EXCHANGE_ID, CREATE_SESSION and others: the conservative estimate
                }
            }
            var op = Nfs4Binding.operation(opcode, minor);
            if (op.isEmpty()) {
                return null;
            }
            whole += 4 + op.get().replySize().maxOctets(countArgument, limits);
        }
        long reduced = whole;
        for (long r : reads) {
            reduced -= ReplySizeEstimate.roundUp(r);
        }
        return new ReplyEstimate(whole, reduced, reads);
    }

    /** A length word at {@code at} and its padded body, in octets. */
    private static int opaque(ByteBuf m, int at) {
        long length = m.getUnsignedInt(at);
        if (length > Integer.MAX_VALUE - 8) {
            throw new IndexOutOfBoundsException("length " + length);
        }
        return 4 + (int) ((length + 3) & ~3L);
    }

    private static int bitmap(ByteBuf m, int at) {
        long words = m.getUnsignedInt(at);
        if (words > 8) {
            throw new IndexOutOfBoundsException("bitmap of " + words + " words");
        }
        return 4 + 4 * (int) words;
    }
}
