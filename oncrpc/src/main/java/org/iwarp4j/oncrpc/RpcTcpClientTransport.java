package org.iwarp4j.oncrpc;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side of ONC RPC on plain TCP with record marking (RFC 5531 §11): one
 * connection, any number of pipelined calls, replies matched by xid. A reply whose xid
 * matches no outstanding call (e.g. one that arrives after its call timed out) is dropped and
 * counted in {@link #unknownXidReplies()}. See {@link RpcClientTransport} for the contract.
 *
 * <p><b>Connection loss.</b> As Linux's RPC client does, the transport connects again when its
 * connection is lost with calls outstanding and sends those calls again, with the same xids and
 * the same octets, in the order they were made (a server's duplicate request cache recognises
 * them: {@link RpcDispatcher}). It keeps each call's message until its reply for that. A call
 * sent {@link Builder#maxRetransmissions} times more without a reply fails with {@link
 * RpcTransportException} at the next loss, so that a call the server closes the connection for
 * (a record over its limit) cannot make a loop; if connecting fails, every outstanding call fails,
 * and the next call connects again. A connection lost with no call outstanding is made again by the
 * next call. {@link Builder#reconnect(boolean) reconnect(false)}: every outstanding call fails when
 * the connection is lost, and further calls fail.
 */
public final class RpcTcpClientTransport implements RpcClientTransport {

    private static final Logger log = LoggerFactory.getLogger(RpcTcpClientTransport.class);

    /** Sends of one call after its first, on new connections, before a loss fails it (Linux's {@code retrans=2}). */
    public static final int DEFAULT_MAX_RETRANSMISSIONS = 2;

    private final SocketAddress server;
    private final Bootstrap bootstrap;
    private final EventLoopGroup ownGroup;
    private final boolean reconnect;
    private final int maxRetransmissions;
    private final Object lock = new Object();
    /** Calls awaiting their reply, in the order they were made. Guarded by {@code lock}. */
    private final LinkedHashMap<Integer, Outstanding> pending = new LinkedHashMap<>();
    /** The connection; null before the first and while connecting again. Guarded by {@code lock}. */
    private Channel channel;
    private boolean connecting;
    private boolean closed;
    private long connections;
    private long retransmissions;
    private final AtomicLong unknownXid = new AtomicLong();

    /** One call awaiting its reply; its message is kept for a retransmission until then. */
    private final class Outstanding {
        final RpcCallInfo info;
        final XdrMessage call;
        final CompletableFuture<XdrMessage> reply = new Reply(this);
        /** Times sent. Guarded by the transport's lock, as is {@code released}. */
        int sends;
        boolean released;

        Outstanding(RpcCallInfo info, XdrMessage call) {
            this.info = info;
            this.call = call;
        }
    }

    private RpcTcpClientTransport(SocketAddress server, Bootstrap bootstrap, EventLoopGroup ownGroup, int maxRecordSize,
                                  int maxFragmentSize, boolean reconnect, int maxRetransmissions) {
        this.server = server;
        this.bootstrap = bootstrap.handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new RecordMarkingDecoder(maxRecordSize), new RecordMarkingEncoder(maxFragmentSize),
                        new ClientHandler(RpcTcpClientTransport.this));
            }
        });
        this.ownGroup = ownGroup;
        this.reconnect = reconnect;
        this.maxRetransmissions = maxRetransmissions;
    }

    /** A builder for a connection. */
    public static Builder builder() {
        return new Builder();
    }

    /** Connects with the default options. */
    public static CompletableFuture<RpcTcpClientTransport> connect(SocketAddress server) {
        return builder().connect(server);
    }

    @Override
    public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
        Outstanding o = new Outstanding(info, call);
        String refused = null;
        Channel via = null;
        boolean connect = false;
        synchronized (lock) {
            if (closed) {
                refused = "RPC/TCP connection to " + server + " is closed";
            } else if (pending.containsKey(info.xid())) {
                refused = "a call with " + info + " is already outstanding";
            } else if (channel == null && !reconnect) {
                refused = "RPC/TCP connection to " + server + " closed";
            } else {
                pending.put(info.xid(), o);
                via = channel;
                if (via == null && !connecting) {
                    connecting = true;
                    connect = true;
                }
            }
        }
        if (refused != null) {
            o.reply.completeExceptionally(new RpcTransportException(refused));
            return o.reply;
        }
        o.reply.whenComplete((r, e) -> forget(o));
        if (via != null) {
            send(via, o);
        }
        if (connect) {
            connectAgain();
        }
        return o.reply;
    }

    /** Writes {@code o} on {@code via}, keeping its message for a retransmission. */
    private void send(Channel via, Outstanding o) {
        XdrMessage message;
        synchronized (lock) {
            if (o.released) {
                return; // answered, timed out or failed meanwhile
            }
            if (o.sends++ > 0) {
                retransmissions++;
            }
            message = o.call.retain();
        }
        via.writeAndFlush(message).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                // The connection is broken: its loss retransmits the call or fails it.
                log.debug("cannot send {} to {}: {}", o.info, server, f.cause().toString());
                via.close();
            }
        });
    }

    /**
     * A call's reply future that forgets the call before anyone sees it fail or cancelled: the
     * stages callers add run before one this transport adds (they are run last-added first), so a
     * caller told of a timeout or a lost connection finds the call no longer outstanding.
     */
    private final class Reply extends CompletableFuture<XdrMessage> {
        private final Outstanding call;

        Reply(Outstanding call) {
            this.call = call;
        }

        @Override
        public boolean completeExceptionally(Throwable ex) {
            forget(call);
            return super.completeExceptionally(ex);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            forget(call);
            return super.cancel(mayInterruptIfRunning);
        }
    }

    /** The call has its outcome: it is no longer outstanding, and its message goes. */
    private void forget(Outstanding o) {
        synchronized (lock) {
            pending.remove(o.info.xid(), o);
            if (o.released) {
                return;
            }
            o.released = true;
        }
        o.call.release();
    }

    private static void fail(List<Outstanding> calls, String why) {
        for (Outstanding o : calls) {
            o.reply.completeExceptionally(new RpcTransportException(why));
        }
    }

    @Override
    public String name() {
        return RpcTcpServer.TRANSPORT_NAME;
    }

    @Override
    public ByteBufAllocator alloc() {
        return ByteBufAllocator.DEFAULT; // what every connection's channel allocates with
    }

    /** The server's address. */
    public SocketAddress remoteAddress() {
        return server;
    }

    /** Replies dropped because no call was outstanding with their xid (or they were not replies). */
    public long unknownXidReplies() {
        return unknownXid.get();
    }

    /** Calls waiting for their reply. */
    public int outstandingCalls() {
        synchronized (lock) {
            return pending.size();
        }
    }

    /** Connections made: 1 plus those made again after a loss. */
    public long connections() {
        synchronized (lock) {
            return connections;
        }
    }

    /** Calls sent again on a new connection. */
    public long retransmissions() {
        synchronized (lock) {
            return retransmissions;
        }
    }

    /** Whether the connection is open (not closed, and not lost and waiting to be made again). */
    public boolean isOpen() {
        synchronized (lock) {
            return !closed && channel != null && channel.isActive();
        }
    }

    @Override
    public String state() {
        synchronized (lock) {
            String connection = closed ? "closed" : channel != null && channel.isActive() ? "open"
                    : connecting ? "connecting again" : "lost";
            return "connection " + connection + " (" + connections + " made, " + retransmissions
                    + " calls retransmitted), " + pending.size() + " calls awaiting a reply, " + unknownXid.get()
                    + " replies with an unknown xid";
        }
    }

    @Override
    public void close() {
        Channel ch;
        List<Outstanding> failed;
        synchronized (lock) {
            closed = true;
            ch = channel;
            channel = null;
            failed = new ArrayList<>(pending.values());
        }
        fail(failed, "RPC/TCP connection to " + server + " closed");
        if (ch != null) {
            // Waiting is impossible (and unnecessary) when a callback on the event loop closes us.
            boolean wait = !ch.eventLoop().inEventLoop();
            ChannelFuture closing = ch.close();
            if (wait) {
                closing.awaitUninterruptibly();
            }
        }
        if (ownGroup != null) {
            io.netty.util.concurrent.Future<?> stopping = ownGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            if (ch == null || !ch.eventLoop().inEventLoop()) {
                stopping.awaitUninterruptibly();
            }
        }
    }

    /** The first connection: the future fails, and an own event loop stops, if it cannot be made. */
    private CompletableFuture<RpcTcpClientTransport> connectFirst() {
        synchronized (lock) {
            connecting = true;
        }
        CompletableFuture<RpcTcpClientTransport> result = new CompletableFuture<>();
        bootstrap.connect(server).addListener((ChannelFuture f) -> {
            if (f.isSuccess() && connected(f.channel())) {
                result.complete(this);
                return;
            }
            if (ownGroup != null) {
                ownGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
            result.completeExceptionally(new RpcTransportException("cannot connect to " + server + ": "
                    + f.cause(), f.cause()));
        });
        return result;
    }

    /** Connects again; the outstanding calls go out on the new connection, or fail if it cannot be made. */
    private void connectAgain() {
        bootstrap.connect(server).addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                connected(f.channel());
                return;
            }
            List<Outstanding> failed;
            synchronized (lock) {
                connecting = false;
                failed = new ArrayList<>(pending.values());
            }
            log.debug("connecting to {} again failed: {}", server, String.valueOf(f.cause()));
            fail(failed, "RPC/TCP connection to " + server + " closed, and connecting again failed: " + f.cause());
        });
    }

    /** A connection is made: it becomes the connection, and the calls outstanding go out on it. */
    private boolean connected(Channel ch) {
        List<Outstanding> resend;
        synchronized (lock) {
            connecting = false;
            if (closed) {
                ch.close();
                return false;
            }
            channel = ch;
            connections++;
            resend = new ArrayList<>(pending.values());
        }
        for (Outstanding o : resend) {
            send(ch, o);
        }
        return true;
    }

    private void received(ByteBuf record) {
        if (record.readableBytes() < 8
                || record.getInt(record.readerIndex() + 4) != RpcConstants.REPLY) {
            unknownXid.incrementAndGet();
            log.debug("dropped a {}-octet record from {} that is not an RPC reply", record.readableBytes(), server);
            record.release();
            return;
        }
        int xid = record.getInt(record.readerIndex());
        Outstanding o;
        synchronized (lock) {
            o = pending.remove(xid);
        }
        if (o == null) {
            unknownXid.incrementAndGet();
            log.debug("dropped a reply with unknown xid 0x{} from {}", Integer.toHexString(xid), server);
            record.release();
            return;
        }
        XdrMessage message = XdrMessage.of(record);
        if (!o.reply.complete(message)) {
            message.release();
        }
    }

    /** {@code lost} is closed: the calls outstanding wait for a new connection, or fail. */
    private void connectionLost(Channel lost) {
        List<Outstanding> failed = new ArrayList<>();
        List<Outstanding> exhausted = new ArrayList<>();
        boolean connect = false;
        synchronized (lock) {
            if (lost != channel) {
                return;
            }
            channel = null;
            if (closed) {
                return; // close() fails them
            }
            for (Outstanding o : pending.values()) {
                if (!reconnect) {
                    failed.add(o);
                } else if (o.sends > maxRetransmissions) {
                    exhausted.add(o);
                }
            }
            if (reconnect && pending.size() > exhausted.size()) {
                connecting = true;
                connect = true;
            }
        }
        fail(failed, "RPC/TCP connection to " + server + " closed");
        fail(exhausted, "RPC/TCP connection to " + server + " closed with the call outstanding, after it was sent "
                + (maxRetransmissions + 1) + " times");
        if (connect) {
            connectAgain();
        }
    }

    /** Options of an {@link RpcTcpClientTransport}. */
    public static final class Builder {
        private int maxRecordSize = 8 << 20;
        private int maxFragmentSize = RpcConstants.FRAGMENT_LENGTH_MASK;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private EventLoopGroup group;
        private Class<? extends SocketChannel> channelClass = NioSocketChannel.class;
        private boolean reconnect = true;
        private int maxRetransmissions = DEFAULT_MAX_RETRANSMISSIONS;

        private Builder() {
        }

        /**
         * Whether a lost connection is made again and the outstanding calls sent again on it
         * (default true, as Linux's RPC client; see the class comment).
         */
        public Builder reconnect(boolean reconnect) {
            this.reconnect = reconnect;
            return this;
        }

        /**
         * How many times one call is sent again on a new connection before the next loss fails it
         * (default {@value RpcTcpClientTransport#DEFAULT_MAX_RETRANSMISSIONS}, Linux's {@code retrans} for TCP mounts).
         */
        public Builder maxRetransmissions(int times) {
            if (times < 0) {
                throw new IllegalArgumentException("retransmissions must be 0 or more: " + times);
            }
            this.maxRetransmissions = times;
            return this;
        }

        /** Largest reply record accepted (default 8 MiB); a larger one closes the connection. */
        public Builder maxRecordSize(int octets) {
            this.maxRecordSize = octets;
            return this;
        }

        /** Largest fragment of a call record (default: one fragment per record). */
        public Builder maxFragmentSize(int octets) {
            this.maxFragmentSize = octets;
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /**
         * Runs on {@code group} (not shut down by {@link #close()}) with channels of
         * {@code channelClass}; by default the connection has its own NIO event loop.
         */
        public Builder eventLoopGroup(EventLoopGroup group, Class<? extends SocketChannel> channelClass) {
            this.group = group;
            this.channelClass = channelClass;
            return this;
        }

        /** Connects; fails with {@link RpcTransportException}. */
        public CompletableFuture<RpcTcpClientTransport> connect(SocketAddress server) {
            EventLoopGroup ownGroup = group == null ? new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()) : null;
            int maxRecord = maxRecordSize;
            int maxFragment = maxFragmentSize;
            Bootstrap bootstrap = new Bootstrap().group(group == null ? ownGroup : group).channel(channelClass)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
            return new RpcTcpClientTransport(server, bootstrap, ownGroup, maxRecord, maxFragment, reconnect,
                    maxRetransmissions).connectFirst();
        }
    }

    private static final class ClientHandler extends ChannelInboundHandlerAdapter {
        private final RpcTcpClientTransport transport;

        ClientHandler(RpcTcpClientTransport transport) {
            this.transport = transport;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf record) {
                transport.received(record);
            } else {
                ctx.fireChannelRead(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            transport.connectionLost(ctx.channel());
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.warn("RPC/TCP connection to {} closed: {}", ctx.channel().remoteAddress(), cause.getMessage());
            ctx.close();
        }
    }
}
