package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.CB_COMPOUND;

import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.nfs.v4.ChannelAttrs4;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.internal.LogRateLimit;

/**
 * The server's back channel probe ({@link Callbacks#probe}: CB_NULL, then CB_COMPOUND with
 * CB_SEQUENCE) against a client that answers CB_NULL and answers the CB_COMPOUND with given
 * octets, opened to tests outside this package (the fuzz target {@code Nfs4CallbackReplyFuzzTarget}).
 * A retry after NFS4ERR_DELAY is counted, not run.
 */
public final class CallbackProbes {

    /** How a probe ended: callbacks answered, failed, retries asked for, and whether its client was closed. */
    public record Outcome(long answered, long failed, int retries, boolean closed) {
    }

    private CallbackProbes() {
    }

    /**
     * Runs one probe whose CB_COMPOUND reply is {@code reply} (from the xid on; the call's xid is
     * written over its first four octets), every buffer from {@code alloc}.
     */
    public static Outcome probe(ByteBufAllocator alloc, byte[] reply) {
        AtomicInteger retries = new AtomicInteger();
        Callbacks callbacks = new Callbacks(new LogRateLimit(1, 1, TimeUnit.HOURS, System::nanoTime),
                (attempt, retry) -> retries.incrementAndGet());
        ChannelAttrs4 attrs = new ChannelAttrs4(0, 4096, 4096, 0, 8, 1, -1);
        SessionTable.Session session = new SessionTable.Session(new byte[16], null, attrs, attrs, 0, 0x40000000);
        AnsweringClient client = new AnsweringClient(alloc, reply);
        session.backchannel = client;
        callbacks.probe(session);
        return new Outcome(callbacks.answered(), callbacks.failed(), retries.get(), client.closed);
    }

    /** Answers CB_NULL with an accepted, successful reply and CB_COMPOUND with the given octets, at once. */
    private static final class AnsweringClient implements RpcClientTransport {
        private static final byte[] SUCCESS = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        private final ByteBufAllocator alloc;
        private final byte[] reply;
        boolean closed;

        AnsweringClient(ByteBufAllocator alloc, byte[] reply) {
            this.alloc = alloc;
            this.reply = reply;
        }

        @Override
        public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
            call.release();
            // xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS (RFC 5531 §9)
            byte[] octets = info.procedure() == CB_COMPOUND ? reply.clone() : SUCCESS.clone();
            for (int i = 0; i < Math.min(4, octets.length); i++) {
                octets[i] = (byte) (info.xid() >>> (24 - 8 * i));
            }
            return CompletableFuture.completedFuture(XdrMessage.of(alloc.buffer(octets.length).writeBytes(octets)));
        }

        @Override
        public String name() {
            return "fuzz";
        }

        @Override
        public ByteBufAllocator alloc() {
            return alloc;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
