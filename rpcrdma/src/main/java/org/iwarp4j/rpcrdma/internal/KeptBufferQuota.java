package org.iwarp4j.rpcrdma.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many kept data buffers ({@link ReadSinks}) all connections of one server may hold together.
 * Each connection keeps at most its own number; without a shared bound a server's connections
 * would keep connections × that many 1 MiB buffers of direct memory for their whole lives. A
 * connection refused one allocates for the Call alone, as when its own are busy. Thread-safe.
 */
public final class KeptBufferQuota {

    private final int max;
    private final AtomicInteger held = new AtomicInteger();

    public KeptBufferQuota(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("kept buffer quota < 0: " + max);
        }
        this.max = max;
    }

    /** No bound beyond each connection's own. */
    public static KeptBufferQuota unbounded() {
        return new KeptBufferQuota(Integer.MAX_VALUE);
    }

    /** One more buffer kept, if the quota allows. */
    boolean tryTake() {
        while (true) {
            int now = held.get();
            if (now >= max) {
                return false;
            }
            if (held.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    /** {@code buffers} kept buffers released. */
    void give(int buffers) {
        held.addAndGet(-buffers);
    }

    /** Buffers kept now under this quota. */
    public int held() {
        return held.get();
    }
}
