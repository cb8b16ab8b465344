package org.iwarp4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** RFC 8267 §3 with RFC 8166 §3.4.6 and §4.3.3: ULB-R-001, RPC-R-027, RPC-R-054. */
class ReplyResourcesTest {

    private static final ReplySizeLimits LIMITS = ReplySizeLimits.defaults();
    private static final int INLINE_ROOM = 1024 - 28; // default threshold minus an RDMA_MSG header without chunks
    private static final ProcedureBinding NULL = LegacyNfsBinding.NFS_V3.procedure(0).orElseThrow();
    private static final ProcedureBinding READ = LegacyNfsBinding.NFS_V3.procedure(6).orElseThrow();
    private static final ProcedureBinding READDIR = LegacyNfsBinding.NFS_V3.procedure(16).orElseThrow();
    private static final ProcedureBinding READLINK = LegacyNfsBinding.NFS_V3.procedure(5).orElseThrow();

    /** ULB-R-001, RPC-R-027: READ count n -> a Write chunk of n octets; the rest fits inline. */
    @Test
    void readGetsAWriteChunkOfItsCount() {
        assertThat(ReplyResources.plan(READ, 8192, LIMITS, INLINE_ROOM, true))
                .isEqualTo(new ReplyResources(8192, 0));
        assertThat(ReplyResources.plan(READ, 5, LIMITS, INLINE_ROOM, true)).isEqualTo(ReplyResources.NONE);
    }

    /** ULB-R-001, RPC-R-054: READDIR count c -> a Reply chunk of at least header + c. */
    @Test
    void readdirGetsAReplyChunk() {
        ReplyResources r = ReplyResources.plan(READDIR, 8192, LIMITS, INLINE_ROOM, true);
        assertThat(r.writeChunkOctets()).isZero();
        assertThat(r.replyChunkOctets()).isEqualTo(ReplyResources.RPC_ACCEPTED_REPLY_HEADER + 4 + 8192);
    }

    /** RPC-R-054: NULL never needs chunks. */
    @Test
    void nullNeedsNothing() {
        assertThat(ReplyResources.plan(NULL, 0, LIMITS, INLINE_ROOM, true)).isEqualTo(ReplyResources.NONE);
    }

    /** A client that wants the READ data inline gets a Reply chunk for the whole reply instead. */
    @Test
    void withoutWriteChunkTheWholeReplyGoesToTheReplyChunk() {
        ReplyResources r = ReplyResources.plan(READ, 8192, LIMITS, INLINE_ROOM, false);
        assertThat(r).isEqualTo(new ReplyResources(0, ReplyResources.RPC_ACCEPTED_REPLY_HEADER + 104 + 8192));
    }

    /** READLINK: the Write chunk is sized for the client's longest path (RFC 8267 §3). */
    @Test
    void readlinkWriteChunkIsTheLongestPath() {
        assertThat(ReplyResources.plan(READLINK, 0, LIMITS, INLINE_ROOM, true))
                .isEqualTo(new ReplyResources(ReplySizeLimits.DEFAULT_MAX_PATH_LENGTH, 0));
        assertThat(ReplyResources.plan(READLINK, 0, LIMITS.withMaxPathLength(100), INLINE_ROOM, true))
                .isEqualTo(ReplyResources.NONE);
    }
}
