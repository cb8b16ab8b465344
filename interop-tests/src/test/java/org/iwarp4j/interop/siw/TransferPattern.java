package org.iwarp4j.interop.siw;

import io.netty.buffer.ByteBuf;

/**
 * The octets iwarp_peer moves (siw-tools/iwarp_peer.c): octet {@code i} of a transfer of
 * {@code length} octets is {@code (i % 251) ^ (length & 0xff) ^ (op << 4)}: not periodic in
 * pages or segments, different for each op and size, so misplaced or stale data shows.
 */
final class TransferPattern {

    /** Zero octets the target keeps after a Write's data and checks are still zero. */
    static final int GUARD = 64;

    private TransferPattern() {
    }

    static byte octet(Rendezvous.Op op, int length, long i) {
        return (byte) ((i % 251) ^ (length & 0xff) ^ (op.code << 4));
    }

    static byte[] of(Rendezvous.Op op, int length) {
        byte[] octets = new byte[length];
        for (int i = 0; i < length; i++) {
            octets[i] = octet(op, length, i);
        }
        return octets;
    }

    /**
     * Writes the pattern into {@code buf} at absolute index {@code index} (indexes unchanged). One
     * bulk copy: with the leak detector at PARANOID every single-octet access records a stack trace.
     */
    static void fill(ByteBuf buf, int index, Rendezvous.Op op, int length) {
        buf.setBytes(index, of(op, length));
    }

    /**
     * 0 if {@code buf} holds the pattern at {@code index} (followed by {@code guard} zero octets),
     * else 1 + the offset of the first wrong octet: the RESULT status of the rendezvous.
     */
    static int check(ByteBuf buf, int index, Rendezvous.Op op, int length, int guard) {
        byte[] octets = new byte[length + guard];
        buf.getBytes(index, octets);
        for (int i = 0; i < length; i++) {
            if (octets[i] != octet(op, length, i)) {
                return i + 1;
            }
        }
        for (int i = length; i < length + guard; i++) {
            if (octets[i] != 0) {
                return i + 1;
            }
        }
        return 0;
    }
}
