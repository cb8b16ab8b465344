package org.iwarp4j.oncrpc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An ONC RPC server on plain TCP with record marking (RFC 5531 §11): accepts any number of
 * connections and hands every call record to an {@link RpcDispatcher}, writing each reply as
 * one record when its procedure completes (replies may leave in a different order than the
 * calls arrived; the client matches them by xid).
 *
 * <p>Memory per connection is bounded: one record of at most {@code maxRecordSize} octets is
 * reassembled at a time, and when {@code maxOutstandingCalls} calls of one connection are
 * being served the server stops reading from it until one completes.
 */
public final class RpcTcpServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RpcTcpServer.class);

    /** Transport name in {@link RpcCallContext}. */
    public static final String TRANSPORT_NAME = "tcp";

    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final EventLoopGroup ownGroup;
    private final AtomicLong dropped = new AtomicLong();

    private RpcTcpServer(Channel serverChannel, ChannelGroup connections, EventLoopGroup ownGroup) {
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.ownGroup = ownGroup;
    }

    /** A builder for a server that serves {@code dispatcher}'s programs. */
    public static Builder builder(RpcDispatcher dispatcher) {
        return new Builder(dispatcher);
    }

    /** The address the server listens on (with the port chosen if 0 was asked). */
    public SocketAddress localAddress() {
        return serverChannel.localAddress();
    }

    /** Connections currently open. */
    public int connectionCount() {
        return connections.size();
    }

    /** Messages that could not be answered and were dropped (see {@link RpcDispatcher#dispatch}). */
    public long droppedMessages() {
        return dropped.get();
    }

    /** Stops listening and closes every connection; waits for the own event loop to stop. */
    @Override
    public void close() {
        serverChannel.close().awaitUninterruptibly();
        connections.close().awaitUninterruptibly();
        if (ownGroup != null) {
            ownGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    /** Options of an {@link RpcTcpServer}. */
    public static final class Builder {
        private final RpcDispatcher dispatcher;
        private int maxRecordSize = 8 << 20;
        private int maxFragmentSize = RpcConstants.FRAGMENT_LENGTH_MASK;
        private int maxOutstandingCalls = 128;
        private EventLoopGroup group;
        private Class<? extends ServerChannel> channelClass = NioServerSocketChannel.class;

        private Builder(RpcDispatcher dispatcher) {
            this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        }

        /** Largest call record accepted (default 8 MiB); a larger one closes the connection. */
        public Builder maxRecordSize(int octets) {
            this.maxRecordSize = octets;
            return this;
        }

        /** Largest fragment of a reply record (default: one fragment per record). */
        public Builder maxFragmentSize(int octets) {
            this.maxFragmentSize = octets;
            return this;
        }

        /** Calls of one connection served at once before the server stops reading it (default 128). */
        public Builder maxOutstandingCalls(int calls) {
            if (calls < 1) {
                throw new IllegalArgumentException("maxOutstandingCalls < 1");
            }
            this.maxOutstandingCalls = calls;
            return this;
        }

        /**
         * Runs on {@code group} (not shut down by {@link #close()}) with server channels of
         * {@code channelClass}; by default the server has its own NIO event loop.
         */
        public Builder eventLoopGroup(EventLoopGroup group, Class<? extends ServerChannel> channelClass) {
            this.group = group;
            this.channelClass = channelClass;
            return this;
        }

        /** Binds and starts serving; throws {@link RpcTransportException} if the bind fails. */
        public RpcTcpServer bind(SocketAddress address) {
            EventLoopGroup ownGroup = group == null ? new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()) : null;
            EventLoopGroup runOn = group == null ? ownGroup : group;
            ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
            RpcTcpServer[] server = new RpcTcpServer[1];
            ServerBootstrap bootstrap = new ServerBootstrap().group(runOn).channel(channelClass)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            connections.add(ch);
                            ch.pipeline().addLast(new RecordMarkingDecoder(maxRecordSize),
                                    new RecordMarkingEncoder(maxFragmentSize),
                                    new ServerHandler(dispatcher, maxOutstandingCalls, server));
                        }
                    });
            try {
                Channel channel = bootstrap.bind(address).syncUninterruptibly().channel();
                server[0] = new RpcTcpServer(channel, connections, ownGroup);
                return server[0];
            } catch (RuntimeException e) {
                if (ownGroup != null) {
                    ownGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                }
                throw new RpcTransportException("cannot bind RPC/TCP server to " + address + ": " + e, e);
            }
        }
    }

    /**
     * One connection: record -> dispatcher -> record. At most {@code maxOutstanding} calls are in
     * service; records decoded beyond that (one read can hold many) wait in a queue that cannot
     * grow further because reading stops until the connection is below the bound again.
     */
    private static final class ServerHandler extends ChannelInboundHandlerAdapter {
        private final RpcDispatcher dispatcher;
        private final int maxOutstanding;
        private final RpcTcpServer[] server;
        private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>();
        private RpcTransportInfo info;
        private int outstanding;

        ServerHandler(RpcDispatcher dispatcher, int maxOutstanding, RpcTcpServer[] server) {
            this.dispatcher = dispatcher;
            this.maxOutstanding = maxOutstanding;
            this.server = server;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            info = new RpcTransportInfo(TRANSPORT_NAME, ctx.channel().localAddress(), ctx.channel().remoteAddress(),
                    ctx.alloc());
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf record)) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (info == null) {
                info = new RpcTransportInfo(TRANSPORT_NAME, ctx.channel().localAddress(),
                        ctx.channel().remoteAddress(), ctx.alloc());
            }
            if (outstanding >= maxOutstanding) {
                waiting.add(record);
                ctx.channel().config().setAutoRead(false);
                return;
            }
            dispatch(ctx, record);
        }

        private void dispatch(ChannelHandlerContext ctx, ByteBuf record) {
            outstanding++;
            if (outstanding >= maxOutstanding) {
                ctx.channel().config().setAutoRead(false);
            }
            dispatcher.dispatch(XdrMessage.of(record), info).whenComplete((reply, error) -> {
                if (ctx.executor().inEventLoop()) {
                    completed(ctx, reply, error);
                    return;
                }
                try {
                    ctx.executor().execute(() -> completed(ctx, reply, error));
                } catch (RejectedExecutionException e) {
                    if (reply != null) {
                        reply.release(); // the server is shutting down
                    }
                }
            });
        }

        private void completed(ChannelHandlerContext ctx, XdrMessage reply, Throwable error) {
            outstanding--;
            if (error != null) {
                if (server[0] != null) {
                    server[0].dropped.incrementAndGet();
                }
                log.debug("dropped a message from {}: {}", info.remoteAddress(), error.toString());
            } else if (ctx.channel().isActive()) {
                ctx.writeAndFlush(reply, ctx.voidPromise());
            } else {
                reply.release();
            }
            while (outstanding < maxOutstanding && !waiting.isEmpty()) {
                dispatch(ctx, waiting.poll());
            }
            if (outstanding < maxOutstanding && !ctx.channel().config().isAutoRead()) {
                ctx.channel().config().setAutoRead(true);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ByteBuf record;
            while ((record = waiting.poll()) != null) {
                record.release();
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.warn("RPC/TCP connection from {} closed: {}", ctx.channel().remoteAddress(), cause.getMessage());
            ctx.close();
        }
    }
}
