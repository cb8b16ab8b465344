package org.iwarp4j.rdmap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.iwarp4j.ddp.DdpMeters;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.mpa.MpaDecision;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.PlacementRecvByteBufAllocator;
import org.iwarp4j.rdmap.internal.qp.LogRateLimit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A software RNIC: event loops that run the connections, the STag table shared by its
 * protection domains, and connection management (active {@link QueuePair#connect}, passive
 * {@link #listen}). Closing it closes every connection it runs.
 *
 * <pre>{@code
 * try (Rnic rnic = Rnic.builder().build()) {
 *     ProtectionDomain pd = rnic.allocateProtectionDomain();
 *     MemoryRegion mr = pd.register(buffer, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
 *     CompletionQueue cq = rnic.createCompletionQueue(256);
 *     QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).build());
 *     qp.connect(address).get();
 * }
 * }</pre>
 */
public final class Rnic implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Rnic.class);
    static final int FAILURE_LOG_BURST = 10;
    static final int FAILURE_LOG_INTERVAL_SECONDS = 5;

    /**
     * Default cap on the connections one {@link Listener} has open: 1024. Each costs a socket,
     * a queue pair with its IRD slots and whatever the ULP posts (an RPC-over-RDMA connection:
     * about 70 KiB of Receive and Send buffers with the defaults); 1024 is also the usual soft limit of
     * open files per process. Linux knfsd's comparable default is lower ((threads + 3) * 20).
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_LISTENER = 1024;

    /**
     * Default cap on the connections one {@link Listener} has open from one client IP address: 64.
     * An NFS client uses one connection per server, up to 16 with Linux's {@code nconnect}; a
     * perftest-style benchmark a few; 64 leaves room for several clients behind one NAT address
     * while one host cannot take a whole listener.
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64;

    /** Base tagged offsets the RNIC chooses start here: user-space-like virtual addresses. */
    private static final long FIRST_BASE_TAGGED_OFFSET = 0x7f00_0000_0000L;
    private static final long PAGE = 4096;
    private static final AtomicInteger RNICS = new AtomicInteger();
    /**
     * Largest single read from a connection's socket, in octets: 256 KiB, four times Netty's default
     * (see {@code receiveBuffers()}). Public so that a plain-TCP comparison can read with the same
     * bound as the RNIC, and differ from it only in the protocol.
     */
    public static final int MAX_READ = 256 * 1024;

    private final EventLoopGroup group;
    /** Every channel this RNIC made, closed before its event loops stop so each engine sees channelInactive. */
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Transport transport;
    private final StagTable stagTable = new StagTable();
    private final String name;
    private final MeterRegistry meterRegistry;
    private final Consumer<? super Channel> capture;
    private final Consumer<? super Channel> channelInitializer;
    private final int maxConnectionsPerListener;
    private final int maxConnectionsPerAddress;
    private final RdmapMeters meters;
    /**
     * Queue pairs' failures without a Terminate (a peer closing inside an FPDU, a failed write) are
     * logged at most {@value #FAILURE_LOG_BURST} per {@value #FAILURE_LOG_INTERVAL_SECONDS} seconds
     * (Linux's net_ratelimit defaults): a peer can cause one per connection it opens.
     */
    private final LogRateLimit failureLogLimit;
    private final DdpMeters ddpMeters;
    private final AtomicInteger protectionDomains = new AtomicInteger();
    private final AtomicInteger queuePairs = new AtomicInteger();
    private final AtomicInteger liveQueuePairs = new AtomicInteger();
    private final AtomicInteger liveMemoryRegions = new AtomicInteger();
    private final AtomicLong nextBaseTaggedOffset = new AtomicLong(FIRST_BASE_TAGGED_OFFSET);

    private Rnic(Builder b) {
        this.transport = b.transport;
        this.group = new MultiThreadIoEventLoopGroup(b.eventLoopThreads, transport.ioHandlerFactory());
        this.name = b.name != null ? b.name : "rnic" + RNICS.getAndIncrement();
        this.meterRegistry = b.meterRegistry;
        this.capture = b.capture;
        this.channelInitializer = b.channelInitializer;
        this.maxConnectionsPerListener = b.maxConnectionsPerListener;
        this.maxConnectionsPerAddress = b.maxConnectionsPerAddress;
        this.meters = RdmapMeters.of(meterRegistry);
        this.failureLogLimit = new LogRateLimit(FAILURE_LOG_BURST, FAILURE_LOG_INTERVAL_SECONDS, TimeUnit.SECONDS,
                b.nanoClock);
        this.ddpMeters = DdpMeters.of(meterRegistry);
        if (meterRegistry != null) {
            Gauge.builder("iwarp.rnic.queue.pairs", liveQueuePairs, AtomicInteger::get).tag("rnic", name)
                    .description("Queue pairs created and not yet closed").strongReference(true)
                    .register(meterRegistry);
            Gauge.builder("iwarp.rnic.memory.regions", liveMemoryRegions, AtomicInteger::get).tag("rnic", name)
                    .description("Memory regions registered and not yet deregistered").strongReference(true)
                    .register(meterRegistry);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The registry this RNIC's meters go to ({@link Builder#meterRegistry}), empty if none was
     * given: the protocols above (RPC-over-RDMA) add theirs to the same registry.
     */
    public java.util.Optional<MeterRegistry> meterRegistry() {
        return java.util.Optional.ofNullable(meterRegistry);
    }

    /** This RNIC's name: the {@code rnic} tag of its gauges. */
    public String name() {
        return name;
    }

    public ProtectionDomain allocateProtectionDomain() {
        return new ProtectionDomain(this, protectionDomains.incrementAndGet());
    }

    /** The TCP implementation this RNIC's connections run on. */
    public Transport transport() {
        return transport;
    }

    /**
     * A completion queue for this RNIC's queue pairs. Its waiting calls ({@link CompletionQueue#take()},
     * a timed {@link CompletionQueue#poll(long, TimeUnit)}) may not be made on this RNIC's event loops.
     */
    public CompletionQueue createCompletionQueue(int capacity) {
        return new CompletionQueue(capacity, this, this::inOwnEventLoop);
    }

    /**
     * A queue pair in state IDLE: post receives, then connect it or accept a request with it.
     *
     * @throws IllegalArgumentException if the protection domain or a completion queue of {@code
     *     settings} was made by another RNIC: a completion queue is filled by the event loops of
     *     the RNIC that made it, and only those are kept from waiting on it ({@link
     *     CompletionQueue#take()})
     */
    public QueuePair createQueuePair(QueuePairSettings settings) {
        if (settings.protectionDomain().rnic() != this) {
            throw new IllegalArgumentException("the protection domain belongs to another RNIC");
        }
        if (!settings.sendCompletionQueue().servesQueuePairsOf(this)
                || !settings.receiveCompletionQueue().servesQueuePairsOf(this)) {
            throw new IllegalArgumentException("the completion queue belongs to another RNIC");
        }
        QueuePair queuePair = new QueuePair(this, settings, queuePairs.incrementAndGet());
        liveQueuePairs.incrementAndGet();
        queuePair.closeFuture().whenComplete((qp, e) -> liveQueuePairs.decrementAndGet());
        return queuePair;
    }

    /**
     * Listens for MPA connections. {@code handler} sees each valid MPA Request (private data,
     * RFC 6581 IRD/ORD) on an event loop and accepts it with a queue pair or rejects it.
     * {@code mpa} is this end's MPA offer (revision, CRC, markers, IRD/ORD, timeout, RTR types,
     * MULPDU; see {@link QueuePairSettings#mpa()} for what hardware peers need and the defaults).
     *
     * <p>A connection over one of the caps of {@link Builder#maxConnectionsPerListener} and
     * {@link Builder#maxConnectionsPerAddress} is closed as soon as TCP accepted it, before its MPA
     * Request is read: the Initiator sees the connection closed with no MPA Reply, which ends its
     * startup in failure (RFC 5044 §7.1.2). An MPA Reply with the Rejected Connection bit would be
     * politer, but that bit answers the Request's Private Data, and sending it means reading and
     * checking a Request and waiting up to the startup timeout for it: work a flood of connections
     * would make this end do. Counted in {@code iwarp.rdmap.connections.refused}.
     *
     * <p>A connection whose MPA startup fails is closed once its MPA Reply (if any) has gone out:
     * also after a reject, whether {@code handler} rejected the request or MPA did (the Initiator
     * asks for CRC or markers that {@code mpa} turns off), which RFC 5044 §7.1.2 leaves to the ULP
     * (MPA-R-056); see {@code FailedStartup}.
     *
     * <p>Waits until the listening socket is bound, so it may not be called on one of this RNIC's
     * event loops (in a {@link CompletionQueue#setListener completion queue listener}, a {@link
     * ConnectionRequestHandler}, a callback of {@link QueuePair#established()} or {@link
     * QueuePair#closeFuture()}): the bind may need that very loop. There it throws {@link
     * IllegalStateException}, whichever loop the listener would have been given; use {@link
     * #listenAsync} there.
     *
     * @throws IllegalStateException if called on one of this RNIC's event loops
     */
    public Listener listen(SocketAddress local, MpaSettings mpa, ConnectionRequestHandler handler)
            throws InterruptedException {
        if (inOwnEventLoop()) {
            throw new IllegalStateException(name + ": listen waits for the bind and cannot be called on one of"
                    + " the RNIC's event loops (a completion queue listener, a connection request handler, a"
                    + " queue pair's callback); call it from another thread, or use listenAsync");
        }
        Channel server = bind(local, mpa, handler).sync().channel();
        channels.add(server);
        return new Listener(server, this::inOwnEventLoop);
    }

    /**
     * As {@link #listen}, without waiting: the future completes with the listener once the socket
     * is bound (on the event loop the listener was given), or exceptionally if the bind fails (the
     * address in use, the RNIC closed). May be called on any thread, this RNIC's event loops
     * included.
     */
    public CompletableFuture<Listener> listenAsync(SocketAddress local, MpaSettings mpa,
                                                   ConnectionRequestHandler handler) {
        CompletableFuture<Listener> listening = new CompletableFuture<>();
        ChannelFuture bound = bind(local, mpa, handler);
        if (bound.isDone()) {
            // A closed RNIC fails the registration at once, and would never notify a listener on
            // its terminated event loop (as in connect).
            bound(bound, listening);
        } else {
            bound.addListener(f -> bound((ChannelFuture) f, listening));
        }
        return listening;
    }

    private void bound(ChannelFuture bound, CompletableFuture<Listener> listening) {
        if (bound.isSuccess()) {
            channels.add(bound.channel());
            listening.complete(new Listener(bound.channel(), this::inOwnEventLoop));
        } else {
            listening.completeExceptionally(bound.cause());
        }
    }

    private ChannelFuture bind(SocketAddress local, MpaSettings mpa, ConnectionRequestHandler handler) {
        ConnectionLimits limits = new ConnectionLimits(maxConnectionsPerListener, maxConnectionsPerAddress, log,
                name + " listener", meters::connectionRefused);
        return new ServerBootstrap().group(group).channel(transport.serverSocketChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, receiveBuffers())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!limits.admit(ch)) {
                            return;
                        }
                        channels.add(ch);
                        capture.accept(ch);
                        useReceiveBuffers(ch);
                        channelInitializer.accept(ch);
                        MpaStartupHandler startup = MpaStartupHandler.responder(withMeters(mpa), request -> {
                            ConnectionRequest connectionRequest = new ConnectionRequest(request);
                            ConnectionDecision decision = handler.onConnectionRequest(connectionRequest);
                            if (decision == null || !decision.isAccept()) {
                                return CompletableFuture.completedFuture(MpaDecision.reject(
                                        decision == null ? new byte[0] : decision.privateData(), "rejected by the ULP"));
                            }
                            QueuePair queuePair = decision.queuePair();
                            if (queuePair.rnic() != Rnic.this) {
                                // Its connection would run on this RNIC's event loops, outside its
                                // own RNIC's connections: that RNIC's close would leave it, and the
                                // regions its peer may reach, alive. Refused as below; the queue
                                // pair is not taken, its own RNIC may still connect it.
                                return refuseAccept(queuePair, "belongs to RNIC " + queuePair.rnic().name()
                                        + ", not to " + name);
                            }
                            if (!queuePair.claimForConnection()) {
                                // A queue pair runs one connection: a second engine on its work
                                // queue would take the first one's work. Refused as the ULP's own
                                // reject is (MPA Reply R=1, then closed: FailedStartup).
                                return refuseAccept(queuePair, "is " + queuePair.state()
                                        + " and was already connected, accepted or closed");
                            }
                            ch.pipeline().addLast(queuePair.newEngine());
                            return CompletableFuture.completedFuture(decision.privateData() == null
                                    ? MpaDecision.accept() : MpaDecision.accept(decision.privateData()));
                        });
                        ch.pipeline().addLast(startup);
                        // Any failed startup, the ULP's reject and the Responder's own alike
                        // (MPA-R-056): closed once the Reply is out, see FailedStartup.
                        startup.startup().whenComplete((parameters, failure) -> {
                            if (failure != null) {
                                FailedStartup.ended(ch);
                            }
                        });
                    }
                })
                .bind(local);
    }

    /**
     * An accept with a queue pair that cannot take the connection: an MPA reject instead (Reply
     * R=1, then closed: FailedStartup), and a warning. A ULP bug, but a peer can make it happen once
     * per connection it opens: rate-limited as the queue pairs' failures are.
     */
    private CompletableFuture<MpaDecision> refuseAccept(QueuePair queuePair, String why) {
        long unlogged = failureLogLimit.admit();
        String message = "{}: a connection request was accepted with queue pair {}, which {}; rejected ({} not"
                + " logged since the last message)";
        if (unlogged >= 0) {
            log.warn(message, name, queuePair.number(), why, unlogged);
        } else {
            log.debug(message, name, queuePair.number(), why, unlogged);
        }
        return CompletableFuture.completedFuture(MpaDecision.reject(new byte[0],
                "queue pair " + queuePair.number() + " " + why));
    }

    void connect(QueuePair queuePair, SocketAddress remote) {
        try {
            remote = resolved(remote);
        } catch (java.net.UnknownHostException unknown) {
            // Netty's Bootstrap would resolve on the event loop and, on failure, close the channel
            // before failing the connect: the queue pair's teardown could then end its
            // establishment with a ClosedChannelException before this learnt the real cause.
            queuePair.failedToEstablish(unknown);
            queuePair.endWithoutEngine();
            return;
        }
        ChannelFuture connecting = new Bootstrap().group(group).channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, receiveBuffers())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        capture.accept(ch);
                        useReceiveBuffers(ch);
                        channelInitializer.accept(ch);
                        MpaStartupHandler startup = MpaStartupHandler.initiator(withMeters(queuePair.settings().mpa()));
                        ch.pipeline().addLast(startup, queuePair.newEngine());
                        // A reject leaves TCP open (RFC 5044 §7.1.2, MPA-R-056) and this end has
                        // no use for it: closed as a listener's is, so that the engine's teardown
                        // flushes the work posted before connect (RDMAP-R-035). Not after an RFC
                        // 6581 setup error: the engine sends its Terminate first, then closes.
                        startup.startup().whenComplete((parameters, failure) -> {
                            if (failure != null && !(failure instanceof MpaException
                                    && ((MpaException) failure).terminateRequired())) {
                                FailedStartup.ended(ch);
                            }
                        });
                    }
                })
                .connect(remote);
        if (connecting.isDone()) {
            // A closed RNIC refuses the registration at once, and Netty would notify a listener
            // on that RNIC's terminated event loop, that is never.
            connectEnded(queuePair, connecting);
        } else {
            connecting.addListener(f -> connectEnded(queuePair, (ChannelFuture) f));
        }
    }

    /** {@code remote} with its host name resolved, if it is an unresolved {@link InetSocketAddress}. */
    private static SocketAddress resolved(SocketAddress remote) throws java.net.UnknownHostException {
        if (remote instanceof InetSocketAddress && ((InetSocketAddress) remote).isUnresolved()) {
            InetSocketAddress unresolved = (InetSocketAddress) remote;
            return new InetSocketAddress(java.net.InetAddress.getByName(unresolved.getHostString()),
                    unresolved.getPort());
        }
        return remote;
    }

    private static void connectEnded(QueuePair queuePair, ChannelFuture connecting) {
        if (!connecting.isSuccess()) {
            queuePair.failedToEstablish(connecting.cause());
            // With its engine in the pipeline, the queue pair is closed down when the channel is
            // deregistered (QueuePairEngine.handlerRemoved), after its work was flushed. Without
            // (the channel never registered: the RNIC is closed, or an initializer failed),
            // nothing else will flush it.
            if (!queuePair.hasEngine()) {
                queuePair.endWithoutEngine();
            }
        }
    }

    /**
     * Reads of up to 256 KiB (Netty's default stops at 64 KiB): with FPDUs near 64 KiB a read then
     * holds several whole FPDUs, so fewer of them are cut by a read's end and joined to the next
     * one, and a large transfer takes a quarter of the read calls. Sized adaptively from 2 KiB, and
     * only while a read is under way: an idle connection holds no receive buffer.
     */
    private static AdaptiveRecvByteBufAllocator receiveBuffers() {
        return new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ);
    }

    /**
     * Each connection gets its own {@link PlacementRecvByteBufAllocator} around {@link
     * #receiveBuffers()}, so that MPA can direct reads into registered memory (direct placement).
     * Every transport here allocates a read's buffer when the socket has data, right before the
     * read: NIO and epoll in their read loop; Netty's io_uring stream channel (without a provided
     * buffer ring, which Rnic never configures) arms a poll first and allocates when it fires or
     * when the last read said the socket is not empty, and submits the receive before the event
     * loop runs any task, so the kernel copies at once instead of holding the buffer.
     *
     * <p>But only NIO and epoll read in place: a read into registered memory holds the region's
     * placement guard until it returned, so that deregistering the region waits for it, and
     * io_uring's receive returns on a later turn of the event loop, after tasks that may be that
     * very deregistration (a Local Invalidate of a queue pair on the same loop would wait for
     * itself). On io_uring the decoder copies into place what ordinary reads bring.
     */
    private void useReceiveBuffers(Channel ch) {
        ch.config().setRecvByteBufAllocator(new PlacementRecvByteBufAllocator(receiveBuffers(),
                transport != Transport.IO_URING));
    }

    private MpaSettings withMeters(MpaSettings mpa) {
        return meterRegistry == null || mpa.meterRegistry() != null ? mpa
                : mpa.toBuilder().meterRegistry(meterRegistry).build();
    }

    StagTable stagTable() {
        return stagTable;
    }

    RdmapMeters meters() {
        return meters;
    }

    LogRateLimit failureLogLimit() {
        return failureLogLimit;
    }

    DdpMeters ddpMeters() {
        return ddpMeters;
    }

    void memoryRegionRegistered() {
        liveMemoryRegions.incrementAndGet();
    }

    void memoryRegionDeregistered() {
        liveMemoryRegions.decrementAndGet();
    }

    /** A base tagged offset for a region of {@code length} octets, page-aligned, with a guard page after it. */
    long nextBaseTaggedOffset(int length) {
        long span = (length + PAGE - 1) / PAGE * PAGE + PAGE;
        return nextBaseTaggedOffset.getAndAdd(span);
    }

    /**
     * Closes every connection and stops the event loops; returns once they have stopped (each
     * connection's outstanding work completed as flushed).
     *
     * <p>Called on one of this RNIC's own event loops (from a {@link CompletionQueue#setListener
     * completion queue listener}, or a callback of {@link QueuePair#established()} or {@link
     * QueuePair#closeFuture()}, which complete there), it cannot wait for that loop to stop: it
     * starts the same shutdown and returns at once, as Netty's own {@code close()} and {@code
     * shutdownGracefully()} do on an event loop. The loops stop once the current task returns.
     */
    @Override
    public void close() {
        if (inOwnEventLoop()) {
            // Waiting would be this thread waiting for its own end: the termination future's
            // executor is GlobalEventExecutor, so Netty's BlockingOperationException check does not
            // see it, and the wait never ends.
            channels.close().addListener(closed -> group.shutdownGracefully(0, 2, TimeUnit.SECONDS));
            return;
        }
        // Closed first, so every connection's teardown (channelInactive: completions flushed, buffers
        // released) runs before the event loops stop; a loop shut down first can drop it.
        channels.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** This RNIC's event loops (for tests). */
    EventLoopGroup eventLoops() {
        return group;
    }

    private boolean inOwnEventLoop() {
        for (io.netty.util.concurrent.EventExecutor loop : group) {
            if (loop.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    /** Builder for {@link Rnic}. */
    public static final class Builder {
        private int eventLoopThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
        private String name;
        private MeterRegistry meterRegistry;
        private Consumer<? super Channel> capture = ch -> { };
        private Consumer<? super Channel> channelInitializer = ch -> { };
        private Transport transport = Transport.best();
        private int maxConnectionsPerListener = DEFAULT_MAX_CONNECTIONS_PER_LISTENER;
        private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private java.util.function.LongSupplier nanoClock = System::nanoTime;

        private Builder() {
        }

        /** The clock of the failure log's rate limit: tests replace it to make the interval deterministic. */
        Builder nanoClock(java.util.function.LongSupplier nanoClock) {
            this.nanoClock = java.util.Objects.requireNonNull(nanoClock);
            return this;
        }

        /**
         * Connections each {@link Listener} has open at once; one more is closed when TCP accepted
         * it (default {@value Rnic#DEFAULT_MAX_CONNECTIONS_PER_LISTENER}). Connections this RNIC
         * makes with {@link QueuePair#connect} do not count.
         */
        public Builder maxConnectionsPerListener(int connections) {
            if (connections < 1) {
                throw new IllegalArgumentException("maxConnectionsPerListener < 1");
            }
            this.maxConnectionsPerListener = connections;
            return this;
        }

        /**
         * Connections each {@link Listener} has open at once from one client IP address; one more
         * is closed when TCP accepted it (default {@value Rnic#DEFAULT_MAX_CONNECTIONS_PER_ADDRESS}).
         */
        public Builder maxConnectionsPerAddress(int connections) {
            if (connections < 1) {
                throw new IllegalArgumentException("maxConnectionsPerAddress < 1");
            }
            this.maxConnectionsPerAddress = connections;
            return this;
        }

        /** The TCP implementation; default {@link Transport#best()}: epoll on Linux, NIO elsewhere. */
        public Builder transport(Transport transport) {
            java.util.Objects.requireNonNull(transport);
            if (!transport.isAvailable()) {
                throw new IllegalArgumentException(transport + " is not available here: "
                        + transport.unavailabilityCause().orElse("unknown")
                        + " (Transport.orBest falls back to the best available one)");
            }
            this.transport = transport;
            return this;
        }

        public Builder eventLoopThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("at least one event loop thread");
            }
            this.eventLoopThreads = threads;
            return this;
        }

        /** A name for this RNIC's gauges (tag {@code rnic}); default {@code rnic0}, {@code rnic1}, ... */
        public Builder name(String name) {
            this.name = java.util.Objects.requireNonNull(name);
            return this;
        }

        /**
         * Meters of every layer go here: MPA's {@code iwarp.mpa.*}, DDP's {@code iwarp.ddp.placed},
         * RDMAP's {@code iwarp.rdmap.*} and the gauges {@code iwarp.rnic.queue.pairs} and
         * {@code iwarp.rnic.memory.regions} (see docs/verbs.md, "Meters").
         */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = meterRegistry;
            return this;
        }

        /**
         * Runs for every connection this RNIC makes or accepts, before any iWARP handler is in its
         * pipeline: handlers added here sit at the head of the pipeline, next to the socket, and see
         * the TCP byte stream as sent and received — e.g. Netty's {@code PcapWriteHandler} to record
         * the traffic for Wireshark. Runs on the connection's event loop; it must not block. The
         * channel may not be connected yet (an outgoing connection is initialised before it connects).
         */
        public Builder channelInitializer(Consumer<? super Channel> channelInitializer) {
            this.channelInitializer = java.util.Objects.requireNonNull(channelInitializer);
            return this;
        }

        /**
         * Records every connection this RNIC makes or accepts, e.g. into a pcap file (the tools
         * module's {@code PcapRecording::record}): {@code recorder} is given each connection first,
         * before {@link #channelInitializer} and before any iWARP handler, so that what it puts at
         * the head of the pipeline sees the TCP byte stream from its first octet (the MPA Request
         * and Reply included). Default: nothing is recorded. Runs on the connection's event loop;
         * it must not block. Kept apart from {@link #channelInitializer} so that a program can
         * record a run without giving up its own initializer.
         */
        public Builder capture(Consumer<? super Channel> recorder) {
            this.capture = java.util.Objects.requireNonNull(recorder);
            return this;
        }

        public Rnic build() {
            return new Rnic(this);
        }
    }
}
