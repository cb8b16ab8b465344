package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;

/**
 * A successful reply (accept_stat SUCCESS, RFC 5531 §9): the verifier and a decoder positioned
 * at the procedure's results. It holds the reply message; {@link #close()} releases it, and
 * buffers taken from {@link #results()} stay valid only if the caller retained them (the
 * decoder's {@code readOpaqueBuf} does).
 */
public final class RpcReply implements AutoCloseable {

    private final int xid;
    private final OpaqueAuth verifier;
    private final XdrMessage message;
    private final ByteBuf stream;
    private final XdrDecoder results;
    private boolean closed;

    RpcReply(int xid, OpaqueAuth verifier, XdrMessage message, ByteBuf stream, XdrDecoder results) {
        this.xid = xid;
        this.verifier = verifier;
        this.message = message;
        this.stream = stream;
        this.results = results;
    }

    public int xid() {
        return xid;
    }

    /** The reply's verifier; AUTH_NONE for AUTH_NONE and AUTH_SYS calls. */
    public OpaqueAuth verifier() {
        return verifier;
    }

    /** The results, positioned after the reply header. */
    public XdrDecoder results() {
        return results;
    }

    /** The whole reply message, from the xid on (borrowed; valid until {@link #close()}). */
    public XdrMessage message() {
        return message;
    }

    /** Releases the reply message; idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            stream.release();
            message.release();
        }
    }
}
