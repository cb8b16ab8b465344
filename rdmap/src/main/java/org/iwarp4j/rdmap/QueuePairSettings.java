package org.iwarp4j.rdmap;

import java.util.Objects;
import org.iwarp4j.mpa.MpaSettings;

/**
 * How to build a queue pair (like ibv_qp_init_attr plus rdma_conn_param): its protection domain,
 * completion queues, queue depths, RDMA Read limits and the MPA options of its connection.
 * Immutable; built with {@link #builder(ProtectionDomain, CompletionQueue)}.
 */
public final class QueuePairSettings {

    private final ProtectionDomain protectionDomain;
    private final CompletionQueue sendCompletionQueue;
    private final CompletionQueue receiveCompletionQueue;
    private final int sendQueueDepth;
    private final int receiveQueueDepth;
    private final MpaSettings mpa;

    private QueuePairSettings(Builder b) {
        this.protectionDomain = b.protectionDomain;
        this.sendCompletionQueue = b.sendCompletionQueue;
        this.receiveCompletionQueue = b.receiveCompletionQueue;
        this.sendQueueDepth = b.sendQueueDepth;
        this.receiveQueueDepth = b.receiveQueueDepth;
        this.mpa = b.mpa;
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

    /** MPA options: revision, CRC, markers, private data, IRD/ORD (RFC 6581), timeouts. */
    public MpaSettings mpa() {
        return mpa;
    }

    /** Builder for {@link QueuePairSettings}. */
    public static final class Builder {
        private final ProtectionDomain protectionDomain;
        private final CompletionQueue sendCompletionQueue;
        private CompletionQueue receiveCompletionQueue;
        private int sendQueueDepth = 128;
        private int receiveQueueDepth = 128;
        private MpaSettings mpa = MpaSettings.builder().build();

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

        public QueuePairSettings build() {
            return new QueuePairSettings(this);
        }

        private static int positive(int depth) {
            if (depth < 1) {
                throw new IllegalArgumentException("queue depth must be positive: " + depth);
            }
            return depth;
        }
    }
}
