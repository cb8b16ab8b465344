package org.iwarp4j.oncrpc.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcTimeoutException;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.XdrMessage;

/**
 * Calls from an RPC/TCP server to its client on the client's own connection: the backward
 * direction NFSv4.1 uses for callbacks over TCP (RFC 8881 §2.10.3.1: the back channel may share
 * the fore channel's connection). Calls leave as records like the server's replies; the client's
 * REPLY records, which the server's connection handler recognises by msg_type (RFC 5531 §9),
 * come back through {@link #reply}. Both directions may use the same xid: msg_type tells them apart.
 *
 * <p>Bounded: at most {@code maxOutstanding} calls wait for a reply (one more fails at once), and
 * each fails with {@link RpcTimeoutException} after {@code timeout} unless its caller gave up
 * first. A reply whose xid is not outstanding is dropped and counted.
 */
public final class TcpBackwardCalls implements RpcClientTransport {

    private final Channel channel;
    private final int maxOutstanding;
    private final Duration timeout;
    private final Map<Integer, Outstanding> outstanding = new HashMap<>();
    private final AtomicLong unknownReplies = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private boolean closed;

    private record Outstanding(CompletableFuture<XdrMessage> future, ScheduledFuture<?> timer) {
    }

    public TcpBackwardCalls(Channel channel, int maxOutstanding, Duration timeout) {
        this.channel = channel;
        this.maxOutstanding = maxOutstanding;
        this.timeout = timeout;
    }

    @Override
    public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
        CompletableFuture<XdrMessage> future = new CompletableFuture<>();
        int xid = info.xid();
        synchronized (this) {
            String refused = closed || !channel.isActive() ? "connection closed"
                    : maxOutstanding == 0 ? "the backward direction is off"
                    : outstanding.size() >= maxOutstanding ? maxOutstanding + " backward calls outstanding"
                    : outstanding.containsKey(xid) ? "xid 0x" + Integer.toHexString(xid) + " already outstanding"
                    : null;
            if (refused != null) {
                call.release();
                return CompletableFuture.failedFuture(new RpcTransportException(refused));
            }
            ScheduledFuture<?> timer = channel.eventLoop().schedule(() -> {
                if (forget(xid, future)) {
                    future.completeExceptionally(new RpcTimeoutException("backward call xid 0x"
                            + Integer.toHexString(xid) + " not answered within " + timeout));
                }
            }, timeout.toNanos(), TimeUnit.NANOSECONDS);
            outstanding.put(xid, new Outstanding(future, timer));
        }
        future.whenComplete((r, e) -> {
            if (future.isCancelled()) {
                forget(xid, future); // the caller gave up: a late reply is dropped as unknown
            }
        });
        sent.incrementAndGet();
        channel.writeAndFlush(call).addListener(f -> {
            if (!f.isSuccess() && forget(xid, future)) {
                future.completeExceptionally(new RpcTransportException("cannot send backward call: " + f.cause(),
                        f.cause()));
            }
        });
        return future;
    }

    /** Removes the xid if it still belongs to {@code future}; true if it did. */
    private synchronized boolean forget(int xid, CompletableFuture<XdrMessage> future) {
        Outstanding o = outstanding.get(xid);
        if (o == null || o.future() != future) {
            return false;
        }
        outstanding.remove(xid);
        o.timer().cancel(false);
        return true;
    }

    /** A REPLY record that arrived on the connection; {@code record} (from the xid on) is consumed. */
    public void reply(ByteBuf record) {
        int xid = record.getInt(record.readerIndex());
        Outstanding o;
        synchronized (this) {
            o = outstanding.remove(xid);
        }
        if (o == null) {
            unknownReplies.incrementAndGet();
            record.release();
            return;
        }
        o.timer().cancel(false);
        XdrMessage reply = XdrMessage.of(record);
        if (!o.future().complete(reply)) {
            reply.release();
        }
    }

    /** The connection is gone: every outstanding call fails, and so does every later one. */
    public void connectionLost() {
        List<Outstanding> failed;
        synchronized (this) {
            closed = true;
            failed = new ArrayList<>(outstanding.values());
            outstanding.clear();
        }
        for (Outstanding o : failed) {
            o.timer().cancel(false);
            o.future().completeExceptionally(new RpcTransportException("connection lost"));
        }
    }

    /** Calls waiting for their reply now. */
    public synchronized int outstandingCalls() {
        return outstanding.size();
    }

    /** Calls sent so far. */
    public long sentCalls() {
        return sent.get();
    }

    /** Replies dropped because their xid was not outstanding (late, duplicate or made up). */
    public long unknownReplies() {
        return unknownReplies.get();
    }

    @Override
    public String name() {
        return "tcp-backchannel";
    }

    @Override
    public ByteBufAllocator alloc() {
        return channel.alloc();
    }

    /** Closing the backward direction closes nothing: it ends with the connection. */
    @Override
    public void close() {
    }
}
