package org.iwarp4j.oncrpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.oncrpc.internal.RpcCallHeader;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the RPC call header (RFC 5531 §9, {@link RpcCallHeader#decode}) and the
 * AUTH_SYS credential in it (RFC 5531 App. A, {@link AuthSys#decode}). The input is one RPC
 * message. Seeds: NFSv3 and NFS_ACL calls (with AUTH_SYS credentials) of the Linux NFS-over-RDMA capture
 * in {@code testdata/captures/}.
 *
 * <p>Properties: the only exception is {@link XdrException}; a decoded header encodes to octets
 * that decode to a header encoding to the same octets again, no longer than what was consumed;
 * the input buffer is released.
 */
class RpcCallHeaderFuzzTarget {

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ByteBuf in = alloc.buffer(input.length).writeBytes(input);
        try {
            RpcCallHeader header;
            try {
                header = RpcCallHeader.decode(new XdrDecoder(in));
            } catch (XdrException e) {
                return;
            }
            int consumed = in.readerIndex();
            byte[] once = encode(header);
            assertThat(once.length).isEqualTo(consumed);
            assertThat(encode(decode(once))).isEqualTo(once);
            if (header.credential().flavor() == RpcConstants.AUTH_SYS) {
                try {
                    AuthSys.decode(header.credential());
                } catch (XdrException e) {
                    // a malformed credential: the server answers AUTH_BADCRED
                }
            }
        } finally {
            in.release();
        }
        FuzzInput.assertNothingHeld(alloc);
    }

    private static byte[] encode(RpcCallHeader header) {
        return XdrOctets.of(header::encode);
    }

    private static RpcCallHeader decode(byte[] octets) {
        return RpcCallHeader.decode(new XdrDecoder(io.netty.buffer.Unpooled.wrappedBuffer(octets)));
    }
}
