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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side of ONC RPC on plain TCP with record marking (RFC 5531 §11): one
 * connection, any number of pipelined calls, replies matched by xid. A reply whose xid
 * matches no outstanding call (e.g. one that arrives after its call timed out) is dropped and
 * counted in {@link #unknownXidReplies()}. See {@link RpcClientTransport} for the contract.
 */
public final class RpcTcpClientTransport implements RpcClientTransport {

    private static final Logger log = LoggerFactory.getLogger(RpcTcpClientTransport.class);

    private final Channel channel;
    private final EventLoopGroup ownGroup;
    private final Map<Integer, CompletableFuture<XdrMessage>> pending = new ConcurrentHashMap<>();
    private final AtomicLong unknownXid = new AtomicLong();
    private volatile boolean closed;

    private RpcTcpClientTransport(Channel channel, EventLoopGroup ownGroup) {
        this.channel = channel;
        this.ownGroup = ownGroup;
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
        CompletableFuture<XdrMessage> reply = new CompletableFuture<>();
        int xid = info.xid();
        if (closed) {
            call.release();
            reply.completeExceptionally(new RpcTransportException("RPC/TCP connection to " + channel.remoteAddress()
                    + " is closed"));
            return reply;
        }
        if (pending.putIfAbsent(xid, reply) != null) {
            call.release();
            reply.completeExceptionally(new RpcTransportException("a call with " + info + " is already outstanding"));
            return reply;
        }
        reply.whenComplete((r, e) -> pending.remove(xid, reply));
        if (closed) {
            failPending(xid, reply, "RPC/TCP connection closed");
            call.release();
            return reply;
        }
        channel.writeAndFlush(call).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                failPending(xid, reply, "cannot send " + info + ": " + f.cause());
            }
        });
        return reply;
    }

    private void failPending(int xid, CompletableFuture<XdrMessage> reply, String why) {
        if (pending.remove(xid, reply)) {
            reply.completeExceptionally(new RpcTransportException(why));
        }
    }

    @Override
    public String name() {
        return RpcTcpServer.TRANSPORT_NAME;
    }

    @Override
    public ByteBufAllocator alloc() {
        return channel.alloc();
    }

    /** The server's address. */
    public SocketAddress remoteAddress() {
        return channel.remoteAddress();
    }

    /** Replies dropped because no call was outstanding with their xid (or they were not replies). */
    public long unknownXidReplies() {
        return unknownXid.get();
    }

    /** Calls waiting for their reply. */
    public int outstandingCalls() {
        return pending.size();
    }

    /** Whether the connection is open. */
    public boolean isOpen() {
        return !closed && channel.isActive();
    }

    @Override
    public String state() {
        return "connection " + (isOpen() ? "open" : "closed") + ", " + pending.size() + " calls awaiting a reply, "
                + unknownXid.get() + " replies with an unknown xid";
    }

    @Override
    public void close() {
        closed = true;
        // Waiting is impossible (and unnecessary) when a callback on the event loop closes us.
        boolean wait = !channel.eventLoop().inEventLoop();
        ChannelFuture closing = channel.close();
        if (wait) {
            closing.awaitUninterruptibly();
        }
        if (ownGroup != null) {
            io.netty.util.concurrent.Future<?> stopping = ownGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            if (wait) {
                stopping.awaitUninterruptibly();
            }
        }
    }

    private void received(ByteBuf record) {
        if (record.readableBytes() < 8
                || record.getInt(record.readerIndex() + 4) != RpcConstants.REPLY) {
            unknownXid.incrementAndGet();
            log.debug("dropped a {}-octet record from {} that is not an RPC reply", record.readableBytes(),
                    channel.remoteAddress());
            record.release();
            return;
        }
        int xid = record.getInt(record.readerIndex());
        CompletableFuture<XdrMessage> reply = pending.remove(xid);
        if (reply == null) {
            unknownXid.incrementAndGet();
            log.debug("dropped a reply with unknown xid 0x{} from {}", Integer.toHexString(xid), channel.remoteAddress());
            record.release();
            return;
        }
        XdrMessage message = XdrMessage.of(record);
        if (!reply.complete(message)) {
            message.release();
        }
    }

    private void connectionClosed() {
        closed = true;
        for (Map.Entry<Integer, CompletableFuture<XdrMessage>> e : pending.entrySet()) {
            failPending(e.getKey(), e.getValue(), "RPC/TCP connection to " + channel.remoteAddress() + " closed");
        }
    }

    /** Options of an {@link RpcTcpClientTransport}. */
    public static final class Builder {
        private int maxRecordSize = 8 << 20;
        private int maxFragmentSize = RpcConstants.FRAGMENT_LENGTH_MASK;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private EventLoopGroup group;
        private Class<? extends SocketChannel> channelClass = NioSocketChannel.class;

        private Builder() {
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
            RpcTcpClientTransport[] transport = new RpcTcpClientTransport[1];
            Bootstrap bootstrap = new Bootstrap().group(group == null ? ownGroup : group).channel(channelClass)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            transport[0] = new RpcTcpClientTransport(ch, ownGroup);
                            ch.pipeline().addLast(new RecordMarkingDecoder(maxRecordSize),
                                    new RecordMarkingEncoder(maxFragmentSize),
                                    new ClientHandler(transport[0]));
                        }
                    });
            CompletableFuture<RpcTcpClientTransport> result = new CompletableFuture<>();
            bootstrap.connect(server).addListener((ChannelFuture f) -> {
                if (f.isSuccess()) {
                    result.complete(transport[0]);
                } else {
                    if (ownGroup != null) {
                        ownGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                    }
                    result.completeExceptionally(new RpcTransportException("cannot connect to " + server + ": "
                            + f.cause(), f.cause()));
                }
            });
            return result;
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
            transport.connectionClosed();
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.warn("RPC/TCP connection to {} closed: {}", ctx.channel().remoteAddress(), cause.getMessage());
            ctx.close();
        }
    }
}
