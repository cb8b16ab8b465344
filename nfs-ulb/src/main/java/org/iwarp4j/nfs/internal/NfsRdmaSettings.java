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
}
