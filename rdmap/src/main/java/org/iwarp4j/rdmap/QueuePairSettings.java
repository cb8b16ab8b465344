package org.iwarp4j.rdmap;

import java.time.Duration;
import java.util.Objects;
import org.iwarp4j.mpa.MpaSettings;

/**
 * How to build a queue pair (like ibv_qp_init_attr plus rdma_conn_param): its protection domain,
 * completion queues, queue depths, RDMA Read limits and the MPA options of its connection.
 * Immutable; built with {@link #builder(ProtectionDomain, CompletionQueue)}.
 */
public final class QueuePairSettings {

    /** Default of {@link Builder#terminateCloseTimeout(Duration)}, in seconds. */
    public static final int DEFAULT_TERMINATE_CLOSE_SECONDS = 2;
    /**
     * Default of {@link Builder#directPlacementThreshold(int)}: 16 KiB. Measured with JMH's
     * {@code DirectPlacementBenchmark} (docs/performance-log.md, fourth session): reading into place
     * does about a fifth more per CPU-second than copy-then-place for FPDUs of 16 KiB and 64 KiB,
     * and nothing for 4 KiB ones, where the extra read for the FPDU's trailer costs what the copy
     * saves.
     */
    public static final int DEFAULT_DIRECT_PLACEMENT_THRESHOLD = 16 * 1024;
    /** {@link Builder#directPlacementThreshold(int)} value that turns direct placement off. */
    public static final int NO_DIRECT_PLACEMENT = Integer.MAX_VALUE;
    /**
     * System property that replaces {@link #DEFAULT_DIRECT_PLACEMENT_THRESHOLD} as the builder's
     * default (a positive number of octets; {@value Integer#MAX_VALUE} turns direct placement off),
     * so that the threshold can be measured with tools that build their own settings, e.g.
     * {@code IWARP_JAVA_OPTS=-Diwarp4j.directPlacementThreshold=65536 ./iwarp bench write}.
     */
    public static final String DIRECT_PLACEMENT_THRESHOLD_PROPERTY = "iwarp4j.directPlacementThreshold";
    /** Default of {@link Builder#terminateCloseTimeout(Duration)}. */
    public static final Duration DEFAULT_TERMINATE_CLOSE_TIMEOUT = Duration.ofSeconds(DEFAULT_TERMINATE_CLOSE_SECONDS);
    /** Default of {@link Builder#closeLinger(Duration)}: 2 s, as {@link #DEFAULT_TERMINATE_CLOSE_TIMEOUT}. */
    public static final Duration DEFAULT_CLOSE_LINGER = Duration.ofSeconds(2);

    private final ProtectionDomain protectionDomain;
    private final CompletionQueue sendCompletionQueue;
    private final CompletionQueue receiveCompletionQueue;
    private final int sendQueueDepth;
    private final int receiveQueueDepth;
    private final MpaSettings mpa;
    private final Duration wakeUpWriteAfter;
    private final Duration terminateCloseTimeout;
    private final Duration closeLinger;
    private final int directPlacementThreshold;
    private final boolean signalAllSends;

    private QueuePairSettings(Builder b) {
        this.protectionDomain = b.protectionDomain;
        this.sendCompletionQueue = b.sendCompletionQueue;
        this.receiveCompletionQueue = b.receiveCompletionQueue;
        this.sendQueueDepth = b.sendQueueDepth;
        this.receiveQueueDepth = b.receiveQueueDepth;
        this.mpa = b.mpa;
        this.wakeUpWriteAfter = b.wakeUpWriteAfter;
        this.terminateCloseTimeout = b.terminateCloseTimeout;
        this.closeLinger = b.closeLinger;
        this.directPlacementThreshold = b.directPlacementThreshold;
        this.signalAllSends = b.signalAllSends;
    }

    /** Settings with one completion queue for both queues. */
    public static Builder builder(ProtectionDomain protectionDomain, CompletionQueue completionQueue) {
        return new Builder(protectionDomain, completionQueue);
    }

    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    public CompletionQueue sendCompletionQueue() {
        return sendCompletionQueue;
    }

    public CompletionQueue receiveCompletionQueue() {
        return receiveCompletionQueue;
    }

    /** Send work requests that may be outstanding at once. */
    public int sendQueueDepth() {
        return sendQueueDepth;
    }

    /** Receive work requests that may be posted at once. */
    public int receiveQueueDepth() {
        return receiveQueueDepth;
    }

    /**
     * MPA options: revision, CRC, markers, private data, IRD/ORD (RFC 6581), timeouts, and what a
     * particular hardware peer may need (docs/interop.md, "Settings for a particular peer"); the
     * defaults reach Chelsio, Marvell/QLogic and Linux siw as they are and Intel's irdma with
     * {@code peerToPeer(true)}:
     * <ul>
     *   <li>{@link MpaSettings.Builder#peerToPeer(boolean)}: flag A and an RTR; default off.</li>
     *   <li>{@link MpaSettings.Builder#rtrTypes} and {@link MpaSettings.Builder#preferredRtr}: the RTR
     *       types offered (default Write and Read) and which one to send when the Reply names
     *       several (default Write, then Read, then Send).</li>
     *   <li>Maximum FPDU size: by default MULPDU follows the connection's MSS where the transport
     *       reports it (epoll), else {@link MpaSettings#FALLBACK_EMSS} (1448; 1428 over IPv6), so
     *       no FPDU spans two TCP segments; {@link MpaSettings.Builder#emss(int)} lowers it;
     *       {@link MpaSettings.Builder#maxSendUlpdu(int)} is the opt-in for larger FPDUs between
     *       software stacks, never for a hardware peer. The value in use:
     *       {@code QueuePair.negotiated().sendMulpdu()}.</li>
     *   <li>{@link MpaSettings.Builder#relaxedIrdLimit(int)}: raise our IRD as Initiator when the
     *       Responder's ORD exceeds it; default 0, RFC 6581's strict rule.</li>
     * </ul>
     * Default {@code MpaSettings.builder().build()}.
     */
    public MpaSettings mpa() {
        return mpa;
    }

    /**
     * As Initiator: how long the Responder may stay silent after we sent our first FPDU before we
     * send one zero-length RDMA Write (STag 1, TO 0); {@link Duration#ZERO} if never. See
     * {@link Builder#wakeUpWriteAfter(Duration)}.
     */
    public Duration wakeUpWriteAfter() {
        return wakeUpWriteAfter;
    }

    /**
     * The longest the TCP connection stays open after a fatal error while our Terminate is on its
     * way out; see {@link Builder#terminateCloseTimeout(Duration)}.
     */
    public Duration terminateCloseTimeout() {
        return terminateCloseTimeout;
    }

    /**
     * After {@link QueuePair#close()}, the longest the TCP connection stays open while Read
     * Responses to the peer are still on their way out; see {@link Builder#closeLinger(Duration)}.
     */
    public Duration closeLinger() {
        return closeLinger;
    }

    /** See {@link Builder#directPlacementThreshold(int)}. */
    public int directPlacementThreshold() {
        return directPlacementThreshold;
    }

    /**
     * {@code true} (the default): every send work request produces a completion; {@code false}:
     * only the signalled ones do when they succeed. See {@link Builder#signalAllSends(boolean)}.
     */
    public boolean signalAllSends() {
        return signalAllSends;
    }

    /** Builder for {@link QueuePairSettings}. */
    public static final class Builder {
        private final ProtectionDomain protectionDomain;
        private final CompletionQueue sendCompletionQueue;
        private CompletionQueue receiveCompletionQueue;
        private int sendQueueDepth = 128;
        private int receiveQueueDepth = 128;
        private MpaSettings mpa = MpaSettings.builder().build();
        private Duration wakeUpWriteAfter = Duration.ofSeconds(1);
        private Duration terminateCloseTimeout = DEFAULT_TERMINATE_CLOSE_TIMEOUT;
        private Duration closeLinger = DEFAULT_CLOSE_LINGER;
        private int directPlacementThreshold = defaultDirectPlacementThreshold();
        private boolean signalAllSends = true;

        private Builder(ProtectionDomain protectionDomain, CompletionQueue completionQueue) {
            this.protectionDomain = Objects.requireNonNull(protectionDomain);
            this.sendCompletionQueue = Objects.requireNonNull(completionQueue);
            this.receiveCompletionQueue = completionQueue;
        }

        public Builder receiveCompletionQueue(CompletionQueue receiveCompletionQueue) {
            this.receiveCompletionQueue = Objects.requireNonNull(receiveCompletionQueue);
            return this;
        }

        public Builder sendQueueDepth(int depth) {
            this.sendQueueDepth = positive(depth);
            return this;
        }

        public Builder receiveQueueDepth(int depth) {
            this.receiveQueueDepth = positive(depth);
            return this;
        }

        public Builder mpa(MpaSettings mpa) {
            this.mpa = Objects.requireNonNull(mpa);
            return this;
        }

        /**
         * As Initiator, if nothing at all has arrived from the Responder {@code after} our first
         * FPDU of Full Operation was written, send one zero-length RDMA Write (STag 1, TO 0: not 0,
         * which some hardware peers treat specially; see docs/interop.md).
         * Default 1 s; {@link Duration#ZERO} turns it off.
         *
         * <p>Why: Linux siw (seen on 6.1) sends its MPA Reply before it hands the socket to the
         * queue pair ({@code siw_accept}). An FPDU of ours that arrives in between is left unread
         * in siw's socket until more data arrives, so a ULP that sends one request and waits
         * would wait forever. Any later segment makes siw read the socket again, the stranded
         * FPDU first. A zero-length Write is the cheapest such segment any conformant peer
         * accepts: its STag and TO are not checked (RFC 5041 §5.2) and it is not delivered to
         * the ULP (RFC 5040 §5.1); siw ignores it ({@code siw_proc_write}). It is sent at most
         * once per connection, with no work request and no completion.
         */
        public Builder wakeUpWriteAfter(Duration after) {
            if (after.isNegative()) {
                throw new IllegalArgumentException("negative wake-up delay: " + after);
            }
            this.wakeUpWriteAfter = after;
            return this;
        }

        /**
         * After a fatal error (RFC 5040 §7), the longest the TCP connection may stay open while
         * our Terminate waits to be written; then it is closed whether or not the Terminate left.
         * Default {@value QueuePairSettings#DEFAULT_TERMINATE_CLOSE_SECONDS} s; {@link
         * Duration#ZERO} closes right after writing the Terminate, which then leaves only if the
         * socket takes it at once.
         *
         * <p>Why: the Terminate is best effort (RFC 5040 §6.2.1) but the teardown is not: the
         * streams of a failed connection must be torn down (RFC 5040 §7, RDMAP-R-046) whatever
         * the ULP does. A peer that stops reading keeps our Terminate, and the close that follows
         * its write, waiting for ever; this bounds that. When MPA does not let the Terminate be
         * sent at all (a Responder whose Initiator's first FPDU failed, MPA-R-061) there is
         * nothing to wait for and the connection is closed at once.
         */
        public Builder terminateCloseTimeout(Duration timeout) {
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("negative terminate close timeout: " + timeout);
            }
            this.terminateCloseTimeout = timeout;
            return this;
        }

        /**
         * After {@link QueuePair#close()} (an orderly close, RFC 5040 §6.2), once this end's own
         * posted sends have finished, the longest the TCP connection stays open while what is
         * still on its way to the peer is written: the Read Responses answering the peer's RDMA
         * Reads, which no work request of this end waits for. Then it is closed whether or not
         * they left, and the peer's Reads fail. Default 2 s; {@link Duration#ZERO} closes as soon
         * as the sends have finished, cutting off a response under way.
         *
         * <p>Why: RFC 5040 §2 lets every RDMA operation in progress complete in a graceful
         * termination (RDMAP-R-034), the peer's Reads that this end accepted too; but a peer
         * that stops reading would hold the close, and its connection, for as long as it likes
         * (docs/limits.md, "Read Responses to a peer that does not read"). This bounds that, as
         * {@link #terminateCloseTimeout} bounds a Terminate's way out. {@link QueuePair#abort()}
         * closes at once.
         */
        public Builder closeLinger(Duration linger) {
            if (linger.isNegative()) {
                throw new IllegalArgumentException("negative close linger: " + linger);
            }
            this.closeLinger = linger;
            return this;
        }

        /**
         * Direct placement: an RDMA Write, Read Response or Send whose payload still to arrive is at
         * least {@code octets} long is read from the socket straight into its registered memory or
         * posted receive (one copy per octet, by the kernel, as for plain TCP) instead of into a
         * receive buffer that is then copied (two copies). Only for direct memory in one piece,
         * without MPA markers, on every {@link Transport} (NIO, epoll, io_uring); everything else
         * takes the ordinary path (the default can also be set with the system property {@value
         * QueuePairSettings#DIRECT_PLACEMENT_THRESHOLD_PROPERTY}). Checks, completions and
         * Terminates are the same either way: the segment is still checked and delivered only once
         * its FPDU is complete and its CRC good; an FPDU that fails
         * leaves its octets placed but not delivered (RFC 5041 §7.1). Default {@value
         * QueuePairSettings#DEFAULT_DIRECT_PLACEMENT_THRESHOLD}; {@link
         * QueuePairSettings#NO_DIRECT_PLACEMENT} turns it off.
         */
        public Builder directPlacementThreshold(int octets) {
            if (octets < 1) {
                throw new IllegalArgumentException("direct placement threshold must be positive: " + octets);
            }
            this.directPlacementThreshold = octets;
            return this;
        }

        /**
         * Whether every send work request produces a completion ({@code true}, the default) or
         * only those that are {@link SendWorkRequest#signalled() signalled} ({@code false}): the
         * verbs' send-queue signalling type, {@code sq_sig_all} of ibv_qp_init_attr, {@code
         * IB_SIGNAL_ALL_WR} versus {@code IB_SIGNAL_REQ_WR} in the kernel, the RDMAC verbs' choice
         * of "signalled" or "unsignalled" completions for send-queue work requests. RFC 5040 has no
         * such notion: it requires that operations complete at the Local Peer in submission order
         * (§5.5 #15) and leaves how the ULP learns of it to the interface, which is where these
         * semantics come from. With {@code false}:
         * <ul>
         *   <li>A request made with {@link SendWorkRequest#withSignalled withSignalled(false)} that
         *       succeeds produces no completion and no entry in the completion queue.</li>
         *   <li>One that fails produces its error completion anyway (a local protection or length
         *       error, the error of a Read the peer refused), and so does every request flushed
         *       because the queue pair failed or was aborted: as Linux siw does ({@code
         *       siw_rdmap_complete}: "all errors turn the wqe into signalled"; {@code siw_sq_flush}
         *       completes every outstanding request flushed, signalled or not), and as InfiniBand
         *       RNICs do behind {@code ibv_post_send}. An unsignalled Write or Send that
         *       was handed to TCP before the failure had succeeded (RFC 5040 §5.5 #14) and gets no
         *       completion.</li>
         *   <li>The send-queue slots of unsignalled requests that succeeded are given back when
         *       the completion of a later request reaches the completion queue, whatever its
         *       status: completions are in posting order, so that one says the earlier requests
         *       are done too (as the send queue of a hardware RNIC advances on a completion).
         *       A user must therefore signal at least one request in every {@link
         *       #sendQueueDepth(int) send queue depth}, or the queue fills and {@link
         *       QueuePair#postSend} throws, naming the cause. Slots of requests whose
         *       successes come after the last completion stay taken.</li>
         *   <li>RDMA Reads count against ORD until their Read Response is placed, signalled or
         *       not; the Reads waiting for ORD go out as before.</li>
         * </ul>
         * With {@code true} the request's flag is ignored.
         */
        public Builder signalAllSends(boolean signalAllSends) {
            this.signalAllSends = signalAllSends;
            return this;
        }

        public QueuePairSettings build() {
            return new QueuePairSettings(this);
        }

        private static int defaultDirectPlacementThreshold() {
            Integer octets = Integer.getInteger(DIRECT_PLACEMENT_THRESHOLD_PROPERTY);
            return octets != null && octets > 0 ? octets : DEFAULT_DIRECT_PLACEMENT_THRESHOLD;
        }

        private static int positive(int depth) {
            if (depth < 1) {
                throw new IllegalArgumentException("queue depth must be positive: " + depth);
            }
            return depth;
        }
    }
}
