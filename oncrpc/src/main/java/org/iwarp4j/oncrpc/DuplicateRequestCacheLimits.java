package org.iwarp4j.oncrpc;

import java.time.Duration;
import java.util.Objects;

/**
 * The bounds of an {@link RpcDispatcher}'s duplicate request cache: the replies of recent calls to
 * procedures registered as non-idempotent ({@link RpcProgram.Builder#nonIdempotentProcedure}),
 * kept so that a retransmitted call (same client host, xid, program, version, procedure and
 * arguments) gets the first transmission's reply instead of being executed again (RFC 5531 §9:
 * the xid lets a server detect retransmissions; knfsd keeps such a cache for NFSv2 and v3).
 *
 * @param entries     calls remembered at most, for the whole server; the oldest are forgotten first; 0 turns the cache off
 * @param replyOctets the longest reply kept (a longer one is not: its retransmission is dropped
 *                    while the call runs, executed again after)
 * @param lifetime    how long a call is remembered after it arrived
 */
public record DuplicateRequestCacheLimits(int entries, int replyOctets, Duration lifetime) {

    /**
     * 8192 calls, replies up to 1 KiB (an NFSv3 WRITE, CREATE or RENAME reply is a few hundred
     * octets), two minutes (knfsd's lifetime): at most about 10 MiB per server.
     */
    public static final DuplicateRequestCacheLimits DEFAULT =
            new DuplicateRequestCacheLimits(8192, 1024, Duration.ofMinutes(2));

    /** No cache: every call is executed, retransmissions too. */
    public static final DuplicateRequestCacheLimits OFF = new DuplicateRequestCacheLimits(0, 1, Duration.ofSeconds(1));

    public DuplicateRequestCacheLimits {
        Objects.requireNonNull(lifetime, "lifetime");
        if (entries < 0 || replyOctets < 1 || lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("entries must be 0 or more, reply octets and lifetime positive: "
                    + entries + ", " + replyOctets + ", " + lifetime);
        }
    }
}
