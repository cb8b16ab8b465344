package org.iwarp4j.oncrpc.internal;

import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.AuthStat;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.RpcProtocolException;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;

/**
 * The header of a reply message (RFC 5531 §9):
 * <pre>
 * union reply_body switch (reply_stat stat) { case MSG_ACCEPTED: accepted_reply areply; case MSG_DENIED: rejected_reply rreply; };
 * struct accepted_reply { opaque_auth verf; union switch (accept_stat stat) {
 *     case SUCCESS: opaque results[0]; case PROG_MISMATCH: struct { unsigned int low; unsigned int high; } mismatch_info;
 *     default: void; } reply_data; };
 * union rejected_reply switch (reject_stat stat) {
 *     case RPC_MISMATCH: struct { unsigned int low; unsigned int high; } mismatch_info; case AUTH_ERROR: auth_stat stat; };
 * </pre>
 */
public sealed interface RpcReplyHeader permits RpcReplyHeader.Accepted, RpcReplyHeader.Denied {

    int xid();

    void encode(XdrEncoder out);

    /**
     * Reads a reply header up to the results. A truncated header, a msg_type other than REPLY,
     * or an unknown reply_stat / accept_stat / reject_stat is an {@link RpcProtocolException}.
     */
    static RpcReplyHeader decode(XdrDecoder in) {
        try {
            int xid = in.readInt();
            int mtype = in.readEnum();
            if (mtype != RpcConstants.REPLY) {
                throw new RpcProtocolException("msg_type " + mtype + " where a REPLY was expected");
            }
            int replyStat = in.readEnum();
            switch (replyStat) {
                case RpcConstants.MSG_ACCEPTED -> {
                    OpaqueAuth verifier = OpaqueAuth.decode(in);
                    int code = in.readEnum();
                    AcceptStat stat = AcceptStat.fromCode(code);
                    if (stat == null) {
                        throw new RpcProtocolException("unknown accept_stat " + code);
                    }
                    if (stat == AcceptStat.PROG_MISMATCH) {
                        return Accepted.progMismatch(xid, verifier, in.readInt(), in.readInt());
                    }
                    return new Accepted(xid, verifier, stat, 0, 0);
                }
                case RpcConstants.MSG_DENIED -> {
                    int rejectStat = in.readEnum();
                    if (rejectStat == RpcConstants.RPC_MISMATCH) {
                        return Denied.rpcMismatch(xid, in.readInt(), in.readInt());
                    }
                    if (rejectStat == RpcConstants.AUTH_ERROR) {
                        return new Denied(xid, rejectStat, 0, 0, in.readEnum());
                    }
                    throw new RpcProtocolException("unknown reject_stat " + rejectStat);
                }
                default -> throw new RpcProtocolException("unknown reply_stat " + replyStat);
            }
        } catch (XdrException e) {
            throw new RpcProtocolException("malformed reply header: " + e.getMessage(), e);
        }
    }

    /**
     * MSG_ACCEPTED with a verifier and an accept_stat; {@code low}/{@code high} only for
     * PROG_MISMATCH. For SUCCESS the results follow.
     */
    record Accepted(int xid, OpaqueAuth verifier, AcceptStat stat, int low, int high) implements RpcReplyHeader {

        public static Accepted success(int xid, OpaqueAuth verifier) {
            return new Accepted(xid, verifier, AcceptStat.SUCCESS, 0, 0);
        }

        public static Accepted progMismatch(int xid, OpaqueAuth verifier, int low, int high) {
            return new Accepted(xid, verifier, AcceptStat.PROG_MISMATCH, low, high);
        }

        @Override
        public void encode(XdrEncoder out) {
            out.writeInt(xid).writeEnum(RpcConstants.REPLY).writeEnum(RpcConstants.MSG_ACCEPTED);
            verifier.encode(out);
            out.writeEnum(stat.code());
            if (stat == AcceptStat.PROG_MISMATCH) {
                out.writeInt(low).writeInt(high);
            }
        }
    }

    /**
     * MSG_DENIED: RPC_MISMATCH with {@code low}/{@code high}, or AUTH_ERROR with
     * {@code authStat}.
     */
    record Denied(int xid, int rejectStat, int low, int high, int authStat) implements RpcReplyHeader {

        public static Denied rpcMismatch(int xid, int low, int high) {
            return new Denied(xid, RpcConstants.RPC_MISMATCH, low, high, 0);
        }

        public static Denied authError(int xid, AuthStat stat) {
            return new Denied(xid, RpcConstants.AUTH_ERROR, 0, 0, stat.code());
        }

        @Override
        public void encode(XdrEncoder out) {
            out.writeInt(xid).writeEnum(RpcConstants.REPLY).writeEnum(RpcConstants.MSG_DENIED)
                    .writeEnum(rejectStat);
            if (rejectStat == RpcConstants.RPC_MISMATCH) {
                out.writeInt(low).writeInt(high);
            } else {
                out.writeEnum(authStat);
            }
        }
    }
}
