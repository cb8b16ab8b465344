package org.iwarp4j.tools.loopback;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.bench.internal.NettyIo;

/**
 * The plain-TCP baseline for {@link RdmaStream}: the same message size and number in flight, one
 * event loop per end, the same Netty transport, TCP_NODELAY. Each message is a duplicate of one
 * direct buffer (zero copy, like a Write from registered memory), and each write's completion
 * writes the next. Throughput is the octets the receiver read.
 */
final class TcpStream {

    private TcpStream() {
    }

    static Measurement run(int size, int depth, double warmup, double seconds, Transport transport) throws Exception {
        EventLoopGroup serverGroup = NettyIo.group(transport);
        EventLoopGroup clientGroup = NettyIo.group(transport);
        ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        LongAdder received = new LongAdder();
        try {
            Channel server = new ServerBootstrap().group(serverGroup).channel(NettyIo.serverSocketChannel(transport))
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ByteBuf b = (ByteBuf) msg;
                                    received.add(b.readableBytes());
                                    b.release();
                                }
                            });
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            Channel client = new Bootstrap().group(clientGroup).channel(NettyIo.socketChannel(transport))
                    .option(ChannelOption.TCP_NODELAY, true).handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress()).sync().channel();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger outstanding = new AtomicInteger(depth);
            CompletableFuture<Void> drained = new CompletableFuture<>();
            ChannelFutureListener next = new ChannelFutureListener() {
                @Override
                public void operationComplete(io.netty.channel.ChannelFuture f) {
                    if (!f.isSuccess()) {
                        drained.completeExceptionally(f.cause());
                    } else if (!stop.get()) {
                        client.writeAndFlush(source.retainedDuplicate()).addListener(this);
                    } else if (outstanding.decrementAndGet() == 0) {
                        drained.complete(null);
                    }
                }
            };
            client.eventLoop().execute(() -> {
                for (int i = 0; i < depth; i++) {
                    client.writeAndFlush(source.retainedDuplicate()).addListener(next);
                }
            });
            Measurement megabytes = Measurement.of(received::sum, warmup, seconds);
            stop.set(true);
            drained.get(30, TimeUnit.SECONDS);
            client.close().sync();
            server.close().sync();
            return megabytes;
        } finally {
            source.release();
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
