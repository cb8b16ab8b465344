package org.iwarp4j.tools.bench.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.pcap.PcapRecording;

/**
 * The server end of the plain-TCP comparison: Netty on the same transport as the RNIC, serving
 * {@link TcpMode}s until a client sends {@link TcpMode#DONE}.
 */
public final class TcpBenchServer implements AutoCloseable {

    private final EventLoopGroup group;
    private final Channel server;
    private final ByteBuf pattern;
    /** The accepted connections still open (a group forgets a channel once it is closed). */
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile long lastConnectionEnded;

    public TcpBenchServer(InetSocketAddress address, Transport transport, int threads, int maxSize,
                          PcapRecording pcap) throws InterruptedException {
        group = NettyIo.group(transport, threads);
        pattern = Unpooled.directBuffer(maxSize).writeZero(maxSize);
        Pattern.fill(pattern, 0, maxSize);
        Consumer<Channel> record = PcapRecording.recorder(pcap);
        try {
            server = new ServerBootstrap().group(group)
                    .channel(NettyIo.serverSocketChannel(transport))
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            record.accept(ch);
                            connections.add(ch);
                            ch.pipeline().addLast(new Connection());
                        }
                    })
                    .bind(address).sync().channel();
        } catch (RuntimeException | InterruptedException e) {
            close();
            throw e;
        }
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /** When ({@link System#nanoTime()}) a comparison connection last closed; 0 before the first. */
    public long lastConnectionEndedNanos() {
        return lastConnectionEnded;
    }

    /** Completes when a client said {@link TcpMode#DONE}. */
    public CompletableFuture<Void> done() {
        return done;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        // A client that failed or stopped mid-run leaves its connection open: close it before the
        // group's shutdown, which in Netty 4.2 does not tear a still-open channel down, so that its
        // Connection releases its buffers and stops its echo thread.
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        pattern.release();
    }

    /** One connection: the header, then the mode's behaviour. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        private final ByteBuf header = Unpooled.buffer(8);
        private TcpMode mode;
        private int size;
        private long consumed;
        /** Octets of the current round trip read so far in {@link TcpMode#ECHO_ON_LOOP}. */
        private long pendingOnLoop;
        private ApplicationBuffer application;
        private EchoResponder echo;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                if (mode == null) {
                    in.readBytes(header, Math.min(in.readableBytes(), header.writableBytes()));
                    if (header.isWritable()) {
                        return;
                    }
                    int ordinal = header.readInt();
                    size = header.readInt();
                    if (ordinal < 0 || ordinal >= TcpMode.values().length || size < 0 || size > pattern.capacity()) {
                        ctx.close();
                        return;
                    }
                    mode = TcpMode.values()[ordinal];
                    if (mode == TcpMode.DONE) {
                        done.complete(null);
                        ctx.close();
                        return;
                    }
                    if (mode == TcpMode.SINK_COPY) {
                        application = new ApplicationBuffer(TcpMode.applicationBuffer(pattern.capacity()));
                    }
                    if (mode.echo()) {
                        echo = new EchoResponder(ctx.channel(), size, mode == TcpMode.ECHO_BUSY);
                    }
                }
                int n = in.readableBytes();
                consumed += n;
                switch (mode) {
                    case SINK_COPY -> application.copy(in);
                    case READ, READ_COPY -> {
                        long requests = (consumed / 4) - ((consumed - n) / 4);
                        for (long r = 0; r < requests; r++) {
                            ctx.write(pattern.retainedSlice(0, size));
                        }
                        ctx.flush();
                    }
                    case ECHO, ECHO_BUSY -> echo.received(n);
                    case ECHO_ON_LOOP -> {
                        pendingOnLoop += n;
                        ctx.write(in.retain());
                        if (pendingOnLoop >= size) {
                            pendingOnLoop %= Math.max(1, size);
                            ctx.flush();
                        }
                    }
                    default -> { }
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent) {
                ctx.writeAndFlush(Unpooled.buffer(8).writeLong(consumed)).addListener(f -> ctx.close());
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            lastConnectionEnded = System.nanoTime();
            if (echo != null) {
                echo.stop();
            }
            header.release();
            if (application != null) {
                application.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /**
     * The latency echo's application end: a thread that waits until the event loop has read a whole
     * message and then writes one back through the channel (a hand-off to the event loop, as an RDMA
     * post is), like the RDMA ping-pong's responder thread.
     */
    private final class EchoResponder implements Runnable {
        private final Channel channel;
        private final int size;
        private final boolean busy;
        private final java.util.concurrent.Semaphore messages = new java.util.concurrent.Semaphore(0);
        private final AtomicLong receivedOctets = new AtomicLong();
        private volatile boolean stopped;

        EchoResponder(Channel channel, int size, boolean busy) {
            this.channel = channel;
            this.size = Math.max(1, size);
            this.busy = busy;
            Thread t = new Thread(this, "iwarp-bench-tcp-echo");
            t.setDaemon(true);
            t.start();
        }

        /** On the event loop: {@code n} more octets read. */
        void received(int n) {
            long before = receivedOctets.getAndAdd(n);
            int whole = (int) ((before + n) / size - before / size);
            if (whole > 0 && !busy) {
                messages.release(whole);
            }
        }

        void stop() {
            stopped = true;
            messages.release();
        }

        @Override
        public void run() {
            long answered = 0;
            try {
                while (!stopped) {
                    if (busy) {
                        int spins = 0;
                        while (receivedOctets.get() < (answered + 1) * size) {
                            if ((++spins & 0x3ff) == 0 && stopped) {
                                return;
                            }
                            BusyWait.step(spins);
                        }
                    } else if (!messages.tryAcquire(1, TimeUnit.SECONDS) || stopped) {
                        continue;
                    }
                    answered++;
                    channel.writeAndFlush(pattern.retainedSlice(0, size));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
