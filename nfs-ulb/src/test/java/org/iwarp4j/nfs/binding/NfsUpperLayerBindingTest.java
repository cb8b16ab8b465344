package org.iwarp4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.util.function.Consumer;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Read3Args;
import org.iwarp4j.nfs.v3.Readdir3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.Write3Args;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rpcrdma.UpperLayerBinding.ReplyEstimate;
import org.junit.jupiter.api.Test;

/**
 * The RFC 8267 tables as rpcrdma's UpperLayerBinding: reply estimates from real Call messages
 * (ULB-R-001, RPC-R-027, RPC-R-054) and DDP-eligibility per procedure (ULB-R-006, RPC-R-073).
 */
class NfsUpperLayerBindingTest {

    private final NfsUpperLayerBinding binding = new NfsUpperLayerBinding();
    private static final NfsFh3 FH = new NfsFh3(new byte[28]);

    /** A Call message from the xid on, with an AUTH_SYS credential, and these arguments. */
    private static XdrMessage call(int version, int procedure, Consumer<XdrEncoder> args) {
        XdrEncoder out = XdrEncoder.create();
        out.writeInt(0x1234).writeInt(0).writeInt(2).writeInt(100003).writeInt(version).writeInt(procedure);
        new AuthSys(1, "client.example", 1000, 1000, new int[] {4, 24}).toOpaqueAuth().encode(out);
        OpaqueAuth.NONE.encode(out);
        args.accept(out);
        return out.toMessage();
    }

    private ReplyEstimate estimate(int version, int procedure, Consumer<XdrEncoder> args) {
        XdrMessage m = call(version, procedure, args);
        try {
            return binding.replyEstimate(new RpcCallInfo(0x1234, 100003, version, procedure), m);
        } finally {
            m.release();
        }
    }

    /** ULB-R-001, RPC-R-027: READ count 262144 -> a Write chunk of 262144; the rest is 24 + 104 octets. */
    @Test
    void readAsksForAWriteChunkOfItsCount() {
        ReplyEstimate e = estimate(3, 6, new Read3Args(FH, 0, 262144)::encode);
        assertThat(e.writeChunkSizes()).containsExactly(262144L);
        assertThat(e.maxReducedReplySize()).isEqualTo(24 + 104);
        assertThat(e.maxReplySize()).isEqualTo(24 + 104 + 262144);
    }

    /**
     * A WRITE has no count that bounds its reply: its estimate never reads the Call, so the 1 MiB
     * Call of every WRITE over RDMA is not wrapped in a composite view just to find nothing.
     */
    @Test
    void aProcedureWithoutACountArgumentIsEstimatedWithoutReadingItsCall() {
        XdrMessage m = call(3, 7, new Write3Args(FH, 0, 4, StableHow.UNSTABLE,
                Unpooled.wrappedBuffer(new byte[4]))::encode);
        m.release(); // from now on any view of its octets throws
        ReplyEstimate e = binding.replyEstimate(new RpcCallInfo(0x1234, 100003, 3, 7), m);
        assertThat(e.writeChunkSizes()).isEmpty();
        assertThat(e.maxReplySize()).isLessThan(1024);
    }

    /** ULB-R-001, RPC-R-054: READDIR and READDIRPLUS are bounded by their count / maxcount (a Reply chunk). */
    @Test
    void readdirIsBoundedByItsCount() {
        assertThat(estimate(3, 16, new Readdir3Args(FH, 0, 0, 8192)::encode))
                .isEqualTo(ReplyEstimate.inlineOnly(24 + 4 + 8192));
        assertThat(estimate(3, 17, new Readdirplus3Args(FH, 0, 0, 4096, 65536)::encode))
                .isEqualTo(ReplyEstimate.inlineOnly(24 + 4 + 65536));
    }

    @Test
    void fixedSizeProceduresAreInlineOnly() {
        assertThat(estimate(3, 1, FH::encode)).isEqualTo(ReplyEstimate.inlineOnly(24 + 88));
        assertThat(estimate(3, 0, o -> { })).isEqualTo(ReplyEstimate.inlineOnly(24));
        ReplyEstimate readlink = estimate(3, 5, FH::encode);
        assertThat(readlink.writeChunkSizes()).containsExactly((long) ReplySizeLimits.DEFAULT_MAX_PATH_LENGTH);
    }

    /** NFSv2 READ: readargs file (32 octets), offset, count, totalcount; MAXDATA caps it. */
    @Test
    void nfsV2Read() {
        ReplyEstimate e = estimate(2, 6, o -> o.writeFixedOpaque(new byte[32]).writeInt(0).writeInt(100_000).writeInt(0));
        assertThat(e.writeChunkSizes()).containsExactly(8192L);
    }

    /** A Call too short to hold its count is estimated with count 0 rather than failing. */
    @Test
    void truncatedCallDoesNotThrow() {
        XdrMessage m = XdrMessage.of(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 1}));
        try {
            assertThat(binding.replyEstimate(new RpcCallInfo(1, 100003, 3, 6), m).writeChunkSizes()).containsExactly(0L);
        } finally {
            m.release();
        }
    }

    /** ULB-R-006, RPC-R-073: only WRITE and SYMLINK arguments, only READ and READLINK results. */
    @Test
    void eligibilityPerProcedure() {
        for (int p = 0; p <= 21; p++) {
            RpcCallInfo info = new RpcCallInfo(1, 100003, 3, p);
            assertThat(binding.hasDdpEligibleArgument(info)).as("argument of %d", p).isEqualTo(p == 7 || p == 10);
            assertThat(binding.hasDdpEligibleResult(info)).as("result of %d", p).isEqualTo(p == 5 || p == 6);
        }
        assertThat(binding.covers(100003, 3)).isTrue();
        assertThat(binding.covers(100003, 2)).isTrue();
        assertThat(binding.covers(100227, 3)).isTrue();
        assertThat(binding.covers(100003, 4)).as("NFSv4 COMPOUND (ULB-R-012)").isTrue();
        assertThat(binding.hasDdpEligibleArgument(new RpcCallInfo(1, 100003, 4, 1))).isTrue();
        assertThat(binding.hasDdpEligibleResult(new RpcCallInfo(1, 100003, 4, 1))).isTrue();
        assertThat(binding.hasDdpEligibleArgument(new RpcCallInfo(1, 100003, 4, 0))).as("NULL").isFalse();
        assertThat(binding.covers(100003, 5)).isFalse();
        assertThat(binding.covers(100005, 3)).as("MOUNT runs over TCP (ULB-R-010)").isFalse();
        assertThat(binding.hasDdpEligibleArgument(new RpcCallInfo(1, 100227, 3, 2))).isFalse();
    }

    /** ULB-R-011: NFSACL GETACL is sized with the client's ACL allotment. */
    @Test
    void getaclUsesTheClientsAllotment() {
        NfsUpperLayerBinding small = new NfsUpperLayerBinding(new ReplySizeLimits(4096, 1000, java.util.OptionalLong.empty()));
        XdrMessage m = call(3, 1, FH::encode);
        try {
            assertThat(small.replyEstimate(new RpcCallInfo(1, 100227, 3, 1), m))
                    .isEqualTo(ReplyEstimate.inlineOnly(24 + 4 + 88 + 4 + 1000));
        } finally {
            m.release();
        }
    }
}
