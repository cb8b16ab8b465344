package org.iwarp4j.oncrpc.internal;

import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;

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

    /**
     * Reads a call header up to the procedure's parameters. A truncated header, a msg_type
     * other than CALL or an opaque_auth body over 400 octets is an {@link XdrException}; the
     * rpcvers is returned as received.
     */
    public static RpcCallHeader decode(XdrDecoder in) {
        int xid = in.readInt();
        int mtype = in.readEnum();
        if (mtype != RpcConstants.CALL) {
            throw new XdrException("msg_type " + mtype + " where a CALL was expected");
        }
        return new RpcCallHeader(xid, in.readInt(), in.readInt(), in.readInt(), in.readInt(),
                OpaqueAuth.decode(in), OpaqueAuth.decode(in));
    }

    public void encode(XdrEncoder out) {
        out.writeInt(xid).writeEnum(RpcConstants.CALL).writeInt(rpcVersion)
                .writeInt(program).writeInt(version).writeInt(procedure);
        credential.encode(out);
        verifier.encode(out);
    }
}
