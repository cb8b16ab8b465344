package org.iwarp4j.ddp;

import java.security.SecureRandom;
import java.util.Objects;

/**
 * Unpredictable integers for STag indexes and keys (RFC 5040 §8.1.1 #8, RFC 5041 §8.3), drawn from a
 * {@link SecureRandom} a block of octets at a time and handed out in order, each octet once: one
 * {@code nextBytes} call per block instead of one per draw (each costs a lock and, with the default
 * provider, a read of the OS source). The octets are as unpredictable as the source's; keeping
 * them in memory until used reveals nothing a peer can reach.
 *
 * <p>Not thread-safe: {@link StagTable} draws under its own lock.
 */
final class RandomBlock {

    /** Octets fetched at a time unless told otherwise. */
    static final int DEFAULT_SIZE = 4096;

    private final SecureRandom source;
    private final byte[] block;
    /** Index of the next unused octet; {@code block.length} when the block is used up. */
    private int next;

    RandomBlock(SecureRandom source) {
        this(source, DEFAULT_SIZE);
    }

    /** Draws from {@code source}, {@code size} octets (at least 4) at a time; nothing is fetched yet. */
    RandomBlock(SecureRandom source, int size) {
        if (size < 4) {
            throw new IllegalArgumentException("block size must be at least 4: " + size);
        }
        this.source = Objects.requireNonNull(source, "source");
        this.block = new byte[size];
        this.next = size;
    }

    /**
     * A uniformly distributed int in {@code [0, bound)}, {@code bound} positive. Takes the fewest
     * octets that can cover the bound (1 for a bound up to 256, 2 up to 2^16, 3 up to 2^24, else 4
     * giving 31 bits) and rejects a draw in the incomplete last run of {@code bound} values, so no
     * result is likelier than another.
     */
    int nextInt(int bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        int octets = bound <= 1 << 8 ? 1 : bound <= 1 << 16 ? 2 : bound <= 1 << 24 ? 3 : 4;
        long range = octets == 4 ? 1L << 31 : 1L << (8 * octets);
        long limit = range - range % bound; // draws at or above it would favour the low results
        while (true) {
            long r = draw(octets) & (range - 1);
            if (r < limit) {
                return (int) (r % bound);
            }
        }
    }

    /** {@code octets} octets as an unsigned big-endian number, refilling the block when it runs out. */
    private long draw(int octets) {
        long r = 0;
        for (int i = 0; i < octets; i++) {
            if (next == block.length) {
                source.nextBytes(block);
                next = 0;
            }
            r = r << 8 | (block[next++] & 0xFF);
        }
        return r;
    }
}
