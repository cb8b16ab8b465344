package org.iwarp4j.oncrpc.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.AuthStat;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.internal.RpcCallHeader;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader.Accepted;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader.Denied;
import org.iwarp4j.testkit.FuzzSeeds;
import org.junit.jupiter.api.Test;

/**
 * The {@code enc-*} seeds of {@link RpcClientReplyFuzzTarget}, written by the project's reply
 * header encoder in the target's layout (options octet, then the reply): one reply for every
 * accept_stat and reject_stat, and the ways a reply can be wrong. Fails if the committed files are
 * not what the encoder writes now (see {@link FuzzSeeds}).
 */
class RpcClientReplySeedsTest {

    private static final int XID = 0x1234_5678;

    @Test
    void theEncoderMadeSeedsAreCurrent() {
        FuzzSeeds.check(RpcClientReplyFuzzTarget.class, seeds());
    }

    static Map<String, byte[]> seeds() {
        Map<String, byte[]> seeds = new TreeMap<>();
        seeds.put("success", seed(0, header(Accepted.success(XID, OpaqueAuth.NONE))));
        seeds.put("success-short-verifier", seed(0, header(Accepted.success(XID,
                new OpaqueAuth(RpcConstants.AUTH_SHORT, "verifier".getBytes(StandardCharsets.US_ASCII))))));
        for (AcceptStat stat : AcceptStat.values()) {
            if (stat != AcceptStat.SUCCESS && stat != AcceptStat.PROG_MISMATCH) {
                seeds.put(name(stat.name()), seed(0, header(new Accepted(XID, OpaqueAuth.NONE, stat, 0, 0))));
            }
        }
        seeds.put("prog-mismatch", seed(0, header(Accepted.progMismatch(XID, OpaqueAuth.NONE, 2, 4))));
        seeds.put("rpc-mismatch", seed(0, header(Denied.rpcMismatch(XID, 2, 2))));
        seeds.put("auth-error-badcred", seed(0, header(Denied.authError(XID, AuthStat.AUTH_BADCRED))));
        seeds.put("auth-error-unnamed", seed(0, header(new Denied(XID, RpcConstants.AUTH_ERROR, 0, 0, 99))));
        seeds.put("accept-stat-unknown", seed(0, XdrOctets.of(out -> out.writeInt(XID).writeEnum(RpcConstants.REPLY)
                .writeEnum(RpcConstants.MSG_ACCEPTED).writeEnum(0).writeUnsignedInt(0).writeEnum(6))));
        seeds.put("reject-stat-unknown", seed(0, XdrOctets.of(out -> out.writeInt(XID).writeEnum(RpcConstants.REPLY)
                .writeEnum(RpcConstants.MSG_DENIED).writeEnum(2))));
        seeds.put("a-call", seed(0, XdrOctets.of(out -> RpcCallHeader.of(new RpcCallInfo(XID, 100003, 3, 0),
                OpaqueAuth.NONE, OpaqueAuth.NONE).encode(out))));
        byte[] success = header(Accepted.success(XID, OpaqueAuth.NONE));
        seeds.put("short-header", seed(0, Arrays.copyOf(success, 16)));
        seeds.put("other-xid", seed(1, success));
        seeds.put("results", seed(2, XdrOctets.of(out -> {
            Accepted.success(XID, OpaqueAuth.NONE).encode(out);
            out.writeOpaque("results".getBytes(StandardCharsets.US_ASCII), 64);
        })));
        seeds.put("results-too-long", seed(2, XdrOctets.of(out -> {
            Accepted.success(XID, OpaqueAuth.NONE).encode(out);
            out.writeOpaque(new byte[65], 65);
        })));
        // Reduced: the length word stays in the stream, the item (the last four octets) comes apart.
        seeds.put("results-reduced", seed(6, XdrOctets.of(out -> {
            Accepted.success(XID, OpaqueAuth.NONE).encode(out);
            out.writeUnsignedInt(4).writeFixedOpaque("data".getBytes(StandardCharsets.US_ASCII));
        })));
        return seeds;
    }

    private static String name(String constant) {
        return constant.toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    private static byte[] seed(int options, byte[] reply) {
        byte[] seed = new byte[1 + reply.length];
        seed[0] = (byte) options;
        System.arraycopy(reply, 0, seed, 1, reply.length);
        return seed;
    }

    private static byte[] header(RpcReplyHeader header) {
        return XdrOctets.of(header::encode);
    }
}
