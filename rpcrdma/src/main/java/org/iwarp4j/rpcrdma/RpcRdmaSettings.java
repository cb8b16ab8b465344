package org.iwarp4j.rpcrdma;

import java.time.Duration;
import java.util.Objects;
import org.iwarp4j.mpa.MpaSettings;

/**
 * How an RPC-over-RDMA end behaves (RFC 8166, RFC 8797). Immutable; one instance may serve a
 * Requester and a Responder alike. Built with {@link #builder()}.
 *
 * <ul>
 *   <li>{@link #credits()}: a Requester asks for this many and posts this many Receives for
 *       Replies; a Responder grants this many and posts that many Receives for Calls (RFC 8166
 *       §3.3.1). Default 32.</li>
 *   <li>{@link #inlineSendSize()} / {@link #inlineReceiveSize()}: the largest Send this end sends and
 *       the Receive buffers it posts, announced in the RFC 8797 private data as Send Size and Receive
 *       Size (multiples of 1024). The inline threshold of each direction is the sender's Send Size
 *       and the receiver's Receive Size, whichever is smaller; 1024 both ways without private data.
 *       Default 1024 each.</li>
 *   <li>{@link #remoteInvalidation()}: the RFC 8797 R bit. A Responder sends Replies with Send with
 *       Invalidate only when both ends set it (CMPD-R-007). Default on.</li>
 *   <li>{@link #binding()}: the Upper-Layer Binding of the programs served or called.</li>
 *   <li>{@link #backchannelCredits()}: backward-direction calls (Responder to Requester) the two
 *       ends allow at once; each end posts this many extra Receives. 0 turns the backward
 *       direction off. Default 1.</li>
 *   <li>{@link #responderReadChunks()}: the responder-provided Read chunks of
 *       draft-cel-nfsv4-rpcrdma-reliable-reply-02 (Experimental; both ends must turn it on,
 *       RRC-R-015). Default off.</li>
 *   <li>{@link #idleTimeout()}: a Responder closes a connection with no Call in service that
 *       received nothing for this long. Default 6 minutes; {@link Duration#ZERO} never.</li>
 *   <li>{@link #rdmaReadTimeout()}: an RDMA Read this end posted (pulling a Read chunk) that the
 *       peer has not answered in this time fails its RPC and ends the connection. Default 30 s.</li>
 *   <li>{@link #maxReplySendTime()}: a Responder aborts a connection whose posted Sends and RDMA
 *       Writes make no progress (none completes) for this long, so that a Requester that stops
 *       reading gives back its Calls' places in service. Default 30 s; {@link Duration#ZERO}
 *       never.</li>
 *   <li>{@link #reconnect()}, {@link #reconnectDelay()}, {@link #maxRetransmissions()}: a
 *       Requester connects again, for a Call only, and sends the Calls without a Reply again;
 *       attempts after a connection that brought no Reply wait 5 s, then twice as long each time up
 *       to 30 s (Linux xprtrdma's); a Call is sent at most 1 + 2 times. Default on.</li>
 *   <li>{@link #keptDataBuffers()}: buffers of up to 1 MiB a connection keeps for RDMA data to land
 *       in (a Responder's Read chunk sinks, a Requester's Write and Reply chunk targets), made as
 *       Calls in flight need them and lent again and again, so that a steady stream of large
 *       READs or WRITEs allocates no memory per Call, and zeroes none (a Requester hands the caller
 *       only octets of a Write or Reply chunk that the Responder's RDMA Writes placed, so a
 *       Responder cannot make it return old data). Never more than
 *       {@link #credits()} are used. Default 8 (8 MiB at most per connection); 0 allocates every
 *       time.</li>
 *   <li>{@link #serverCallsInService()} and {@link #serverKeptDataBuffers()}: what all the
 *       connections of one {@link RpcRdmaServer} hold together: Calls in service (from the moment
 *       a Call is taken up, its Read chunks pulled, until it is answered; default 256, further Calls
 *       wait in turn, first come first served) and kept data buffers (default 64, 64 MiB; a
 *       connection past it allocates per Call instead).</li>
 *   <li>{@link #serverCallsInServicePerClient()}: the Calls in service of one client address on
 *       all its connections together (default a quarter of {@link #serverCallsInService()}), so
 *       that one host opening several connections cannot hold every place (one connection holds
 *       at most twice its {@link #credits()}: past that its connection is closed).</li>
 *   <li>{@link #serverReadChunkOctets()}: the octets the Read chunks of all Calls in service may
 *       pull together (default a quarter of the JVM's direct memory, at most 256 MiB), and one
 *       client's share of them ({@link #serverReadChunkOctetsPerClient()}); a Call whose Read
 *       chunks do not fit waits for room, so that pulled data stays in the memory there is
 *       instead of failing connections.</li>
 * </ul>
 */
public final class RpcRdmaSettings {

    private final int credits;
    private final int inlineSendSize;
    private final int inlineReceiveSize;
    private final boolean remoteInvalidation;
    private final boolean announcePrivateData;
    private final int maxSegmentSize;
    private final long maxChunkSize;
    private final int maxChunkSegments;
    private final int maxReadSegments;
    private final int maxWriteChunks;
    private final UpperLayerBinding binding;
    private final int defaultMaxReplySize;
    private final int backchannelCredits;
    private final boolean responderReadChunks;
    private final Duration responderReadChunkTimeout;
    private final boolean reconnect;
    private final Duration reconnectDelay;
    private final Duration maxReconnectDelay;
    private final int maxRetransmissions;
    private final Duration idleTimeout;
    private final Duration rdmaReadTimeout;
    private final Duration maxReplySendTime;
    private final int keptDataBuffers;
    private final int serverCallsInService;
    private final int serverKeptDataBuffers;
    private final int serverCallsInServicePerClient;
    private final long serverReadChunkOctets;
    private final MpaSettings mpa;

    /**
     * Default idle timeout: 6 minutes, what Linux knfsd allows an idle transport (its Linux NFS
     * clients close their own after 5, so a well-behaved client leaves first).
     */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(6);

    /**
     * Default bound of one RDMA Read: 30 seconds. A Read of the largest chunk accepted (16 MiB by
     * default) takes milliseconds on any link that carries RDMA; a peer silent for 30 s has stopped
     * serving Read Requests, and RFC 8166 has no way to ask again on the same connection.
     */
    public static final Duration DEFAULT_RDMA_READ_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Default bound of a Responder's work making no progress: 30 seconds, as ONC RPC over TCP's
     * {@code maxReplyWriteTime}. A 1 MiB RDMA Write leaves in milliseconds to a Requester that
     * reads; a Requester that let none of this end's work complete for 30 s reads nothing.
     */
    public static final Duration DEFAULT_MAX_REPLY_SEND_TIME = Duration.ofSeconds(30);

    /**
     * Default first delay between a Requester's connection attempts: 5 seconds, Linux xprtrdma's
     * {@code RPCRDMA_INIT_REEST_TO}. It applies only once a connection brought no Reply: the first
     * attempt after a connection that served Calls is made at once.
     */
    public static final Duration DEFAULT_RECONNECT_DELAY = Duration.ofSeconds(5);

    /** Default longest delay between a Requester's connection attempts: 30 seconds, xprtrdma's {@code RPCRDMA_MAX_REEST_TO}. */
    public static final Duration DEFAULT_MAX_RECONNECT_DELAY = Duration.ofSeconds(30);

    /**
     * Default sends of one Call after its first, each on a new connection, before the next loss
     * fails it: 2, as {@code RpcTcpClientTransport} and Linux's {@code retrans} for TCP mounts.
     */
    public static final int DEFAULT_MAX_RETRANSMISSIONS = 2;

    private RpcRdmaSettings(Builder b) {
        this.credits = b.credits;
        this.inlineSendSize = b.inlineSendSize;
        this.inlineReceiveSize = b.inlineReceiveSize;
        this.remoteInvalidation = b.remoteInvalidation;
        this.announcePrivateData = b.announcePrivateData;
        this.maxSegmentSize = b.maxSegmentSize;
        this.maxChunkSize = b.maxChunkSize;
        this.maxChunkSegments = b.maxChunkSegments;
        this.maxReadSegments = b.maxReadSegments;
        this.maxWriteChunks = b.maxWriteChunks;
        this.binding = b.binding;
        this.defaultMaxReplySize = b.defaultMaxReplySize;
        this.backchannelCredits = b.backchannelCredits;
        this.responderReadChunks = b.responderReadChunks;
        this.responderReadChunkTimeout = b.responderReadChunkTimeout;
        this.reconnect = b.reconnect;
        this.reconnectDelay = b.reconnectDelay;
        this.maxReconnectDelay = b.maxReconnectDelay;
        this.maxRetransmissions = b.maxRetransmissions;
        this.idleTimeout = b.idleTimeout;
        this.rdmaReadTimeout = b.rdmaReadTimeout;
        this.maxReplySendTime = b.maxReplySendTime;
        this.keptDataBuffers = b.keptDataBuffers;
        this.serverCallsInService = b.serverCallsInService;
        this.serverKeptDataBuffers = b.serverKeptDataBuffers;
        this.serverCallsInServicePerClient = b.serverCallsInServicePerClient;
        this.serverReadChunkOctets = b.serverReadChunkOctets;
        this.mpa = b.mpa;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The defaults. */
    public static RpcRdmaSettings defaults() {
        return builder().build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.credits = credits;
        b.inlineSendSize = inlineSendSize;
        b.inlineReceiveSize = inlineReceiveSize;
        b.remoteInvalidation = remoteInvalidation;
        b.announcePrivateData = announcePrivateData;
        b.maxSegmentSize = maxSegmentSize;
        b.maxChunkSize = maxChunkSize;
        b.maxChunkSegments = maxChunkSegments;
        b.maxReadSegments = maxReadSegments;
        b.maxWriteChunks = maxWriteChunks;
        b.binding = binding;
        b.defaultMaxReplySize = defaultMaxReplySize;
        b.backchannelCredits = backchannelCredits;
        b.responderReadChunks = responderReadChunks;
        b.responderReadChunkTimeout = responderReadChunkTimeout;
        b.reconnect = reconnect;
        b.reconnectDelay = reconnectDelay;
        b.maxReconnectDelay = maxReconnectDelay;
        b.maxRetransmissions = maxRetransmissions;
        b.idleTimeout = idleTimeout;
        b.rdmaReadTimeout = rdmaReadTimeout;
        b.maxReplySendTime = maxReplySendTime;
        b.keptDataBuffers = keptDataBuffers;
        b.serverCallsInService = serverCallsInService;
        b.serverKeptDataBuffers = serverKeptDataBuffers;
        b.serverCallsInServicePerClient = serverCallsInServicePerClient;
        b.serverReadChunkOctets = serverReadChunkOctets;
        b.mpa = mpa;
        return b;
    }

    public int credits() {
        return credits;
    }

    public int inlineSendSize() {
        return inlineSendSize;
    }

    public int inlineReceiveSize() {
        return inlineReceiveSize;
    }

    public boolean remoteInvalidation() {
        return remoteInvalidation;
    }

    /** Whether the RFC 8797 block goes into the MPA private data (CMPD-R-001: it is optional). */
    public boolean announcePrivateData() {
        return announcePrivateData;
    }

    /** A chunk longer than this is described by several segments (RFC 8166 §3.4.4). */
    public int maxSegmentSize() {
        return maxSegmentSize;
    }

    /** The longest chunk this end accepts from a peer or provisions itself (RFC 8166 §8.1.4). */
    public long maxChunkSize() {
        return maxChunkSize;
    }

    /** Segments a received Write chunk or Reply chunk may have. */
    public int maxChunkSegments() {
        return maxChunkSegments;
    }

    /** Read segments a received Read list may have. */
    public int maxReadSegments() {
        return maxReadSegments;
    }

    /** Write chunks a received Write list may have. */
    public int maxWriteChunks() {
        return maxWriteChunks;
    }

    public UpperLayerBinding binding() {
        return binding;
    }

    /** Reply size a Requester provisions for programs its binding does not cover. */
    public int defaultMaxReplySize() {
        return defaultMaxReplySize;
    }

    public int backchannelCredits() {
        return backchannelCredits;
    }

    public boolean responderReadChunks() {
        return responderReadChunks;
    }

    /** How long a Responder keeps a responder-provided Read chunk readable without pull completion (RRC-R-011). */
    public Duration responderReadChunkTimeout() {
        return responderReadChunkTimeout;
    }

    /**
     * A Requester whose connection is lost connects again and retransmits the Calls that had no
     * Reply, with the same XIDs (RFC 8166 §4.5.5). Default on; off fails them. It connects again
     * only for a Call: at once when Calls were waiting, else when the next Call is made, so an idle
     * Requester whose server closed its connection holds none. Attempts are spaced by {@link
     * #reconnectDelay()}.
     */
    public boolean reconnect() {
        return reconnect;
    }

    /**
     * The first delay between a Requester's connection attempts, each later one twice the last up
     * to {@link #maxReconnectDelay()}, counted from when the last attempt began (as Linux's RPC
     * client counts); back to none once a Reply arrives. So a server that accepts and closes every
     * connection, or refuses them, costs this end one attempt per delay, not one per round trip.
     */
    public Duration reconnectDelay() {
        return reconnectDelay;
    }

    /** The longest delay between a Requester's connection attempts ({@link #reconnectDelay()}). */
    public Duration maxReconnectDelay() {
        return maxReconnectDelay;
    }

    /**
     * How many times a Requester sends one Call again, each on a new connection, before the next
     * loss of a connection fails it with {@code RpcTransportException}: a Call the server closes the
     * connection for (or that a server never answers before closing) cannot make a loop.
     */
    public int maxRetransmissions() {
        return maxRetransmissions;
    }

    /**
     * A Responder closes a connection (gracefully) that has had no Call in service, no RDMA work
     * outstanding and received nothing for this long; measured from establishment, so a
     * connection that never sends its first message is closed too. {@link Duration#ZERO}: never.
     */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /**
     * How long an RDMA Read this end posts (a Responder pulling a Call's Read chunks, a Requester
     * pulling a responder-provided Read chunk) may stay unanswered; then its RPC fails and the
     * connection is closed at once (abortively: the Read cannot be taken back, and its sink is
     * released only once the connection is gone).
     */
    public Duration rdmaReadTimeout() {
        return rdmaReadTimeout;
    }

    /**
     * How long a Responder's posted Sends and RDMA Writes (Replies, their Write and Reply chunks)
     * may make no progress, none of them completing, before the connection is aborted. Each
     * completes once the socket took all its octets, so a Requester that reads keeps its
     * connection as long as it takes one work request within the bound (at most 1 MiB: an RDMA
     * Write into a longer segment is posted in pieces of 1 MiB): 35 KB/s at the default. RDMA
     * Reads do not count here ({@link #rdmaReadTimeout()} bounds them). {@link Duration#ZERO}: never.
     */
    public Duration maxReplySendTime() {
        return maxReplySendTime;
    }

    /**
     * Buffers (of up to 1 MiB each) one connection keeps for RDMA data to land in; at most
     * {@link #credits()} of them are ever made, since no more Calls are in flight at once.
     */
    public int keptDataBuffers() {
        return keptDataBuffers;
    }

    /**
     * Calls in service on all connections of one server together: taken up (Read chunks pulled,
     * the Call dispatched) and not yet answered. Further Calls wait in their connection, the
     * connections in turn. Each may hold up to {@link #maxChunkSize()} pulled and a Reply as
     * large, so this bounds a server's memory for Calls whatever its clients do.
     */
    public int serverCallsInService() {
        return serverCallsInService;
    }

    /** Kept data buffers ({@link #keptDataBuffers()}) of all connections of one server together. */
    public int serverKeptDataBuffers() {
        return serverKeptDataBuffers;
    }

    /**
     * Calls in service of one client (one IP address, however many connections it has) on one
     * server together; its further Calls wait while other clients' start. Default a quarter of
     * {@link #serverCallsInService()}, at least 1; never more than that.
     */
    public int serverCallsInServicePerClient() {
        int perClient = serverCallsInServicePerClient > 0 ? serverCallsInServicePerClient
                : Math.max(1, serverCallsInService / 4);
        return Math.min(perClient, serverCallsInService);
    }

    /**
     * Octets the Read chunks of all Calls in service on one server may pull together: a Call
     * holds its Read chunks' length from the moment it is taken up until its procedure has
     * completed (or it is refused), and one that does not fit beside the others waits, in turn;
     * one that is alone always starts, up to {@link #maxChunkSize()}, and Calls without Read
     * chunks are not held up by one that waits. Default a quarter of the JVM's direct memory, at
     * most 256 MiB.
     */
    public long serverReadChunkOctets() {
        return serverReadChunkOctets > 0 ? serverReadChunkOctets
                : Math.max(1, Math.min(256L << 20, io.netty.util.internal.PlatformDependent.maxDirectMemory() / 4));
    }

    /**
     * Octets the Read chunks of one client's Calls in service may pull together (all its
     * connections): the same share of {@link #serverReadChunkOctets()} as {@link
     * #serverCallsInServicePerClient()} is of {@link #serverCallsInService()} (64 MiB of 256 by
     * default). A client holding none may always start one Call; past its share its Calls wait
     * and hold up no other client's.
     */
    public long serverReadChunkOctetsPerClient() {
        long share = (long) (serverReadChunkOctets() * ((double) serverCallsInServicePerClient() / serverCallsInService()));
        return Math.max(1, share);
    }

    /** The MPA options of the connection; the RFC 8797 block is added to its private data. */
    public MpaSettings mpa() {
        return mpa;
    }

    /** Builder for {@link RpcRdmaSettings}. */
    public static final class Builder {
        private int credits = 32;
        private int inlineSendSize = 1024;
        private int inlineReceiveSize = 1024;
        private boolean remoteInvalidation = true;
        private boolean announcePrivateData = true;
        private int maxSegmentSize = 1 << 20;
        private long maxChunkSize = 16L << 20;
        private int maxChunkSegments = 64;
        private int maxReadSegments = 64;
        private int maxWriteChunks = 16;
        private UpperLayerBinding binding = UpperLayerBinding.NONE;
        private int defaultMaxReplySize = 64 << 10;
        private int backchannelCredits = 1;
        private boolean responderReadChunks;
        private Duration responderReadChunkTimeout = Duration.ofSeconds(5);
        private boolean reconnect = true;
        private Duration reconnectDelay = DEFAULT_RECONNECT_DELAY;
        private Duration maxReconnectDelay = DEFAULT_MAX_RECONNECT_DELAY;
        private int maxRetransmissions = DEFAULT_MAX_RETRANSMISSIONS;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private Duration rdmaReadTimeout = DEFAULT_RDMA_READ_TIMEOUT;
        private Duration maxReplySendTime = DEFAULT_MAX_REPLY_SEND_TIME;
        private int keptDataBuffers = 8;
        private int serverCallsInService = 256;
        private int serverKeptDataBuffers = 64;
        /** 0: the default, a quarter of the calls in service. */
        private int serverCallsInServicePerClient;
        /** 0: the default, from the direct memory. */
        private long serverReadChunkOctets;
        private MpaSettings mpa = MpaSettings.builder().build();

        private Builder() {
        }

        /**
         * What all connections of one {@link RpcRdmaServer} hold together: Calls in service (at
         * least 1, default 256) and kept data buffers (at least 0, default 64).
         */
        public Builder serverLimits(int callsInService, int keptDataBuffers) {
            if (callsInService < 1 || keptDataBuffers < 0) {
                throw new IllegalArgumentException("server limits: calls in service >= 1, kept buffers >= 0: "
                        + callsInService + ", " + keptDataBuffers);
            }
            this.serverCallsInService = callsInService;
            this.serverKeptDataBuffers = keptDataBuffers;
            return this;
        }

        /** At least 1; see {@link RpcRdmaSettings#serverCallsInServicePerClient()}. */
        public Builder serverCallsInServicePerClient(int calls) {
            if (calls < 1) {
                throw new IllegalArgumentException("calls in service per client >= 1: " + calls);
            }
            this.serverCallsInServicePerClient = calls;
            return this;
        }

        /** At least 1; see {@link RpcRdmaSettings#serverReadChunkOctets()}. */
        public Builder serverReadChunkOctets(long octets) {
            if (octets < 1) {
                throw new IllegalArgumentException("server Read chunk octets >= 1: " + octets);
            }
            this.serverReadChunkOctets = octets;
            return this;
        }

        /**
         * 0 to 64 buffers of up to 1 MiB a connection keeps for RDMA data (default 8); what a
         * connection holds after its busiest moment, bounded whatever its peer asks.
         */
        public Builder keptDataBuffers(int buffers) {
            if (buffers < 0 || buffers > 64) {
                throw new IllegalArgumentException("kept data buffers 0..64: " + buffers);
            }
            this.keptDataBuffers = buffers;
            return this;
        }

        /** 1 to 65535. */
        public Builder credits(int credits) {
            if (credits < 1 || credits > 0xFFFF) {
                throw new IllegalArgumentException("credits must be 1..65535 (a grant of 0 is forbidden): " + credits);
            }
            this.credits = credits;
            return this;
        }

        /** Multiple of 1024 from 1024 to 262144 (RFC 8797 §4.2). */
        public Builder inlineSendSize(int octets) {
            this.inlineSendSize = checkedInlineSize(octets);
            return this;
        }

        /** Multiple of 1024 from 1024 to 262144 (RFC 8797 §4.2). */
        public Builder inlineReceiveSize(int octets) {
            this.inlineReceiveSize = checkedInlineSize(octets);
            return this;
        }

        /** Both sizes at once. */
        public Builder inlineSize(int octets) {
            return inlineSendSize(octets).inlineReceiveSize(octets);
        }

        public Builder remoteInvalidation(boolean remoteInvalidation) {
            this.remoteInvalidation = remoteInvalidation;
            return this;
        }

        public Builder announcePrivateData(boolean announce) {
            this.announcePrivateData = announce;
            return this;
        }

        public Builder maxSegmentSize(int octets) {
            if (octets < 4) {
                throw new IllegalArgumentException("segments of at least 4 octets: " + octets);
            }
            this.maxSegmentSize = octets;
            return this;
        }

        public Builder maxChunkSize(long octets) {
            if (octets < 0 || octets > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("chunk size 0..2^31-1: " + octets);
            }
            this.maxChunkSize = octets;
            return this;
        }

        public Builder maxChunkSegments(int segments) {
            this.maxChunkSegments = positive(segments);
            return this;
        }

        public Builder maxReadSegments(int segments) {
            this.maxReadSegments = positive(segments);
            return this;
        }

        public Builder maxWriteChunks(int chunks) {
            this.maxWriteChunks = positive(chunks);
            return this;
        }

        public Builder binding(UpperLayerBinding binding) {
            this.binding = Objects.requireNonNull(binding);
            return this;
        }

        public Builder defaultMaxReplySize(int octets) {
            this.defaultMaxReplySize = positive(octets);
            return this;
        }

        /** 0 turns the backward direction off. */
        public Builder backchannelCredits(int credits) {
            if (credits < 0 || credits > 0xFFFF) {
                throw new IllegalArgumentException("backchannel credits 0..65535: " + credits);
            }
            this.backchannelCredits = credits;
            return this;
        }

        public Builder responderReadChunks(boolean enabled) {
            this.responderReadChunks = enabled;
            return this;
        }

        public Builder responderReadChunkTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive: " + timeout);
            }
            this.responderReadChunkTimeout = timeout;
            return this;
        }

        public Builder reconnect(boolean reconnect) {
            this.reconnect = reconnect;
            return this;
        }

        /**
         * Delays between connection attempts: {@code first} (positive) doubling up to {@code max}
         * (at least {@code first}); defaults {@link RpcRdmaSettings#DEFAULT_RECONNECT_DELAY} and
         * {@link RpcRdmaSettings#DEFAULT_MAX_RECONNECT_DELAY}.
         */
        public Builder reconnectDelay(Duration first, Duration max) {
            if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
                throw new IllegalArgumentException("reconnect delays: first positive, max at least first: " + first
                        + ", " + max);
            }
            this.reconnectDelay = first;
            this.maxReconnectDelay = max;
            return this;
        }

        /** 0 or more (default {@value RpcRdmaSettings#DEFAULT_MAX_RETRANSMISSIONS}). */
        public Builder maxRetransmissions(int times) {
            if (times < 0) {
                throw new IllegalArgumentException("retransmissions must be 0 or more: " + times);
            }
            this.maxRetransmissions = times;
            return this;
        }

        /** Default 6 minutes ({@link RpcRdmaSettings#DEFAULT_IDLE_TIMEOUT}); {@link Duration#ZERO} turns it off. */
        public Builder idleTimeout(Duration timeout) {
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("idle timeout must not be negative: " + timeout);
            }
            this.idleTimeout = timeout;
            return this;
        }

        /** Default 30 s ({@link RpcRdmaSettings#DEFAULT_RDMA_READ_TIMEOUT}); must be positive. */
        public Builder rdmaReadTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("RDMA Read timeout must be positive: " + timeout);
            }
            this.rdmaReadTimeout = timeout;
            return this;
        }

        /** Default 30 s ({@link RpcRdmaSettings#DEFAULT_MAX_REPLY_SEND_TIME}); {@link Duration#ZERO} turns it off. */
        public Builder maxReplySendTime(Duration time) {
            if (time.isNegative()) {
                throw new IllegalArgumentException("max reply send time must not be negative: " + time);
            }
            this.maxReplySendTime = time;
            return this;
        }

        public Builder mpa(MpaSettings mpa) {
            this.mpa = Objects.requireNonNull(mpa);
            return this;
        }

        public RpcRdmaSettings build() {
            return new RpcRdmaSettings(this);
        }

        /** Never below 1024: every receiver takes inline messages of that size (RPC-R-013). */
        private static int checkedInlineSize(int octets) {
            if (octets < 1024 || octets > 262144 || octets % 1024 != 0) {
                throw new IllegalArgumentException("inline sizes are multiples of 1024 from 1024 to 262144: " + octets);
            }
            return octets;
        }

        private static int positive(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("must be positive: " + n);
            }
            return n;
        }
    }
}
