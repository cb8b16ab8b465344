package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderEncoder;

/**
 * Backward-direction Calls from the Responder end to the Requester end of one connection (RFC 8167,
 * NFSv4.1 callbacks). Inline only: a backward Call and its Reply are RDMA_MSG without chunks, so a
 * Call longer than the reply-direction inline threshold fails at once. At most
 * {@link RpcRdmaSettings#backchannelCredits()} are in flight, the Receives the Requester end posted
 * for them; the others wait.
 */
public final class BackwardCalls implements RpcClientTransport {

    private final RpcRdmaSettings settings;
    private final RdmaEndpoint endpoint;
    private final Map<Integer, CompletableFuture<XdrMessage>> inFlight = new HashMap<>();
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    private int maxInFlight;
    private boolean closed;

    /** One backward Call; identity matters (a record's equals would compare the buffers' contents). */
    private static final class Pending {
        private final RpcCallInfo info;
        private final ByteBuf send;
        private final CompletableFuture<XdrMessage> future;

        Pending(RpcCallInfo info, ByteBuf send, CompletableFuture<XdrMessage> future) {
            this.info = info;
            this.send = send;
            this.future = future;
        }

        RpcCallInfo info() {
            return info;
        }

        ByteBuf send() {
            return send;
        }

        CompletableFuture<XdrMessage> future() {
            return future;
        }
    }

    BackwardCalls(RpcRdmaSettings settings, RdmaEndpoint endpoint) {
        this.settings = settings;
        this.endpoint = endpoint;
    }

    @Override
    public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
        ByteBuf send;
        try {
            if (settings.backchannelCredits() == 0) {
                throw new RpcTransportException("the backward direction is off (backchannelCredits 0)");
            }
            RpcRdmaHeader h = new RpcRdmaHeader.RdmaMsg(info.xid(), RpcRdmaConstants.VERSION,
                    settings.backchannelCredits(), ChunkLists.NONE);
            int length = RpcRdmaHeaderEncoder.encodedLength(h) + call.readableBytes();
            if (length > endpoint.sendThreshold()) {
                throw new RpcTransportException("backward Call of " + length + " octets does not fit the inline threshold "
                        + endpoint.sendThreshold() + " (backward messages are inline only)");
            }
            send = PooledByteBufAllocator.DEFAULT.directBuffer(length);
            RpcRdmaHeaderEncoder.encode(h, send);
            for (XdrPiece p : call.pieces()) {
                send.writeBytes(p.data(), p.data().readerIndex(), p.data().readableBytes());
                if (p.ddpEligible()) {
                    send.writeZero(XdrMessage.padding(p.data().readableBytes()));
                }
            }
        } catch (RpcTransportException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            call.release();
        }
        Pending p = new Pending(info, send, new CompletableFuture<>());
        synchronized (this) {
            if (closed) {
                send.release();
                return CompletableFuture.failedFuture(new RpcTransportException("connection closed"));
            }
            waiting.add(p);
        }
        p.future().whenComplete((r, e) -> {
            if (p.future().isCancelled()) {
                boolean freed;
                synchronized (this) {
                    if (waiting.remove(p)) {
                        p.send().release();
                    }
                    // A call given up (its caller's timeout) gives its credit back, as knfsd's
                    // backchannel frees the request slot of a callback that timed out; a late
                    // Reply is then dropped as one with an unknown xid. Otherwise one callback the
                    // client never answers would hold the only credit for good.
                    freed = inFlight.remove(p.info().xid(), p.future());
                }
                if (freed) {
                    pump();
                }
            }
        });
        pump();
        return p.future();
    }

    private void pump() {
        List<Pending> toSend = new ArrayList<>();
        synchronized (this) {
            while (!waiting.isEmpty() && inFlight.size() < settings.backchannelCredits()) {
                Pending p = waiting.poll();
                inFlight.put(p.info().xid(), p.future());
                maxInFlight = Math.max(maxInFlight, inFlight.size());
                toSend.add(p);
            }
        }
        for (Pending p : toSend) {
            endpoint.send(p.send(), OptionalInt.empty()).whenComplete((v, e) -> {
                if (e != null) {
                    completed(p.info().xid()).ifPresent(f -> f.completeExceptionally(e));
                }
            });
        }
    }

    private synchronized java.util.Optional<CompletableFuture<XdrMessage>> completed(int xid) {
        return java.util.Optional.ofNullable(inFlight.remove(xid));
    }

    /** A backward Reply (RDMA_MSG whose RPC message is a REPLY); {@code message} is consumed. */
    void reply(RpcRdmaHeader header, ByteBuf message) {
        java.util.Optional<CompletableFuture<XdrMessage>> f = completed(header.xid());
        if (f.isEmpty()) {
            message.release(); // unknown XID: dropped
            return;
        }
        XdrMessage reply = XdrMessage.of(message);
        if (!f.get().complete(reply)) {
            reply.release();
        }
        pump();
    }

    void connectionLost() {
        List<CompletableFuture<XdrMessage>> failed;
        synchronized (this) {
            closed = true;
            failed = new ArrayList<>(inFlight.values());
            inFlight.clear();
            for (Pending p : waiting) {
                p.send().release();
                failed.add(p.future());
            }
            waiting.clear();
        }
        failed.forEach(f -> f.completeExceptionally(new RpcTransportException("connection lost")));
    }

    /** The most backward Calls that were in flight at once. */
    public synchronized int maxInFlight() {
        return maxInFlight;
    }

    @Override
    public String name() {
        return "rdma-backchannel";
    }

    @Override
    public ByteBufAllocator alloc() {
        return PooledByteBufAllocator.DEFAULT;
    }

    /** Closing the backward direction closes nothing: it ends with the connection. */
    @Override
    public void close() {
    }
}
