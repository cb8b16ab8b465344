package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import org.iwarp4j.oncrpc.RpcCallInfo;

/**
 * What a transport reads from an RPC message without parsing it (RFC 5531 §9): the direction
 * word, which tells a backward-direction Call from a forward Reply on the same connection (RFC
 * 8167 §4), and the procedure a Call names, which the Upper-Layer Binding is asked about.
 */
final class RpcMessages {

    /** msg_type CALL. */
    static final int CALL = 0;
    /** msg_type REPLY. */
    static final int REPLY = 1;
    /** xid, msg_type, rpcvers, prog, vers, proc. */
    private static final int CALL_PREFIX = 24;

    private RpcMessages() {
    }

    /** msg_type of the message at {@code payload}'s reader index, or -1 if it is too short to say. */
    static int messageType(ByteBuf payload) {
        return payload.readableBytes() < 8 ? -1 : payload.getInt(payload.readerIndex() + 4);
    }

    /** The procedure a Call names, or {@code null} if the message is too short or not a Call. */
    static RpcCallInfo callInfo(ByteBuf payload) {
        int i = payload.readerIndex();
        if (payload.readableBytes() < CALL_PREFIX || payload.getInt(i + 4) != CALL) {
            return null;
        }
        return new RpcCallInfo(payload.getInt(i), payload.getInt(i + 12), payload.getInt(i + 16),
                payload.getInt(i + 20));
    }
}
