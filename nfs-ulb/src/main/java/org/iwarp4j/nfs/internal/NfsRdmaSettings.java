package org.iwarp4j.nfs.internal;

import org.iwarp4j.nfs.binding.NfsUpperLayerBinding;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;

/**
 * RPC-over-RDMA settings for NFSv3: the RFC 8267 binding, 4 KiB inline thresholds each way (what
 * Linux's xprtrdma and svcrdma announce in their RFC 8797 private data, so neither end is pushed
 * to Long messages for small calls), and the backward direction as {@code base} sets it (one
 * credit by default): NFSv3 has no callbacks, NFSv4.1 sends its callbacks there (RFC 8267 §6.5.2,
 * RFC 8167).
 */
public final class NfsRdmaSettings {

    /** Inline threshold Linux announces (RFC 8797 Send and Receive Size). */
    public static final int LINUX_INLINE_SIZE = 4096;

    private NfsRdmaSettings() {
    }

    /** {@code base} with the NFS binding and the defaults above for what {@code base} left at its default. */
    public static RpcRdmaSettings forNfs(RpcRdmaSettings base) {
        RpcRdmaSettings.Builder b = base.toBuilder().binding(new NfsUpperLayerBinding());
        RpcRdmaSettings defaults = RpcRdmaSettings.defaults();
        if (base.inlineSendSize() == defaults.inlineSendSize() && base.inlineReceiveSize() == defaults.inlineReceiveSize()) {
            b.inlineSize(LINUX_INLINE_SIZE);
        }
        return b.build();
    }

    /** Octets past the largest READ or WRITE payload that a chunk may carry: the RPC and NFS headers around it. */
    static final int CHUNK_HEADROOM = 64 * 1024;

    /**
     * {@link #forNfs} for a server with {@code limits}: unless {@code base} set its own, no chunk
     * larger than the largest READ or WRITE payload and {@link #CHUNK_HEADROOM} (RFC 8166 §8.1.4
     * lets a Responder bound chunks): a Call's Read chunks are pulled in whole before the NFS
     * layer can refuse an oversized WRITE, so the transport's 16 MiB default would let one Call
     * cost sixteen times what the same server takes over TCP (maxWrite + 64 KiB a record).
     */
    public static RpcRdmaSettings forNfsServer(RpcRdmaSettings base, Nfs3Limits limits) {
        RpcRdmaSettings s = forNfs(base);
        if (base.maxChunkSize() != RpcRdmaSettings.defaults().maxChunkSize()) {
            return s;
        }
        long most = (long) Math.max(limits.maxRead(), limits.maxWrite()) + CHUNK_HEADROOM;
        return s.toBuilder().maxChunkSize(Math.min(most, s.maxChunkSize())).build();
    }
}
