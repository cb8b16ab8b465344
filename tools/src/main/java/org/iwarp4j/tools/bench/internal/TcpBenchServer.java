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
import io.netty.channel.WriteBufferWaterMark;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.pcap.PcapRecording;

/**
 * The server end of the plain-TCP comparison: Netty on the same transport as the RNIC, serving
 * {@link TcpMode}s until a client sends {@link TcpMode#DONE}.
 *
 * <p>It listens on a port anyone can reach, so it serves only its client: connections from the
 * client's address (that of its control connection), at most {@link #maxConnections} at once; any
 * other connection is closed as soon as it is accepted, before a buffer or a thread is spent on it,
 * and a DONE can come only from a connection it serves. A connection's answers wait while the
 * channel is not writable (auto-read off), so a client that asks and does not read holds at most
 * the write buffer's high-water mark, not everything it asked for. For Read that mark is a whole
 * window of answers ({@link #readWaterMark}): a client that keeps tx depth requests outstanding, as
 * the RDMA Read client keeps tx depth Reads, has them all answered at once, as the RNIC's responder
 * queues the Read Responses of every Read it has been sent.
 */
public final class TcpBenchServer implements AutoCloseable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TcpBenchServer.class);
    /** More than Netty counts for a queued message besides its octets (96 by default). */
    private static final int QUEUED_MESSAGE_ALLOWANCE = 1024;

    private final EventLoopGroup group;
    private final Channel server;
    private final ByteBuf pattern;
    /** The accepted connections still open (a group forgets a channel once it is closed). */
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Connections being served: counted at accept, given back when closed. */
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicBoolean refusalNoted = new AtomicBoolean();
    private final InetAddress client;
    private final int maxConnections;
    /** Messages the client keeps in flight per connection (its tx depth): what a Read connection answers at once. */
    private final int depth;
    private final Consumer<String> notice;
    private volatile long lastConnectionEnded;
    /** Told of every latency echo's responder thread as it starts. */
    private volatile Consumer<Thread> echoThreads = t -> { };

    /**
     * @param depth          messages the client keeps in flight per connection (its tx depth, 1 for latency)
     * @param client         the only address served: the client's (its control connection's)
     * @param maxConnections connections served at once ({@link #maxConnections(int)})
     */
    public TcpBenchServer(InetSocketAddress address, Transport transport, int threads, int maxSize, int depth,
                          PcapRecording pcap, InetAddress client, int maxConnections) throws InterruptedException {
        this(address, transport, threads, maxSize, depth, pcap, client, maxConnections, log::warn);
    }

    /** As above, telling {@code notice} instead of the log of the first connection refused. */
    TcpBenchServer(InetSocketAddress address, Transport transport, int threads, int maxSize, int depth,
                   PcapRecording pcap, InetAddress client, int maxConnections, Consumer<String> notice)
            throws InterruptedException {
        this.client = client;
        this.maxConnections = maxConnections;
        this.depth = Math.max(1, depth);
        this.notice = notice;
        group = NettyIo.group(transport, threads);
        pattern = Unpooled.directBuffer(maxSize).writeZero(maxSize);
        Pattern.fill(pattern, 0, maxSize);
        Consumer<Channel> record = PcapRecording.recorder(pcap);
        // The answers are slices of one pattern, so the mark counts queued messages rather than copies:
        // two of the largest keep one queued behind the one being written (the echoes); a Read
        // connection sets its own once its header names the size (readWaterMark).
        int high = Math.max(WriteBufferWaterMark.DEFAULT.high(), 2 * maxSize);
        try {
            server = new ServerBootstrap().group(group)
                    .channel(NettyIo.serverSocketChannel(transport))
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childOption(ChannelOption.RCVBUF_ALLOCATOR, NettyIo.receiveBuffers())
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (!admit(ch)) {
                                ch.close();
                                return;
                            }
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

    /**
     * Connections a client of {@code queuePairs} queue pairs may have open at once: one per queue
     * pair for each of the two baselines an interleaved run keeps open together, and the one that
     * says DONE.
     */
    public static int maxConnections(int queuePairs) {
        return 2 * queuePairs + 1;
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Whether {@code ch} is served; if so it is counted until it closes. */
    private boolean admit(SocketChannel ch) {
        InetSocketAddress remote = ch.remoteAddress();
        if (remote == null || !client.equals(remote.getAddress())) {
            refused(remote, "not the client's address " + client.getHostAddress());
            return false;
        }
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            refused(remote, "over " + maxConnections + " connections at once");
            return false;
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        return true;
    }

    private void refused(InetSocketAddress remote, String why) {
        if (refusalNoted.compareAndSet(false, true)) {
            notice.accept("TCP comparison: closed a connection from "
                    + (remote == null ? "?" : org.iwarp4j.tools.net.ConnectErrors.where(remote)) + " (" + why
                    + "); further refusals are not reported");
        }
    }

    /**
     * A Read connection's write buffer: room for {@code depth} answers of {@code size} octets (and
     * Netty's accounting of each queued message, 96 octets by default), so that a window of
     * requests is answered in one go, flushed once per {@link TcpBenchClient.Connection#FLUSH_OCTETS}
     * as the Write baseline's client flushes. It used to hold two of the largest messages: two
     * answers per flush, and reading switched off and on again for every pair, system calls the
     * RDMA Read responder does not make. A client that keeps more than {@code depth} requests
     * outstanding still finds reading stopped once this much waits: the bound stays.
     */
    static WriteBufferWaterMark readWaterMark(int depth, int size) {
        long high = Math.max(WriteBufferWaterMark.DEFAULT.high(), (long) depth * (size + QUEUED_MESSAGE_ALLOWANCE));
        int capped = (int) Math.min(Integer.MAX_VALUE, high);
        return new WriteBufferWaterMark(capped / 2, capped);
    }

    /** When ({@link System#nanoTime()}) a comparison connection last closed; 0 before the first. */
    public long lastConnectionEndedNanos() {
        return lastConnectionEnded;
    }

    /** The connections served and still open, for tests. */
    java.util.List<Channel> channels() {
        return java.util.List.copyOf(connections);
    }

    /**
     * Tells {@code started} of each latency echo's responder thread as it starts: an application
     * thread of the comparison, whose CPU time a loopback run counts as it counts the RDMA
     * responder's ({@link CpuClock#register}). Set it before the client connects.
     */
    public void onEchoThread(Consumer<Thread> started) {
        this.echoThreads = started;
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
    final class Connection extends ChannelInboundHandlerAdapter {
        private final ByteBuf header = Unpooled.buffer(8);
        private TcpMode mode;
        private int size;
        private long consumed;
        /** Octets of the current round trip read so far in {@link TcpMode#ECHO_ON_LOOP}. */
        private long pendingOnLoop;
        /** Read requests not answered yet: they wait while the channel is not writable. */
        private long owed;
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
                    if (mode == TcpMode.READ || mode == TcpMode.READ_COPY) {
                        ctx.channel().config().setWriteBufferWaterMark(readWaterMark(depth, size));
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
                        owed += (consumed / 4) - ((consumed - n) / 4);
                        answer(ctx);
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
                if (!ctx.channel().isWritable()) {
                    ctx.channel().config().setAutoRead(false);
                }
            }
        }

        /**
         * Answers owed Read requests while the channel takes them, flushing once per {@link
         * TcpBenchClient.Connection#FLUSH_OCTETS} queued and once at the end, as the Write
         * baseline's client flushes its messages.
         */
        private void answer(ChannelHandlerContext ctx) {
            long unflushed = 0;
            while (owed > 0 && ctx.channel().isWritable()) {
                ctx.write(pattern.retainedSlice(0, size));
                owed--;
                unflushed += size;
                if (unflushed >= TcpBenchClient.Connection.FLUSH_OCTETS) {
                    ctx.flush();
                    unflushed = 0;
                }
            }
            if (unflushed > 0) {
                ctx.flush();
            }
        }

        /**
         * Reading resumes once the channel is writable again and the owed answers are out, so that
         * what a client asks for and does not read waits in the client's socket, not here.
         */
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                answer(ctx);
            }
            ctx.channel().config().setAutoRead(ctx.channel().isWritable() && owed == 0);
            ctx.fireChannelWritabilityChanged();
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
            echoThreads.accept(t);
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
