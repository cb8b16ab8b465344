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
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import org.iwarp4j.oncrpc.internal.AssemblyBudget;
import org.iwarp4j.oncrpc.internal.ConnectionLimits;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.iwarp4j.oncrpc.internal.ServerCallBudget;
import org.iwarp4j.oncrpc.internal.TcpBackwardCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * An ONC RPC server on plain TCP with record marking (RFC 5531 §11): accepts connections and
 * hands every call record to an {@link RpcDispatcher}, writing each reply as one record when its
 * procedure completes (replies may leave in a different order than the calls arrived; the client
 * matches them by xid).
 *
 * <p>Memory is bounded per connection and per server. Per connection: one record of at most
 * {@code maxRecordSize} octets is reassembled at a time; at most {@code maxOutstandingCalls} calls
 * are outstanding (in service, or answered with a reply the socket has not yet taken), and no call
 * starts while the connection's unwritten replies hold {@code maxUnwrittenReplyOctetsPerConnection};
 * past either the server stops reading the connection. Per server ({@link Builder#serverBudget}):
 * at most {@code maxCallsInService} calls are in service on all connections together, at most
 * {@code maxCallsInServicePerClient} of them from one client address however many connections it
 * opens, and no call starts while all unwritten replies hold {@code maxUnwrittenReplyOctets}, or
 * while its own client's hold {@code maxUnwrittenReplyOctetsPerClient}; connections refused a
 * start wait in turn, first come first served, except that one held back only by its client's
 * share holds up no other client; call records longer than 64 KiB that have not started (being
 * reassembled, or decoded and waiting) hold at most {@code maxPendingRecordOctets} together and
 * {@code maxPendingRecordOctetsPerClient} per client address, a record reserving its octets when
 * its record mark announces them (a connection whose reservation waits is not read). A connection whose unwritten replies make no
 * progress (the socket takes none of their octets) for {@code maxReplyWriteTime} is closed, so a
 * client that reads nothing holds its share for no longer than that; one that reads slowly keeps
 * its connection.
 *
 * <p>What a client can hold is bounded too (see the {@link Builder}): connections per server and
 * per client address (one over a cap is closed as soon as it is accepted, before anything is read),
 * an idle timeout (a connection with no call in service that sent nothing for that long is closed)
 * and a time bound for each record (a record that started must complete in time, else the
 * connection is closed: a client sending one octet a second cannot keep it forever).
 *
 * <p>Meters, when {@link Builder#meterRegistry} is set: {@code iwarp.oncrpc.connections.refused}
 * (tag {@code cap}: {@code server}, {@code address}) and {@code iwarp.oncrpc.connections.closed}
 * (tag {@code reason}: {@code idle}, {@code record_time}, {@code record_size}, {@code reply_time}, and {@code error}: the
 * connection failed — typically the client reset it — and was closed).
 *
 * <p>What a client can provoke at will is not a warning: a connection closed by a limit is logged
 * at debug level and counted. One closed on an error is warned of, but at most {@value
 * #ERROR_LOG_BURST} times per {@value #ERROR_LOG_INTERVAL_SECONDS} seconds per server, the rest
 * at debug level and counted into the next warning.
 *
 * <p>The backward direction: the server may call its client on the client's own connection
 * ({@link #backchannel}), as NFSv4.1 does for callbacks over TCP (RFC 8881 §2.10.3.1). A record
 * whose msg_type is REPLY (RFC 5531 §9) is the answer to such a call and goes to it, not to the
 * dispatcher. At most {@link Builder#backchannel maxOutstanding} of these calls wait per connection,
 * each for at most its timeout.
 */
public final class RpcTcpServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RpcTcpServer.class);

    static final int ERROR_LOG_BURST = 10;
    static final int ERROR_LOG_INTERVAL_SECONDS = 5;

    /** Transport name in {@link RpcCallContext}. */
    public static final String TRANSPORT_NAME = "tcp";

    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final EventLoopGroup ownGroup;
    private final AtomicLong dropped = new AtomicLong();
    private final ConnectionLimits limits;
    private final Limits counters;

    private final ServerCallBudget budget;
    private final AssemblyBudget records;

    private RpcTcpServer(Channel serverChannel, ChannelGroup connections, EventLoopGroup ownGroup,
                         ConnectionLimits limits, Limits counters, ServerCallBudget budget, AssemblyBudget records) {
        this.budget = budget;
        this.records = records;
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.ownGroup = ownGroup;
        this.limits = limits;
        this.counters = counters;
    }

    /** A builder for a server that serves {@code dispatcher}'s programs. */
    public static Builder builder(RpcDispatcher dispatcher) {
        return new Builder(dispatcher);
    }

    /** The address the server listens on (with the port chosen if 0 was asked). */
    public SocketAddress localAddress() {
        return serverChannel.localAddress();
    }

    /**
     * The backward direction of the connection whose client is at {@code remoteAddress}: calls
     * from this server to that client, on that connection; null if no such connection is open.
     */
    public RpcClientTransport backchannel(SocketAddress remoteAddress) {
        for (Channel ch : connections) {
            if (remoteAddress.equals(ch.remoteAddress())) {
                ServerHandler h = ch.pipeline().get(ServerHandler.class);
                return h == null ? null : h.backward;
            }
        }
        return null;
    }

    /** Connections currently open. */
    public int connectionCount() {
        return connections.size();
    }

    /** Messages that could not be answered and were dropped (see {@link RpcDispatcher#dispatch}). */
    public long droppedMessages() {
        return dropped.get();
    }

    /** Connections refused at accept because a connection cap was reached. */
    public long refusedConnections() {
        return counters.refused();
    }

    /** Connections closed by the idle timeout. */
    public long idleClosedConnections() {
        return (long) counters.idle.count();
    }

    /** Connections closed because a record mark announced more than {@code maxRecordSize}. */
    public long recordSizeClosedConnections() {
        return (long) counters.recordSize.count();
    }

    /** Connections closed because a record did not complete within the time bound. */
    public long recordTimeoutClosedConnections() {
        return (long) counters.recordTime.count();
    }

    /** Connections closed because their replies made no progress for {@code maxReplyWriteTime}. */
    public long replyTimeoutClosedConnections() {
        return (long) counters.replyTime.count();
    }

    /** Calls in service on all connections now (the server's budget counts them). */
    public int callsInService() {
        return budget.callsInService();
    }

    /** Octets of replies made and not yet written, on all connections now. */
    public long unwrittenReplyOctets() {
        return budget.replyOctetsHeld();
    }

    /** Connections now waiting for room in the server's budget of calls and reply octets. */
    public int connectionsWaitingForBudget() {
        return budget.waiting();
    }

    /** Octets reserved now by call records not yet started, on all connections ({@link Builder#maxPendingRecordOctets}). */
    public long pendingRecordOctets() {
        return records.held();
    }

    /** Connections now waiting to reserve the octets of a record ({@link Builder#maxPendingRecordOctets}). */
    public int connectionsWaitingForRecordOctets() {
        return records.waiting();
    }

    /** Connections closed because they failed (a read or write error, typically a reset by the client). */
    public long errorClosedConnections() {
        return (long) counters.error.count();
    }

    /** The limit on warnings of connections closed on an error (for tests: how many it held back). */
    LogRateLimit errorLog() {
        return counters.errorLog;
    }

    /** Counters of the limits; they count nowhere visible when no registry was given. */
    private static final class Limits {
        private final Map<ConnectionLimits.Cap, Counter> refused = new EnumMap<>(ConnectionLimits.Cap.class);
        private final Counter idle;
        private final Counter recordTime;
        private final Counter recordSize;
        private final Counter replyTime;
        private final Counter error;
        private final LogRateLimit errorLog;

        Limits(MeterRegistry registry, LongSupplier nanoClock) {
            MeterRegistry r = registry == null ? new CompositeMeterRegistry() : registry;
            for (ConnectionLimits.Cap cap : ConnectionLimits.Cap.values()) {
                refused.put(cap, Counter.builder("iwarp.oncrpc.connections.refused")
                        .tag("cap", cap.name().toLowerCase(java.util.Locale.ROOT))
                        .description("RPC/TCP connections closed at accept: a connection cap was reached")
                        .register(r));
            }
            idle = Counter.builder("iwarp.oncrpc.connections.closed").tag("reason", "idle")
                    .description("RPC/TCP connections closed by a limit").register(r);
            recordTime = Counter.builder("iwarp.oncrpc.connections.closed").tag("reason", "record_time")
                    .description("RPC/TCP connections closed by a limit").register(r);
            recordSize = Counter.builder("iwarp.oncrpc.connections.closed").tag("reason", "record_size")
                    .description("RPC/TCP connections closed by a limit").register(r);
            replyTime = Counter.builder("iwarp.oncrpc.connections.closed").tag("reason", "reply_time")
                    .description("RPC/TCP connections closed by a limit").register(r);
            error = Counter.builder("iwarp.oncrpc.connections.closed").tag("reason", "error")
                    .description("RPC/TCP connections closed because they failed").register(r);
            errorLog = new LogRateLimit(ERROR_LOG_BURST, ERROR_LOG_INTERVAL_SECONDS, TimeUnit.SECONDS, nanoClock);
        }

        long refused() {
            return refused.values().stream().mapToLong(c -> (long) c.count()).sum();
        }
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

    /**
     * Default cap on connections open at once: 1024. Each connection holds socket buffers, a
     * pipeline and up to {@code maxOutstandingCalls} calls; 1024 is the common default soft limit
     * of open files per process, so a busier server raises both. Linux knfsd's comparable
     * default is lower ((threads + 3) * 20, 220 with 8 threads); Netty itself has no cap.
     */
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;

    /**
     * Default cap on connections from one client IP address: 64. An NFS client uses one connection
     * per server, up to 16 with Linux's {@code nconnect}; 64 leaves room for a few such clients
     * behind one NAT address while one host alone cannot take the whole server.
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64;

    /**
     * Default idle timeout: 6 minutes, as Linux knfsd (which closes a TCP transport idle for
     * about 6 minutes); Linux NFS clients close their own idle transports after 5, so a
     * well-behaved client normally leaves first.
     */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(6);

    /**
     * Default time bound of one record: 30 seconds. A record of the default 8 MiB limit takes
     * under a second on any link an RPC server is reached over; 30 s leaves room for a congested
     * one and cuts off a client trickling octets well before it can hold many connections.
     */
    public static final Duration DEFAULT_MAX_RECORD_TIME = Duration.ofSeconds(30);

    /**
     * Default cap on backward calls awaiting their reply on one connection: 16. NFSv4.1 callbacks
     * are few (a probe, recalls); knfsd grants its back channels a single slot.
     */
    public static final int DEFAULT_MAX_BACKWARD_CALLS = 16;

    /**
     * Default time bound of writing one reply: 30 seconds, as for a record. A reply of a few MiB
     * leaves in milliseconds to a client that reads; one that has not left in 30 s sits in the
     * server's memory for a client that does not.
     */
    public static final Duration DEFAULT_MAX_REPLY_WRITE_TIME = Duration.ofSeconds(30);

    /**
     * Default cap on calls in service on all connections together: 256. The calls queue for the
     * dispatcher's workers (4 by default) and each may make a reply as large as its program allows
     * (NFS: 1 MiB), so this also bounds the replies made at once; Linux knfsd serves as many calls
     * at once as it has threads (8 by default).
     */
    public static final int DEFAULT_MAX_CALLS_IN_SERVICE = 256;

    /**
     * Default cap on one connection's replies made and not yet written: 16 MiB, sixteen 1 MiB NFS
     * READ replies in flight, more than one client needs to keep its link busy.
     */
    public static final long DEFAULT_MAX_UNWRITTEN_REPLY_OCTETS_PER_CONNECTION = 16L << 20;

    /** Default cap on all connections' replies made and not yet written: a quarter of the heap, at most 256 MiB. */
    public static long defaultMaxUnwrittenReplyOctets() {
        return Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4);
    }

    /** Default time a backward call waits for its reply: 30 seconds. */
    public static final Duration DEFAULT_BACKWARD_TIMEOUT = Duration.ofSeconds(30);

    /** Options of an {@link RpcTcpServer}. */
    public static final class Builder {
        private final RpcDispatcher dispatcher;
        private int maxRecordSize = 8 << 20;
        private int maxFragmentSize = RpcConstants.FRAGMENT_LENGTH_MASK;
        private int maxOutstandingCalls = 128;
        private EventLoopGroup group;
        private Class<? extends ServerChannel> channelClass = NioServerSocketChannel.class;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private Duration maxRecordTime = DEFAULT_MAX_RECORD_TIME;
        private Duration maxReplyWriteTime = DEFAULT_MAX_REPLY_WRITE_TIME;
        private int maxCallsInService = DEFAULT_MAX_CALLS_IN_SERVICE;
        /** 0: a quarter of {@link #maxCallsInService}. */
        private int maxCallsInServicePerClient;
        private long maxUnwrittenReplyOctets = defaultMaxUnwrittenReplyOctets();
        private long maxPendingRecordOctets = defaultMaxUnwrittenReplyOctets();
        /** 0: a quarter of {@link #maxUnwrittenReplyOctets}. */
        private long maxUnwrittenReplyOctetsPerClient;
        /** 0: a quarter of {@link #maxPendingRecordOctets}. */
        private long maxPendingRecordOctetsPerClient;
        private long maxUnwrittenReplyOctetsPerConnection = DEFAULT_MAX_UNWRITTEN_REPLY_OCTETS_PER_CONNECTION;
        private MeterRegistry meterRegistry;
        private int maxBackwardCalls = DEFAULT_MAX_BACKWARD_CALLS;
        private Duration backwardTimeout = DEFAULT_BACKWARD_TIMEOUT;
        private LongSupplier nanoClock = System::nanoTime;

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

        /**
         * Calls of one connection outstanding at once (in service, or with a reply not yet taken by
         * the socket) before the server stops reading it (default 128).
         */
        public Builder maxOutstandingCalls(int calls) {
            if (calls < 1) {
                throw new IllegalArgumentException("maxOutstandingCalls < 1");
            }
            this.maxOutstandingCalls = calls;
            return this;
        }

        /** Connections open at once; one more is closed when accepted (default 1024). */
        public Builder maxConnections(int connections) {
            this.maxConnections = atLeastOne(connections, "maxConnections");
            return this;
        }

        /** Connections open at once from one client IP address; one more is closed when accepted (default 64). */
        public Builder maxConnectionsPerAddress(int connections) {
            this.maxConnectionsPerAddress = atLeastOne(connections, "maxConnectionsPerAddress");
            return this;
        }

        /**
         * A connection with no call in service that received nothing for this long is closed
         * (default 6 minutes, {@link #DEFAULT_IDLE_TIMEOUT}); {@link Duration#ZERO} never closes one.
         */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = notNegative(timeout, "idleTimeout");
            return this;
        }

        /**
         * A record must be complete this long after its first octet arrived, else the connection
         * is closed (default 30 s, {@link #DEFAULT_MAX_RECORD_TIME}); {@link Duration#ZERO} for no bound.
         */
        public Builder maxRecordTime(Duration time) {
            this.maxRecordTime = notNegative(time, "maxRecordTime");
            return this;
        }

        /**
         * A connection whose unwritten replies make no progress for this long (the socket takes
         * none of their octets: its client reads nothing) is closed (default 30 s, {@link
         * #DEFAULT_MAX_REPLY_WRITE_TIME}); a client that reads, however slowly, keeps it. So a
         * client that reads no replies holds the server's reply memory no longer. {@link
         * Duration#ZERO} for no bound.
         */
        public Builder maxReplyWriteTime(Duration time) {
            this.maxReplyWriteTime = notNegative(time, "maxReplyWriteTime");
            return this;
        }

        /**
         * What all connections together may hold (see the class comment): calls in service
         * (default {@value #DEFAULT_MAX_CALLS_IN_SERVICE}) and octets of replies made and not yet
         * written (default a quarter of the heap, at most 256 MiB). Past either, no connection
         * starts a call until there is room again; the connections wait in turn.
         */
        public Builder serverBudget(int maxCallsInService, long maxUnwrittenReplyOctets) {
            this.maxCallsInService = atLeastOne(maxCallsInService, "maxCallsInService");
            if (maxUnwrittenReplyOctets < 1) {
                throw new IllegalArgumentException("maxUnwrittenReplyOctets < 1");
            }
            this.maxUnwrittenReplyOctets = maxUnwrittenReplyOctets;
            return this;
        }

        /**
         * Calls in service of one client address, on all its connections together (default a
         * quarter of the server's {@code maxCallsInService}, at least 1): past it, that client's
         * connections wait while others' calls start, so one host opening many connections cannot
         * hold every place the server has.
         */
        public Builder maxCallsInServicePerClient(int calls) {
            this.maxCallsInServicePerClient = atLeastOne(calls, "maxCallsInServicePerClient");
            return this;
        }

        /**
         * Octets of replies made and not yet written for one client address, on all its
         * connections together (default a quarter of the server's {@code maxUnwrittenReplyOctets}):
         * past it, that client's connections start no call while others' calls start, so one host
         * that reads none of its replies on many connections cannot hold the whole server's reply
         * octets for {@link #maxReplyWriteTime}.
         */
        public Builder maxUnwrittenReplyOctetsPerClient(long octets) {
            this.maxUnwrittenReplyOctetsPerClient = atLeastOneOctet(octets, "maxUnwrittenReplyOctetsPerClient");
            return this;
        }

        /**
         * Octets of call records longer than 64 KiB that one client address's connections together
         * may hold before their calls start (default a quarter of {@link #maxPendingRecordOctets},
         * at least one record when the client holds none): past it, that client's next record
         * waits and its connection is not read, while other clients' records are reserved past it.
         * So one host that announces large records and sends them slowly on many connections
         * cannot hold the whole server's record octets for {@link #maxRecordTime}.
         */
        public Builder maxPendingRecordOctetsPerClient(long octets) {
            this.maxPendingRecordOctetsPerClient = atLeastOneOctet(octets, "maxPendingRecordOctetsPerClient");
            return this;
        }

        /**
         * Octets of call records longer than 64 KiB that all connections together may hold
         * before their calls start: being reassembled, or decoded and waiting for the server's
         * budget (default a quarter of the heap, at most 256 MiB, as the reply octets). A record
         * reserves its octets when its record mark announces them; one that does not fit waits,
         * first come first served, and its connection is not read meanwhile. Without it the
         * connections together could hold one record of {@code maxRecordSize} each.
         */
        public Builder maxPendingRecordOctets(long octets) {
            if (octets < 1) {
                throw new IllegalArgumentException("maxPendingRecordOctets < 1");
            }
            this.maxPendingRecordOctets = octets;
            return this;
        }

        /**
         * Octets of one connection's replies made and not yet written past which it starts no
         * call and is not read (default 16 MiB, {@link #DEFAULT_MAX_UNWRITTEN_REPLY_OCTETS_PER_CONNECTION}).
         */
        public Builder maxUnwrittenReplyOctetsPerConnection(long octets) {
            if (octets < 1) {
                throw new IllegalArgumentException("maxUnwrittenReplyOctetsPerConnection < 1");
            }
            this.maxUnwrittenReplyOctetsPerConnection = octets;
            return this;
        }

        /**
         * The backward direction ({@link RpcTcpServer#backchannel}): calls awaiting their reply per
         * connection (default {@link #DEFAULT_MAX_BACKWARD_CALLS}; 0 turns the direction off) and
         * how long each waits (default {@link #DEFAULT_BACKWARD_TIMEOUT}).
         */
        public Builder backchannel(int maxOutstanding, Duration timeout) {
            if (maxOutstanding < 0) {
                throw new IllegalArgumentException("maxOutstanding < 0");
            }
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("backward timeout must be positive");
            }
            this.maxBackwardCalls = maxOutstanding;
            this.backwardTimeout = timeout;
            return this;
        }

        /** Where the limit meters go (see the class comment); none by default. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /** The clock of the warning limit ({@link System#nanoTime()}; a test's own). */
        Builder nanoClock(LongSupplier clock) {
            this.nanoClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        private static int atLeastOne(int n, String what) {
            if (n < 1) {
                throw new IllegalArgumentException(what + " < 1");
            }
            return n;
        }

        private static long atLeastOneOctet(long octets, String what) {
            if (octets < 1) {
                throw new IllegalArgumentException(what + " < 1");
            }
            return octets;
        }

        private static Duration notNegative(Duration d, String what) {
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " < 0");
            }
            return d;
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
            Limits counters = new Limits(meterRegistry, nanoClock);
            ConnectionLimits limits = new ConnectionLimits(maxConnections, maxConnectionsPerAddress, log,
                    "RPC/TCP server", cap -> counters.refused.get(cap).increment());
            long idleNanos = idleTimeout.toNanos();
            long replyNanos = maxReplyWriteTime.toNanos();
            long unwrittenPerConnection = maxUnwrittenReplyOctetsPerConnection;
            int perClient = maxCallsInServicePerClient > 0 ? maxCallsInServicePerClient
                    : Math.max(1, maxCallsInService / 4);
            long repliesPerClient = maxUnwrittenReplyOctetsPerClient > 0 ? maxUnwrittenReplyOctetsPerClient
                    : Math.max(1, maxUnwrittenReplyOctets / 4);
            long recordsPerClient = maxPendingRecordOctetsPerClient > 0 ? maxPendingRecordOctetsPerClient
                    : Math.max(1, maxPendingRecordOctets / 4);
            ServerCallBudget budget = new ServerCallBudget(maxCallsInService, Math.min(perClient, maxCallsInService),
                    maxUnwrittenReplyOctets, Math.min(repliesPerClient, maxUnwrittenReplyOctets),
                    Long.MAX_VALUE, Long.MAX_VALUE);
            AssemblyBudget records = new AssemblyBudget(maxPendingRecordOctets,
                    Math.min(recordsPerClient, maxPendingRecordOctets));
            int backwardCalls = maxBackwardCalls;
            Duration backwardWait = backwardTimeout;
            ServerBootstrap bootstrap = new ServerBootstrap().group(runOn).channel(channelClass)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (!limits.admit(ch)) {
                                return;
                            }
                            connections.add(ch);
                            if (idleNanos > 0 || replyNanos > 0) {
                                // observeOutput: a reply the socket is taking, however slowly, is progress
                                ch.pipeline().addLast(new IdleStateHandler(true, idleNanos, replyNanos, 0,
                                        TimeUnit.NANOSECONDS));
                            }
                            ServerHandler handler = new ServerHandler(dispatcher, maxOutstandingCalls,
                                    unwrittenPerConnection, budget, server, counters,
                                    new TcpBackwardCalls(ch, backwardCalls, backwardWait));
                            RecordMarkingDecoder decoder = new RecordMarkingDecoder(maxRecordSize, maxRecordTime,
                                    records, handler::assemblyReading);
                            handler.decoder = decoder;
                            ch.pipeline().addLast(decoder.readGate(), decoder,
                                    new RecordMarkingEncoder(maxFragmentSize), handler);
                        }
                    });
            try {
                Channel channel = bootstrap.bind(address).syncUninterruptibly().channel();
                server[0] = new RpcTcpServer(channel, connections, ownGroup, limits, counters, budget, records);
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
     * The handler of one connection, with the server's other parts made for it alone: for tests
     * that put it in an {@code EmbeddedChannel} and hold its writes.
     */
    static io.netty.channel.ChannelHandler connectionHandler(RpcDispatcher dispatcher, int maxOutstandingCalls,
                                                           Channel channel) {
        return connectionHandler(dispatcher, maxOutstandingCalls, Long.MAX_VALUE,
                new ServerCallBudget(Integer.MAX_VALUE, Long.MAX_VALUE), channel);
    }

    /** As {@link #connectionHandler(RpcDispatcher, int, Channel)}, with these reply bounds and a budget shared with others. */
    static io.netty.channel.ChannelHandler connectionHandler(RpcDispatcher dispatcher, int maxOutstandingCalls,
                                                           long maxUnwrittenOctets, ServerCallBudget budget,
                                                           Channel channel) {
        return new ServerHandler(dispatcher, maxOutstandingCalls, maxUnwrittenOctets, budget, new RpcTcpServer[1],
                new Limits(null, System::nanoTime), new TcpBackwardCalls(channel, 1, Duration.ofSeconds(30)));
    }

    /**
     * Adds a connection's decoder and handler as the server does, sharing these budgets (tests:
     * the records reach the handler through the decoder, which reserves their octets).
     */
    static void addConnectionHandlers(Channel channel, RpcDispatcher dispatcher, int maxRecordSize,
                                      ServerCallBudget budget, AssemblyBudget records) {
        ServerHandler handler = new ServerHandler(dispatcher, 128, Long.MAX_VALUE, budget, new RpcTcpServer[1],
                new Limits(null, System::nanoTime), new TcpBackwardCalls(channel, 1, Duration.ofSeconds(30)));
        RecordMarkingDecoder decoder = new RecordMarkingDecoder(maxRecordSize, Duration.ZERO, records,
                handler::assemblyReading);
        handler.decoder = decoder;
        channel.pipeline().addLast(decoder.readGate(), decoder, handler);
    }

    /**
     * One connection: record -> dispatcher -> record. A call starts only while at most {@code
     * maxOutstanding} calls are outstanding (in service, or answered with a reply not yet written
     * to the socket), the unwritten replies hold less than {@code maxUnwrittenOctets}, and the
     * server's {@link ServerCallBudget} has room (a client that does not read its replies stops
     * the writes, not the server's memory from filling). Records decoded beyond that (one read can
     * hold many) wait in a queue that cannot grow further because reading stops until a call can
     * start again; when the server's budget is what stops it, the connection waits in the budget's
     * queue and is woken on its event loop.
     */
    private static final class ServerHandler extends ChannelInboundHandlerAdapter
            implements ServerCallBudget.Waiter {
        private final RpcDispatcher dispatcher;
        private final int maxOutstanding;
        private final long maxUnwrittenOctets;
        private final ServerCallBudget budget;
        private final RpcTcpServer[] server;
        private final Limits counters;
        private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>();
        private final TcpBackwardCalls backward;
        private RpcTransportInfo info;
        private ChannelHandlerContext ctx;
        /** The client whose share of the server's budget this connection's calls take: its peer's address. */
        private Object client;
        /** Calls in service plus replies being written. */
        private int outstanding;
        /** Calls in service (the idle timeout spares a connection with one). */
        private int inService;
        /** Octets of this connection's replies made and not yet taken by the socket. */
        private long unwrittenOctets;
        /** The connection's decoder, told when a record it reserved octets for was taken up (null: none). */
        RecordMarkingDecoder decoder;
        /** Whether the server's budget of pending record octets lets the connection be read. */
        private boolean assemblyAllows = true;

        ServerHandler(RpcDispatcher dispatcher, int maxOutstanding, long maxUnwrittenOctets, ServerCallBudget budget,
                      RpcTcpServer[] server, Limits counters, TcpBackwardCalls backward) {
            this.backward = backward;
            this.dispatcher = dispatcher;
            this.maxOutstanding = maxOutstanding;
            this.maxUnwrittenOctets = maxUnwrittenOctets;
            this.budget = budget;
            this.server = server;
            this.counters = counters;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            this.client = ServerCallBudget.clientOf(ctx.channel().remoteAddress());
        }

        @Override
        public Object client() {
            return client;
        }

        /** Room in the server's budget and this connection is first: on its event loop, serve what waits. */
        @Override
        public void budgetFreed() {
            try {
                ctx.executor().execute(() -> serveWaiting(ctx));
            } catch (RejectedExecutionException e) {
                budget.forget(this); // the event loop is shutting down with the server
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.WRITER_IDLE) {
                if (unwrittenOctets > 0) {
                    log.debug("RPC/TCP connection from {} closed: its replies made no progress within the time bound",
                            ctx.channel().remoteAddress());
                    counters.replyTime.increment();
                    ctx.close();
                }
                return;
            }
            if (evt instanceof IdleStateEvent) {
                if (inService == 0 && waiting.isEmpty()) {
                    log.debug("RPC/TCP connection from {} idle; closing it", ctx.channel().remoteAddress());
                    counters.idle.increment();
                    ctx.close();
                }
                return;
            }
            ctx.fireUserEventTriggered(evt);
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
            if (record.readableBytes() >= 8 && record.getInt(record.readerIndex() + 4) == RpcConstants.REPLY) {
                takenUp(record);
                backward.reply(record); // the client answering one of our backward calls
                return;
            }
            if (info == null) {
                info = new RpcTransportInfo(TRANSPORT_NAME, ctx.channel().localAddress(),
                        ctx.channel().remoteAddress(), ctx.alloc());
            }
            waiting.add(record);
            serveWaiting(ctx);
        }

        private void takenUp(ByteBuf record) {
            if (decoder != null) {
                decoder.takenUp(record);
            }
        }

        /** The decoder's reservation of record octets waits ({@code false}) or was granted: on the event loop. */
        void assemblyReading(boolean allows) {
            assemblyAllows = allows;
            serveWaiting(ctx);
        }

        /** This connection's own bounds leave room for one more call (the server's are asked after). */
        private boolean mayStart() {
            return outstanding < maxOutstanding && unwrittenOctets < maxUnwrittenOctets;
        }

        private void dispatch(ChannelHandlerContext ctx, ByteBuf record, ServerCallBudget.Place place) {
            outstanding++;
            inService++;
            dispatcher.dispatch(XdrMessage.of(record), info).whenComplete((reply, error) -> {
                if (ctx.executor().inEventLoop()) {
                    completed(ctx, place, reply, error);
                    return;
                }
                try {
                    ctx.executor().execute(() -> completed(ctx, place, reply, error));
                } catch (RejectedExecutionException e) {
                    place.ended();
                    if (reply != null) {
                        reply.release(); // the server is shutting down
                    }
                }
            });
        }

        private void completed(ChannelHandlerContext ctx, ServerCallBudget.Place place, XdrMessage reply,
                               Throwable error) {
            inService--;
            if (error == null && ctx.channel().isActive()) {
                // Outstanding and held until written: a client that reads no replies holds at most
                // this connection's bounds, and then the server stops reading it.
                int octets = reply.readableBytes();
                unwrittenOctets += octets;
                place.replyMade(octets);
                ctx.writeAndFlush(reply).addListener(f -> written(ctx, octets));
                return;
            }
            place.ended();
            outstanding--;
            if (error != null) {
                if (server[0] != null) {
                    server[0].dropped.incrementAndGet();
                }
                log.debug("dropped a message from {}: {}", info.remoteAddress(), error.toString());
            } else {
                reply.release();
            }
            serveWaiting(ctx);
        }

        private void written(ChannelHandlerContext ctx, int octets) {
            outstanding--;
            unwrittenOctets -= octets;
            budget.replyReleased(client, octets);
            serveWaiting(ctx);
        }

        /**
         * Starts the waiting calls that the connection's and the server's bounds allow, and reads
         * on when none is left waiting.
         */
        private void serveWaiting(ChannelHandlerContext ctx) {
            while (!waiting.isEmpty() && ctx.channel().isActive()) {
                if (!mayStart()) {
                    budget.forget(this); // our own bounds hold us: our turn in the server's queue is the next one's
                    break;
                }
                ServerCallBudget.Place place = budget.tryStart(this);
                if (place == null) {
                    break;
                }
                ByteBuf next = waiting.poll();
                takenUp(next);
                dispatch(ctx, next, place);
            }
            boolean readOn = waiting.isEmpty() && mayStart() && assemblyAllows;
            if (readOn != ctx.channel().config().isAutoRead() && ctx.channel().isActive()) {
                ctx.channel().config().setAutoRead(readOn);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ByteBuf record;
            while ((record = waiting.poll()) != null) {
                takenUp(record);
                record.release();
            }
            budget.forget(this);
            backward.connectionLost();
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // Not warnings: a client can cause these at will, once per connection it opens, and would
            // fill the log. They are counted instead.
            if (cause instanceof RecordMarkingDecoder.RecordTimeoutException) {
                log.debug("RPC/TCP connection from {} closed: {}", ctx.channel().remoteAddress(), cause.getMessage());
                counters.recordTime.increment();
                ctx.close();
                return;
            }
            if (cause instanceof TooLongFrameException) {
                log.debug("RPC/TCP connection from {} closed: {}", ctx.channel().remoteAddress(), cause.getMessage());
                counters.recordSize.increment();
                ctx.close();
                return;
            }
            counters.error.increment();
            long held = counters.errorLog.admit();
            if (held >= 0) {
                log.warn("RPC/TCP connection from {} closed: {}{}", ctx.channel().remoteAddress(), cause.toString(),
                        held == 0 ? "" : " (" + held + " more closed on an error and not warned of since the last"
                                + " message)");
            } else {
                log.debug("RPC/TCP connection from {} closed: {}", ctx.channel().remoteAddress(), cause.toString());
            }
            ctx.close();
        }
    }
}
