package org.iwarp4j.rpcrdma.internal.wire;

/**
 * A read segment, {@code xdr_read_chunk} (RFC 8166 §4.1.2): a plain segment and the Position in
 * the unreduced Payload stream where its data belongs (§3.4.5). Segments with the same Position
 * form one Read chunk; Position 0 marks the Position-Zero Read chunk of a Long Call (§3.5.3).
 *
 * @param position an unsigned 32-bit XDR offset; a valid one is a multiple of 4
 */
public record ReadSegment(long position, RdmaSegment target) {

    private static final long MAX_POSITION = 0xFFFF_FFFFL;

    public ReadSegment {
        if (position < 0 || position > MAX_POSITION) {
            throw new IllegalArgumentException("position is 32 bits unsigned: " + position);
        }
        java.util.Objects.requireNonNull(target);
    }

    @Override
    public String toString() {
        return "P" + position + ' ' + target;
    }
}
