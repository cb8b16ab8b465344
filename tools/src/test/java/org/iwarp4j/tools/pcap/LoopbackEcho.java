package org.iwarp4j.tools.pcap;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * An echo server and its clients over loopback TCP, on event loop groups of several threads so
 * that connections write into a shared recording at the same time. Each end can be recorded.
 */
final class LoopbackEcho implements AutoCloseable {

    static final int TIMEOUT_SECONDS = 30;

    private final EventLoopGroup serverGroup = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final EventLoopGroup clientGroup = new MultiThreadIoEventLoopGroup(3, NioIoHandler.newFactory());
    private final Channel server;
    /** Every connection, both ends, while open. */
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    /** An echo server whose connections {@code record} is given first. */
    LoopbackEcho(Consumer<Channel> record) throws InterruptedException {
        server = new ServerBootstrap().group(serverGroup).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        record.accept(ch);
                        connections.add(ch);
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ctx.writeAndFlush(msg);
                            }
                        });
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** A connected client whose connection {@code record} is given first. */
    Client connect(Consumer<Channel> record) throws InterruptedException {
        Client client = new Client();
        client.channel = new Bootstrap().group(clientGroup).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        record.accept(ch);
                        connections.add(ch);
                        ch.pipeline().addLast(client);
                    }
                })
                .connect(server.localAddress()).sync().channel();
        return client;
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        // Connections still open are closed first: Netty 4.2's group shutdown does not tear them
        // down, and what their pipelines hold (the recording's handlers among them) would leak.
        connections.close().awaitUninterruptibly(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One client connection: sends messages and collects the echo. */
    static final class Client extends ChannelInboundHandlerAdapter {
        Channel channel;
        private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private CompletableFuture<Void> echoed = CompletableFuture.completedFuture(null);

        /** Sends {@code message}; {@link #echoed()} completes when everything sent so far came back. */
        synchronized void send(byte[] message) {
            sent.writeBytes(message);
            if (received.size() < sent.size()) {
                echoed = echoed.isDone() ? new CompletableFuture<>() : echoed;
            }
            channel.writeAndFlush(Unpooled.wrappedBuffer(message));
        }

        synchronized CompletableFuture<Void> echoed() {
            return echoed;
        }

        /** Sends {@code message} and waits for its echo. */
        void exchange(byte[] message) throws Exception {
            send(message);
            echoed().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }

        synchronized byte[] sent() {
            return sent.toByteArray();
        }

        int localPort() {
            return ((InetSocketAddress) channel.localAddress()).getPort();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                synchronized (this) {
                    buf.readBytes(received, buf.readableBytes());
                    if (received.size() >= sent.size()) {
                        echoed.complete(null);
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } finally {
                buf.release();
            }
        }
    }
}
