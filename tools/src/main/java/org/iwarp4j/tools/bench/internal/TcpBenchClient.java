package org.iwarp4j.tools.bench.internal;

import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DuplexChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.tools.bench.BandwidthResult;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import org.iwarp4j.tools.bench.LatencyResult;
import org.iwarp4j.tools.bench.PollMode;
import org.iwarp4j.tools.bench.ConnectFailedException;

/**
 * The client end of the plain-TCP comparison: for each size, the same transfer as the RDMA run
 * over plain Netty TCP, one connection per queue pair, the same messages in flight per connection,
 * raw (the receiving end drops what it reads) or with copy (it copies every octet into an
 * application buffer the size of the RDMA run's registered area, as an application must).
 * RDMA Write and Send: the messages are written and the clock stops when the server has counted
 * every octet; RDMA Read: a 4-octet request answered with the message. Both are posted as the RDMA
 * client posts its requests ({@link #run}): everything a window allows in one event-loop task with
 * one flush. Latency: an echo ping-pong, reported as half the round trip like perftest.
 */
public final class TcpBenchClient implements AutoCloseable {

    private static final long TIMEOUT_SECONDS = 60;
    /** Longest wait for window space before the clock and Ctrl-C are looked at again, as {@link BandwidthClient}'s. */
    private static final long IDLE_WAIT_MILLIS = 10;

    private final BenchSettings settings;
    private final InetSocketAddress server;
    private final EventLoopGroup group;
    private final ByteBuf pattern;
    /** Released by the event loops whenever a window frees: what the posting thread blocks on. */
    private final Semaphore freed = new Semaphore(0);
    private BooleanSupplier stopped = () -> false;
    private CpuClock cpuClock = CpuClock.none();
    private org.iwarp4j.tools.bench.CpuUsage lastCpu;

    public TcpBenchClient(BenchSettings settings, InetSocketAddress server) {
        this.settings = settings;
        this.server = server;
        this.group = NettyIo.group(settings.transport(), settings.eventLoopThreads());
        int max = settings.maxSize();
        this.pattern = Unpooled.directBuffer(max).writeZero(max);
        Pattern.fill(pattern, 0, max);
    }

    /** Ends measurements early when {@code stopped} says so (Ctrl-C): their results cover the part done. */
    public void stopWhen(BooleanSupplier stopped) {
        this.stopped = stopped;
    }

    /** Reads the CPU time of each measurement with {@code clock} ({@link #lastCpu()}). */
    public void measureCpu(CpuClock clock) {
        this.cpuClock = clock;
    }

    /** What the last measurement cost in CPU time; {@code null} if not measured. */
    public org.iwarp4j.tools.bench.CpuUsage lastCpu() {
        return lastCpu;
    }

    /**
     * The raw baseline (the receiving end drops what it reads); {@code null} if stopped before any
     * message was measured.
     */
    public BandwidthResult bandwidth(int size) throws IOException, InterruptedException {
        return bandwidth(size, false);
    }

    /**
     * @param copy the receiving end (the server for Write and Send, this end for Read) copies every
     *     octet into an application buffer the size of the RDMA run's registered area
     */
    public BandwidthResult bandwidth(int size, boolean copy) throws IOException, InterruptedException {
        lastCpu = null;
        try (Phase phase = open(size, copy)) {
            long perConnection = settings.iterations() == 0 ? Long.MAX_VALUE : settings.iterations();
            Window window = measure(phase, perConnection, settings.iterations() == 0
                    ? System.nanoTime() + (long) (settings.durationSeconds() * 1e9) : Long.MAX_VALUE);
            lastCpu = window.cpu();
            return window.bandwidth();
        }
    }

    /**
     * One baseline's connections for {@code size}, connected and warmed up, for measurements in
     * windows ({@link #window}); the caller closes it.
     *
     * @param copy as for {@link #bandwidth(int, boolean)}
     */
    public Phase open(int size, boolean copy) throws IOException, InterruptedException {
        boolean read = settings.test() == BenchTest.READ;
        TcpMode mode = read ? (copy ? TcpMode.READ_COPY : TcpMode.READ) : (copy ? TcpMode.SINK_COPY : TcpMode.SINK);
        Phase phase = new Phase(mode, size);
        boolean opened = false;
        try {
            connectAll(phase);
            if (settings.warmupSeconds() > 0) {
                run(phase.connections, size, Long.MAX_VALUE,
                        System.nanoTime() + (long) (settings.warmupSeconds() * 1e9));
            }
            opened = true;
            return phase;
        } finally {
            if (!opened) {
                phase.close();
            }
        }
    }

    /**
     * One measured window of {@code phase} lasting {@code seconds}; its bandwidth is {@code null} if
     * stopped before any message. As in {@link #bandwidth(int, boolean)} the clock stops only when
     * the receiver has everything: Read's answers are all in, and a sink's connections are shut
     * down for output and the server's count checked. A sink's connections are then closed, after
     * the clock and the CPU figures (the next window connects afresh, before its clock starts,
     * without a warm-up: loopback TCP is at full speed within milliseconds); until 2026-11-29 their
     * close, a wait for the server's end of each, counted in the window's time.
     */
    public Window window(Phase phase, double seconds) throws IOException, InterruptedException {
        return measure(phase, Long.MAX_VALUE, System.nanoTime() + (long) (seconds * 1e9));
    }

    private Window measure(Phase phase, long perConnection, long endNanos) throws IOException, InterruptedException {
        if (phase.connections.isEmpty()) {
            connectAll(phase);
        }
        boolean sink = phase.mode == TcpMode.SINK || phase.mode == TcpMode.SINK_COPY;
        try {
            CpuClock.Mark cpuStart = cpuClock.mark();
            long start = System.nanoTime();
            long messages = run(phase.connections, phase.size, perConnection, endNanos);
            if (sink) {
                awaitCounts(phase);
            }
            long nanos = System.nanoTime() - start;
            org.iwarp4j.tools.bench.CpuUsage cpu = cpuClock.since(cpuStart, messages * phase.size, messages);
            if (messages == 0) {
                return new Window(null, cpu);
            }
            double average = messages * (double) phase.size / (nanos / 1e9);
            return new Window(new BandwidthResult(phase.size, messages, average, average,
                    messages / (nanos / 1e9)), cpu);
        } finally {
            if (sink) {
                phase.close(); // its output is shut down: the next window connects afresh
            }
        }
    }

    private void connectAll(Phase phase) throws IOException, InterruptedException {
        for (int i = 0; i < settings.queuePairs(); i++) {
            phase.connections.add(connect(phase.mode, phase.size));
        }
    }

    /** A sink's end: output shut down, the server's count of every connection checked (the caller closes them). */
    private void awaitCounts(Phase phase) throws IOException, InterruptedException {
        try {
            for (Connection c : phase.connections) {
                ((DuplexChannel) c.channel).shutdownOutput();
            }
            for (Connection c : phase.connections) {
                long counted = c.count.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (counted != c.sentOctets) {
                    throw new IOException("TCP server counted " + counted + " octets, " + c.sentOctets + " sent");
                }
            }
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("TCP comparison failed: " + e, e);
        }
    }

    /** One baseline's connections for one size ({@link #open}), for one or more windows. */
    public static final class Phase implements AutoCloseable {
        static final long SERVER_END_MILLIS = 5000;
        private final TcpMode mode;
        private final int size;
        private final List<Connection> connections = new ArrayList<>();

        private Phase(TcpMode mode, int size) {
            this.mode = mode;
            this.size = size;
        }

        /** The open connections' channels, for tests. */
        List<Channel> channels() {
            return connections.stream().map(c -> c.channel).toList();
        }

        /**
         * Closes the open connections, if any. Each first ends its output and waits (up to {@link
         * #SERVER_END_MILLIS} for them all) until the server has ended its side, so that the
         * server has given their places back before the next phase connects: it serves only
         * {@link TcpBenchServer#maxConnections} at once, and an interleaved run's next size opens
         * both baselines' connections right after the last size's are closed.
         */
        @Override
        public void close() {
            for (Connection c : connections) {
                if (c.channel.isActive()) {
                    ((DuplexChannel) c.channel).shutdownOutput();
                }
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SERVER_END_MILLIS);
            for (Connection c : connections) {
                try {
                    c.ended.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    break; // a server that does not answer is not waited for further: closed below all the same
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            for (Connection c : connections) {
                c.channel.close().syncUninterruptibly();
            }
            connections.clear();
        }
    }

    /**
     * What one measurement of a phase gave.
     *
     * @param bandwidth {@code null} if no message was measured
     * @param cpu       what it cost, {@code null} if not measured
     */
    public record Window(BandwidthResult bandwidth, org.iwarp4j.tools.bench.CpuUsage cpu) {
    }

    /** Plain TCP's round trips for {@code size}; {@code null} if stopped before any was measured. */
    public LatencyResult latency(int size) throws IOException, InterruptedException {
        Connection c = connect(settings.poll() == PollMode.BUSY ? TcpMode.ECHO_BUSY : TcpMode.ECHO, size);
        lastCpu = null;
        try {
            long stopWarmup = System.nanoTime() + (long) (settings.warmupSeconds() * 1e9);
            while (System.nanoTime() < stopWarmup && !stopped.getAsBoolean()) {
                roundTrip(c, size);
            }
            long iterations = settings.iterations();
            long stop = iterations == 0 ? System.nanoTime() + (long) (settings.durationSeconds() * 1e9) : Long.MAX_VALUE;
            Histogram rtt = LatencyResult.newRoundTripHistogram();
            long n = 0;
            CpuClock.Mark cpuStart = cpuClock.mark();
            while ((iterations == 0 ? System.nanoTime() < stop : n < iterations) && !stopped.getAsBoolean()) {
                long t0 = System.nanoTime();
                roundTrip(c, size);
                rtt.recordValue(Math.max(1, System.nanoTime() - t0));
                n++;
            }
            lastCpu = cpuClock.since(cpuStart, 2 * n * size, n);
            return n == 0 ? null : LatencyResult.of(size, rtt);
        } finally {
            c.channel.close().syncUninterruptibly();
        }
    }

    /**
     * The first octets of a connection to a {@link TcpBenchServer} that echoes every {@code size}
     * octets back on its event loop (no application thread), for a client that also answers on its
     * event loops ({@code LoopbackBench send-lat}).
     */
    public static ByteBuf echoRequest(int size) {
        return Unpooled.buffer(8).writeInt(TcpMode.ECHO_ON_LOOP.ordinal()).writeInt(size);
    }

    /** Tells the server the comparison is over. */
    public void done() throws IOException, InterruptedException {
        Connection c = connect(TcpMode.DONE, 0);
        try {
            c.ended.get(TIMEOUT_SECONDS, TimeUnit.SECONDS); // the server closes once it has read the header
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("the TCP comparison server did not finish: " + e, e);
        } finally {
            c.channel.close().syncUninterruptibly();
        }
    }

    /**
     * One ping-pong, waiting as the RDMA ping-pong does: {@link PollMode#BUSY} polls the count of
     * octets the event loop has read, {@link PollMode#EVENT} blocks on a semaphore it releases.
     */
    private void roundTrip(Connection c, int size) throws IOException, InterruptedException {
        c.echoed += size;
        c.channel.writeAndFlush(pattern.retainedSlice(0, size));
        if (c.mode == TcpMode.ECHO_BUSY) {
            long start = System.nanoTime();
            int spins = 0;
            while (c.received.get() < c.echoed) {
                if ((++spins & 0x3ff) == 0 && System.nanoTime() - start > TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS)) {
                    throw new IOException("TCP echo stalled");
                }
                BusyWait.step(spins);
            }
        } else if (!c.units.tryAcquire(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IOException("TCP echo stalled");
        }
    }

    /**
     * Posts as {@link BandwidthClient} does, so that both sides of the comparison have the same
     * application pattern and the baseline is not bound by hand-offs: whatever a connection's
     * window allows goes to its event loop in one task ({@link Connection#post}), and with nothing
     * to post the thread blocks until a loop frees window space ({@link Connection#done}), instead
     * of handing over one message at a time and polling the window every millisecond.
     */
    private long run(List<Connection> connections, int size, long perConnection, long endNanos)
            throws IOException, InterruptedException {
        int depth = settings.depth();
        long total = 0;
        long[] posted = new long[connections.size()];
        long lastProgress = System.nanoTime();
        while (true) {
            boolean stop = System.nanoTime() >= endNanos || stopped.getAsBoolean();
            boolean more = false;
            for (int i = 0; i < connections.size() && !stop; i++) {
                Connection c = connections.get(i);
                if (posted[i] >= perConnection) {
                    continue;
                }
                more = true;
                int free = c.window.drainPermits();
                int n = (int) Math.min(free, perConnection - posted[i]);
                c.window.release(free - n);
                if (n > 0) {
                    posted[i] += n;
                    if (c.mode == TcpMode.SINK || c.mode == TcpMode.SINK_COPY) {
                        c.sentOctets += (long) n * size;
                    }
                    c.post(n, pattern);
                }
            }
            if (!more) {
                break;
            }
            if (freed.tryAcquire(IDLE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                freed.drainPermits(); // one look at every window serves every wake-up so far
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS)) {
                throw new IOException("TCP transfer stalled");
            }
        }
        for (int i = 0; i < connections.size(); i++) {
            if (!connections.get(i).window.tryAcquire(depth, TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IOException("TCP transfer stalled");
            }
            connections.get(i).window.release(depth);
            total += posted[i];
        }
        return total;
    }

    private Connection connect(TcpMode mode, int size) throws IOException, InterruptedException {
        Connection c = new Connection(mode, size, settings.depth(),
                mode == TcpMode.READ_COPY ? new ApplicationBuffer(settings.bufferPerQueuePair()) : null, freed);
        boolean connected = false;
        try {
            // A refusal is tried again: the server binds the port only after the RDMA run's connections.
            Connection up = ConnectAttempts.connect(() -> {
                io.netty.channel.ChannelFuture f = new Bootstrap().group(group)
                        .channel(NettyIo.socketChannel(settings.transport()))
                        .option(ChannelOption.TCP_NODELAY, true).option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                        .option(ChannelOption.RCVBUF_ALLOCATOR, NettyIo.receiveBuffers())
                        .handler(org.iwarp4j.tools.pcap.PcapRecording.recorded(settings.pcap(), c)).connect(server);
                try {
                    f.await();
                } catch (InterruptedException e) {
                    f.channel().close().syncUninterruptibly(); // a connect that succeeds later must not stay open
                    throw e;
                }
                if (!f.isSuccess()) {
                    throw new java.util.concurrent.ExecutionException(f.cause());
                }
                c.channel = f.channel();
                c.channel.writeAndFlush(Unpooled.buffer(8).writeInt(mode.ordinal()).writeInt(size));
                return c;
            }, ConnectAttempts::refused, last -> new ConnectFailedException("cannot connect to "
                    + org.iwarp4j.tools.net.ConnectErrors.where(server) + " for the TCP comparison: "
                    + org.iwarp4j.tools.net.ConnectErrors.reason(last), last));
            connected = true;
            return up;
        } finally {
            if (!connected) {
                c.release(); // a channel that never became active gets no channelInactive
            }
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        pattern.release();
    }

    /** One comparison connection: its window of messages in flight and what came back. */
    @io.netty.channel.ChannelHandler.Sharable
    static final class Connection extends ChannelInboundHandlerAdapter {
        final TcpMode mode;
        final int size;
        /**
         * Octets a posting task queues before it flushes. One flush per window's worth is the
         * cheaper rule for small messages (a flush per 64 KiB message costs more writev calls),
         * but at 1 MiB one flush behind 64-128 MiB of queued messages measured a fifth slower
         * than a flush per message (docs/performance-log.md, eighth and ninth sessions): a flush per
         * MiB of queued octets serves both.
         */
        static final int FLUSH_OCTETS = 1 << 20;
        /** Free slots of the window; the event loop gives them back in batches ({@link #done}). */
        final Semaphore window;
        final Semaphore units = new Semaphore(0);
        final CompletableFuture<Long> count = new CompletableFuture<>();
        final CompletableFuture<Void> ended = new CompletableFuture<>();
        final AtomicLong received = new AtomicLong();
        final ByteBuf countOctets = Unpooled.buffer(8);
        final ApplicationBuffer application;
        private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
        private final Semaphore freed;
        private final int signalInterval;
        volatile Channel channel;
        long sentOctets;
        /** Latency: octets the echo must have returned once the current round trip is done. */
        long echoed;
        /** Event loop only: messages posted and not yet done, and those done but not yet given back. */
        private long outstanding;
        private int unreported;

        Connection(TcpMode mode, int size, int depth, ApplicationBuffer application, Semaphore freed) {
            this.mode = mode;
            this.size = size;
            this.window = new Semaphore(depth);
            this.application = application;
            this.freed = freed;
            this.signalInterval = BandwidthClient.signalInterval(depth);
        }

        /**
         * Sends {@code n} messages (Read: {@code n} 4-octet requests, in one buffer) in one
         * event-loop task: one hand-off per window's worth, as the RDMA client's one post call per
         * batch is one command for its queue pair's event loop. Messages are flushed whenever
         * {@link #FLUSH_OCTETS} have been queued since the last flush, and once at the end.
         */
        void post(int n, ByteBuf pattern) {
            channel.eventLoop().execute(() -> {
                outstanding += n;
                if (mode == TcpMode.READ || mode == TcpMode.READ_COPY) {
                    ByteBuf requests = channel.alloc().buffer(4 * n);
                    for (int k = 0; k < n; k++) {
                        requests.writeInt(size);
                    }
                    channel.writeAndFlush(requests, channel.voidPromise());
                    return;
                }
                long unflushed = 0;
                for (int k = 0; k < n; k++) {
                    channel.write(pattern.retainedSlice(0, size)).addListener(f -> done(1));
                    unflushed += size;
                    if (unflushed >= FLUSH_OCTETS) {
                        channel.flush();
                        unflushed = 0;
                    }
                }
                if (unflushed > 0) {
                    channel.flush();
                }
            });
        }

        /**
         * On the event loop: {@code n} messages are done (written to the socket; Read: answered).
         * Their window slots go back, and the posting thread is woken, only once half the depth is
         * done or nothing is outstanding: at most two wake-ups a window, as the RDMA client's
         * completions come for one request in half the depth ({@link BandwidthClient#signalInterval}).
         */
        void done(int n) {
            outstanding -= n;
            unreported += n;
            if (unreported >= signalInterval || outstanding == 0) {
                window.release(unreported);
                unreported = 0;
                freed.release();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                if (mode == TcpMode.SINK || mode == TcpMode.SINK_COPY) {
                    in.readBytes(countOctets, Math.min(in.readableBytes(), countOctets.writableBytes()));
                    if (!countOctets.isWritable()) {
                        count.complete(countOctets.getLong(0));
                    }
                    return;
                }
                if (application != null) {
                    application.copy(in);
                }
                long before = received.getAndAdd(in.readableBytes());
                long after = before + in.readableBytes();
                int whole = (int) (after / size - before / size);
                if (whole > 0 && mode == TcpMode.ECHO) {
                    units.release(whole);
                } else if (whole > 0 && mode != TcpMode.ECHO_BUSY) {
                    done(whole);
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
                ended.complete(null); // half-closure is allowed, so the channel stays open: say so
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ended.complete(null);
            count.completeExceptionally(new IOException("TCP comparison connection closed"));
            release();
        }

        /** Once, from whichever comes first: the channel's end or a connect that failed. */
        void release() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            countOctets.release();
            if (application != null) {
                application.release();
            }
        }
    }
}
