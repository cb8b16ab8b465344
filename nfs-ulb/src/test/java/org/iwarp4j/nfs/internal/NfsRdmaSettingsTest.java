package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.junit.jupiter.api.Test;

/**
 * An NFS server's RPC-over-RDMA chunks are bounded by its largest READ and WRITE (RFC 8166
 * §8.1.4), as its TCP records are by its largest WRITE: a Call's Read chunks are pulled before
 * NFS can refuse them. A bound set on purpose is kept.
 */
class NfsRdmaSettingsTest {

    @Test
    void aServersChunksAreBoundedByItsLargestReadOrWrite() {
        RpcRdmaSettings s = NfsRdmaSettings.forNfsServer(RpcRdmaSettings.defaults(), new Nfs3Limits(1 << 20, 512 * 1024, 8192));
        assertThat(s.maxChunkSize()).isEqualTo((1 << 20) + NfsRdmaSettings.CHUNK_HEADROOM);
        assertThat(RpcRdmaSettings.defaults().maxChunkSize()).as("the transport's own default").isEqualTo(16L << 20);
    }

    @Test
    void aChunkBoundSetOnPurposeIsKept() {
        RpcRdmaSettings base = RpcRdmaSettings.builder().maxChunkSize(8L << 20).build();
        assertThat(NfsRdmaSettings.forNfsServer(base, Nfs3Limits.defaults()).maxChunkSize()).isEqualTo(8L << 20);
    }
}
