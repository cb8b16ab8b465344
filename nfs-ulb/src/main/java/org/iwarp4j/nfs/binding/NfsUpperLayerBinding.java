package org.iwarp4j.nfs.binding;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Objects;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rpcrdma.UpperLayerBinding;

/**
 * RFC 8267 §4, §5.2 and §6 as an RPC-over-RDMA {@link UpperLayerBinding}: NFS versions 2 and 3 and
 * NFSACL, from the tables of {@link LegacyNfsBinding} and {@link AuxiliaryProgramBinding}, and
 * NFS version 4, whose COMPOUND may carry WRITE data in a Read chunk and READ and READLINK results
 * in Write chunks (ULB-R-012; the Responder pairs the k-th of them with the k-th Write chunk,
 * ULB-R-018).
 *
 * <p>A Requester learns the largest Reply from the Call's own arguments (READ count, READDIR count,
 * READDIRPLUS maxcount; RFC 8267 §3) and the client's {@link ReplySizeLimits} (the longest
 * READLINK path, the ACL allotment of NFSACL GETACL); a Responder learns which procedures may
 * carry a reduced argument (WRITE data, SYMLINK path) and which results go into Write chunks (READ
 * data, READLINK path). The Reply header counted is an accepted reply with an AUTH_NONE verifier
 * (RFC 5531 §9), what servers send to AUTH_NONE and AUTH_SYS callers.
 */
public final class NfsUpperLayerBinding implements UpperLayerBinding {

    private final ReplySizeLimits limits;

    /** With {@link ReplySizeLimits#defaults()}. */
    public NfsUpperLayerBinding() {
        this(ReplySizeLimits.defaults());
    }

    public NfsUpperLayerBinding(ReplySizeLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    private static ProgramBinding bindingOf(int program, int version) {
        if (LegacyNfsBinding.NFS_V2.covers(program, version)) {
            return LegacyNfsBinding.NFS_V2;
        }
        if (LegacyNfsBinding.NFS_V3.covers(program, version)) {
            return LegacyNfsBinding.NFS_V3;
        }
        if (AuxiliaryProgramBinding.NFSACL.covers(program, version)) {
            return AuxiliaryProgramBinding.NFSACL;
        }
        return null;
    }

    /** NFS version 4: any COMPOUND may hold READ, READLINK or WRITE (RFC 8267 §6.1). */
    private static boolean isNfs4(int program, int version) {
        return program == NfsBindingConstants.NFS_PROGRAM && version == 4;
    }

    @Override
    public boolean covers(int program, int version) {
        return bindingOf(program, version) != null || isNfs4(program, version);
    }

    /**
     * The Reply estimate of an NFSv4 COMPOUND is not derived from its operations here: a
     * Requester of NFSv4 sizes its chunks from the session's ca_maxresponsesize (RFC 8267
     * §6.2.2), which only it knows. This answers that bound's usual value for a 1 MiB READ.
     */
    private static final long NFS4_REPLY_BOUND = (1 << 20) + 8192;

    @Override
    public ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage) {
        if (isNfs4(call.program(), call.version())) {
            long whole = ReplyResources.RPC_ACCEPTED_REPLY_HEADER + NFS4_REPLY_BOUND;
            return new ReplyEstimate(whole, whole - (1 << 20), List.of((long) (1 << 20)));
        }
        ProgramBinding binding = bindingOf(call.program(), call.version());
        ProcedureBinding procedure = binding == null ? null : binding.procedure(call.procedure()).orElse(null);
        if (procedure == null) {
            return ReplyEstimate.inlineOnly(ReplyResources.RPC_ACCEPTED_REPLY_HEADER);
        }
        long count = countArgument(call, callMessage);
        long whole = ReplyResources.RPC_ACCEPTED_REPLY_HEADER + procedure.maxResultOctets(count, limits);
        if (!procedure.hasEligibleResult()) {
            return ReplyEstimate.inlineOnly(whole);
        }
        long reduced = ReplyResources.RPC_ACCEPTED_REPLY_HEADER + procedure.reducedResultOctets(count, limits);
        return new ReplyEstimate(whole, reduced, List.of(procedure.writeChunkOctets(count, limits)));
    }

    @Override
    public boolean hasDdpEligibleArgument(RpcCallInfo call) {
        if (isNfs4(call.program(), call.version())) {
            return call.procedure() == 1; // COMPOUND: WRITE data, CREATE's link text (ULB-R-012)
        }
        ProgramBinding binding = bindingOf(call.program(), call.version());
        return binding != null && binding.isDdpEligible(call.procedure(), DdpEligibleItem.Direction.ARGUMENT);
    }

    @Override
    public boolean hasDdpEligibleResult(RpcCallInfo call) {
        if (isNfs4(call.program(), call.version())) {
            return call.procedure() == 1; // COMPOUND: READ data, READLINK text (ULB-R-012, ULB-R-018)
        }
        ProgramBinding binding = bindingOf(call.program(), call.version());
        return binding != null && binding.isDdpEligible(call.procedure(), DdpEligibleItem.Direction.RESULT);
    }

    /**
     * The count argument that bounds the result (RFC 8267 §3): NFSv3 READ count, READDIR count,
     * READDIRPLUS maxcount; NFSv2 READ count, READDIR count. 0 for other procedures or a Call too
     * short to hold it.
     */
    static long countArgument(RpcCallInfo call, XdrMessage callMessage) {
        int v = call.version();
        int p = call.procedure();
        if (call.program() != NfsBindingConstants.NFS_PROGRAM || !hasCount(v, p)) {
            return 0; // e.g. WRITE: no view of its 1 MiB Call is built just to find nothing
        }
        ByteBuf stream = callMessage.stream();
        try {
            int args = argumentsOffset(stream);
            if (args < 0) {
                return 0;
            }
            int fh = v == 3 ? pad(stream, args) : NfsBindingConstants.NFS2_FHSIZE;
            int at;
            if (v == 3 && p == 6) {
                at = args + fh + 8;            // READ3args: file, offset, count
            } else if (v == 3 && p == 16) {
                at = args + fh + 8 + 8;        // READDIR3args: dir, cookie, cookieverf, count
            } else if (v == 3 && p == 17) {
                at = args + fh + 8 + 8 + 4;    // READDIRPLUS3args: dir, cookie, cookieverf, dircount, maxcount
            } else if (v == 2 && p == 6) {
                at = args + fh + 4;            // readargs: file, offset, count, totalcount
            } else if (v == 2 && p == 16) {
                at = args + fh + 4;            // readdirargs: dir, cookie, count
            } else {
                return 0;
            }
            return at >= 0 && at + 4 <= stream.writerIndex() ? stream.getUnsignedInt(at) : 0;
        } finally {
            stream.release();
        }
    }

    private static boolean hasCount(int version, int procedure) {
        return version == 3 ? procedure == 6 || procedure == 16 || procedure == 17
                : version == 2 && (procedure == 6 || procedure == 16);
    }

    /** Offset of the arguments in a call message (RFC 5531 §9), or -1 if it is too short. */
    private static int argumentsOffset(ByteBuf m) {
        int credential = m.readerIndex() + 24;          // xid, mtype, rpcvers, prog, vers, proc
        if (credential + 8 > m.writerIndex()) {
            return -1;
        }
        int verifier = credential + 4 + pad(m, credential + 4);
        if (verifier + 8 > m.writerIndex() || verifier < 0) {
            return -1;
        }
        return verifier + 4 + pad(m, verifier + 4);
    }

    /** A length word at {@code at} and its padded body, as octets after the word; -1 if out of range. */
    private static int pad(ByteBuf m, int at) {
        if (at + 4 > m.writerIndex()) {
            return Integer.MIN_VALUE / 2;
        }
        long length = m.getUnsignedInt(at);
        return length > 1 << 20 ? Integer.MIN_VALUE / 2 : 4 + (int) ((length + 3) & ~3L);
    }
}
