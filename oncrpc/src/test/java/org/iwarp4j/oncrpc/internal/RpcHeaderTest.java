package org.iwarp4j.oncrpc.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.AuthStat;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.RpcProtocolException;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.testkit.Hex;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Call and reply headers of RFC 5531 §9 against known octets. */
class RpcHeaderTest {

    static String encode(Consumer<XdrEncoder> body) {
        XdrEncoder out = XdrEncoder.create();
        body.accept(out);
        XdrMessage message = out.toMessage();
        ByteBuf stream = message.stream();
        try {
            return ByteBufUtil.hexDump(stream);
        } finally {
            stream.release();
            message.release();
        }
    }

    static XdrDecoder decoder(String hex) {
        return new XdrDecoder(Unpooled.wrappedBuffer(Hex.decode(hex)));
    }

    @Test
    void nfsNullCallIsVectorVRpcNull() { // testdata/vectors/rpc-over-rdma.txt V-RPC-NULL
        RpcCallHeader header = RpcCallHeader.of(new RpcCallInfo(0x6b8b4567, 100003, 3, 0), OpaqueAuth.NONE,
                OpaqueAuth.NONE);
        assertThat(encode(header::encode)).isEqualTo(Hex.encode(TestVectors.bytes("V-RPC-NULL")));
        assertThat(RpcCallHeader.decode(new XdrDecoder(Unpooled.wrappedBuffer(TestVectors.bytes("V-RPC-NULL")))))
                .isEqualTo(header);
    }

    @Test
    void acceptedRepliesForEveryAcceptStat() {
        String head = "00000007 00000001 00000000 00000000 00000000"; // xid, REPLY, MSG_ACCEPTED, verf AUTH_NONE
        assertThat(encode(RpcReplyHeader.Accepted.success(7, OpaqueAuth.NONE)::encode))
                .isEqualTo(plain(head + "00000000"));
        for (AcceptStat stat : new AcceptStat[] {AcceptStat.PROG_UNAVAIL, AcceptStat.PROC_UNAVAIL,
                AcceptStat.GARBAGE_ARGS, AcceptStat.SYSTEM_ERR}) {
            RpcReplyHeader header = new RpcReplyHeader.Accepted(7, OpaqueAuth.NONE, stat, 0, 0);
            String hex = plain(head + String.format("%08x", stat.code()));
            assertThat(encode(header::encode)).as(stat.name()).isEqualTo(hex);
            assertThat(RpcReplyHeader.decode(decoder(hex))).isEqualTo(header);
        }
        RpcReplyHeader mismatch = RpcReplyHeader.Accepted.progMismatch(7, OpaqueAuth.NONE, 2, 4);
        String hex = plain(head + "00000002 00000002 00000004");
        assertThat(encode(mismatch::encode)).isEqualTo(hex);
        assertThat(RpcReplyHeader.decode(decoder(hex))).isEqualTo(mismatch);
    }

    @Test
    void deniedReplies() {
        RpcReplyHeader rpcMismatch = RpcReplyHeader.Denied.rpcMismatch(7, 2, 2);
        String hex = plain("00000007 00000001 00000001 00000000 00000002 00000002");
        assertThat(encode(rpcMismatch::encode)).isEqualTo(hex);
        assertThat(RpcReplyHeader.decode(decoder(hex))).isEqualTo(rpcMismatch);

        RpcReplyHeader authError = RpcReplyHeader.Denied.authError(7, AuthStat.AUTH_TOOWEAK);
        hex = plain("00000007 00000001 00000001 00000001 00000005");
        assertThat(encode(authError::encode)).isEqualTo(hex);
        assertThat(RpcReplyHeader.decode(decoder(hex))).isEqualTo(authError);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "00000007 00000000 00000000",                            // msg_type CALL
            "00000007 00000001 00000002",                            // reply_stat 2
            "00000007 00000001 00000000 00000000 00000000 00000006", // accept_stat 6
            "00000007 00000001 00000001 00000002",                   // reject_stat 2
            "00000007 00000001 00000000 00000000 00000191",          // verifier body 401 > 400
            "00000007 00000001 00000000 00000000 00000000 00000002 00000001", // PROG_MISMATCH without high
            "00000007 000000"})
    void malformedRepliesAreProtocolErrors(String hex) {
        assertThatThrownBy(() -> RpcReplyHeader.decode(decoder(hex))).isInstanceOf(RpcProtocolException.class);
    }

    @Test
    void authSysCredentialEncodesAsAuthSysParms() { // RFC 5531 Appendix A
        AuthSys sys = new AuthSys(0x01020304, "siwvm", 1000, 100, new int[] {4, 24});
        OpaqueAuth cred = sys.toOpaqueAuth();
        assertThat(cred.flavor()).isEqualTo(RpcConstants.AUTH_SYS);
        assertThat(Hex.encode(cred.body())).isEqualTo(plain(
                "01020304 00000005 73697776 6d000000 000003e8 00000064 00000002 00000004 00000018"));
        assertThat(AuthSys.decode(cred)).isEqualTo(sys);
    }

    /**
     * RFC 5531 Appendix A bounds machinename at 255 octets on the wire, whatever they are: a name
     * of octets that are not UTF-8 (Latin-1 here) is a valid credential, as Linux's
     * svcauth_unix_accept takes it. Decoded with U+FFFD for each bad octet it grew to three times
     * its wire length and was refused as longer than 255.
     */
    @Test
    void authSysMachineNameOf200OctetsThatAreNotUtf8IsAccepted() {
        byte[] name = new byte[200];
        java.util.Arrays.fill(name, (byte) 0xE9);
        io.netty.buffer.ByteBuf body = io.netty.buffer.Unpooled.buffer();
        body.writeInt(7).writeInt(name.length).writeBytes(name).writeInt(1000).writeInt(100).writeInt(0);
        byte[] octets = new byte[body.readableBytes()];
        body.readBytes(octets);
        body.release();

        AuthSys sys = AuthSys.decode(new OpaqueAuth(RpcConstants.AUTH_SYS, octets));

        assertThat(sys.uid()).isEqualTo(1000);
        assertThat(sys.machineName()).as("each octet that is not UTF-8 read as '?'").isEqualTo("?".repeat(200));
    }

    private static String plain(String hex) {
        return hex.replaceAll("\\s", "");
    }
}
