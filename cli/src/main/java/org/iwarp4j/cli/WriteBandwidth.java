package org.iwarp4j.cli;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * RDMA Write bandwidth between two RNICs over loopback, and the same transfer over plain Netty
 * TCP in the same process and run: the same message size, the same number of messages in flight,
 * one event loop thread per end in both cases. A message counts when the sender's completion (RDMA)
 * or write future (TCP) reports it handed to TCP, both on the same Netty transport (NIO or epoll);
 * the RDMA run ends with an RDMA Read, which
 * returns only after every Write before it was placed.
 */
final class WriteBandwidth {

    static final class Result {
        final long messages;
        final long nanos;
        final int size;

        Result(long messages, long nanos, int size) {
            this.messages = messages;
            this.nanos = nanos;
            this.size = size;
        }

        double megabytesPerSecond() {
            return messages * (double) size / (nanos / 1e9) / 1e6;
        }

        double messagesPerSecond() {
            return messages / (nanos / 1e9);
        }
    }

    private final int size;
    private final int depth;
    private final long warmupNanos;
    private final long durationNanos;
    private final MpaSettings mpa;
    private final Transport transport;

    WriteBandwidth(int size, int depth, double warmupSeconds, double seconds, MpaSettings mpa, Transport transport) {
        this.transport = transport;
        this.size = size;
        this.depth = depth;
        this.warmupNanos = (long) (warmupSeconds * 1e9);
        this.durationNanos = (long) (seconds * 1e9);
        this.mpa = mpa;
    }

    Result rdmaWrite() throws Exception {
        ByteBuf target = ByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        try (Rnic server = Rnic.builder().eventLoopThreads(1).transport(transport).build();
             Rnic client = Rnic.builder().eventLoopThreads(1).transport(transport).build()) {
            ProtectionDomain serverPd = server.allocateProtectionDomain();
            MemoryRegion targetMr = serverPd.register(target, EnumSet.allOf(Access.class));
            QueuePair serverQp = server.createQueuePair(
                    QueuePairSettings.builder(serverPd, server.createCompletionQueue(16)).build());
            Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), mpa, r -> r.accept(serverQp));
            ProtectionDomain pd = client.allocateProtectionDomain();
            MemoryRegion sourceMr = pd.register(source, EnumSet.allOf(Access.class));
            CompletionQueue cq = client.createCompletionQueue(depth + 1);
            QueuePair qp = client.createQueuePair(QueuePairSettings.builder(pd, cq).sendQueueDepth(depth + 1)
                    .mpa(mpa).build());
            qp.connect(listener.localAddress()).get(30, TimeUnit.SECONDS);

            long id = 0;
            int inFlight = 0;
            long counted = 0;
            long start = System.nanoTime();
            long measureFrom = start + warmupNanos;
            long end = measureFrom + durationNanos;
            long measuredStart = -1;
            while (true) {
                long now = System.nanoTime();
                if (now >= end) {
                    break;
                }
                while (inFlight < depth) {
                    qp.postSend(SendWorkRequest.rdmaWrite(id++, targetMr.stag(), targetMr.baseTaggedOffset(),
                            sourceMr.sge(0, size)));
                    inFlight++;
                }
                WorkCompletion c = cq.poll(10, TimeUnit.SECONDS);
                if (c == null || !c.isSuccess()) {
                    throw new IllegalStateException("RDMA Write failed: " + c);
                }
                inFlight--;
                if (now >= measureFrom) {
                    if (measuredStart < 0) {
                        measuredStart = now;
                    } else {
                        counted++;
                    }
                }
            }
            // Fence: a Read returns only after the Writes before it were placed (RFC 5040 §5.5).
            qp.postSend(SendWorkRequest.rdmaRead(id, targetMr.stag(), targetMr.baseTaggedOffset(), sourceMr.sge(0, 1)));
            for (int remaining = inFlight + 1; remaining > 0; remaining--) {
                WorkCompletion c = cq.poll(10, TimeUnit.SECONDS);
                if (c == null || !c.isSuccess()) {
                    throw new IllegalStateException("RDMA Write failed: " + c);
                }
                counted++;
            }
            counted--; // the Read
            long nanos = System.nanoTime() - measuredStart;
            qp.close().get(30, TimeUnit.SECONDS);
            listener.close();
            sourceMr.close();
            targetMr.close();
            return new Result(counted, nanos, size);
        } finally {
            target.release();
            source.release();
        }
    }

    Result plainTcp() throws Exception {
        boolean epoll = transport == Transport.EPOLL;
        EventLoopGroup serverGroup = new MultiThreadIoEventLoopGroup(1,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        EventLoopGroup clientGroup = new MultiThreadIoEventLoopGroup(1,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        AtomicLong received = new AtomicLong();
        try {
            Channel server = new ServerBootstrap().group(serverGroup)
                    .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ByteBuf b = (ByteBuf) msg;
                                    received.addAndGet(b.readableBytes());
                                    b.release();
                                }
                            });
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            Channel client = new Bootstrap().group(clientGroup).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true).handler(new ChannelInboundHandlerAdapter())
                    .connect(server.localAddress()).sync().channel();
            Semaphore window = new Semaphore(depth);
            AtomicLong done = new AtomicLong();
            long start = System.nanoTime();
            long measureFrom = start + warmupNanos;
            long end = measureFrom + durationNanos;
            long doneAtMeasureStart = -1;
            long measuredStart = -1;
            while (true) {
                long now = System.nanoTime();
                if (now >= end) {
                    break;
                }
                if (now >= measureFrom && measuredStart < 0) {
                    measuredStart = now;
                    doneAtMeasureStart = done.get();
                }
                if (!window.tryAcquire(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("TCP writes stalled");
                }
                client.writeAndFlush(source.retainedDuplicate()).addListener(f -> {
                    done.incrementAndGet();
                    window.release();
                });
            }
            window.acquire(depth); // every write handed to TCP
            long sent = done.get() - doneAtMeasureStart;
            long expectedTotal = done.get() * size;
            // Like the RDMA run's fence: end when the receiver has every octet.
            while (received.get() < expectedTotal) {
                Thread.onSpinWait();
            }
            long nanos = System.nanoTime() - measuredStart;
            client.close().sync();
            server.close().sync();
            return new Result(sent, nanos, size);
        } finally {
            source.release();
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
