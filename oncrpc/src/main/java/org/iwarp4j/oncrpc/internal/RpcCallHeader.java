package org.iwarp4j.oncrpc.internal;

import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * The header of a call message (RFC 5531 §9):
 * <pre>
 * struct rpc_msg { unsigned int xid; union switch (msg_type mtype) { case CALL: call_body cbody; ... } };
 * struct call_body { unsigned int rpcvers; unsigned int prog; unsigned int vers; unsigned int proc;
 *                    opaque_auth cred; opaque_auth verf; /&#42; procedure-specific parameters start here &#42;/ };
 * </pre>
 */
public record RpcCallHeader(int xid, int rpcVersion, int program, int version, int procedure,
                            OpaqueAuth credential, OpaqueAuth verifier) {

    /** A header with rpcvers 2. */
    public static RpcCallHeader of(RpcCallInfo info, OpaqueAuth credential, OpaqueAuth verifier) {
        return new RpcCallHeader(info.xid(), RpcConstants.RPC_VERSION, info.program(), info.version(),
                info.procedure(), credential, verifier);
    }

    public RpcCallInfo info() {
        return new RpcCallInfo(xid, program, version, procedure);
    }

    public void encode(XdrEncoder out) {
        out.writeInt(xid).writeEnum(RpcConstants.CALL).writeInt(rpcVersion)
                .writeInt(program).writeInt(version).writeInt(procedure);
        credential.encode(out);
        verifier.encode(out);
    }
}
