package org.iwarp4j.rpcrdma.internal.wire;

/**
 * A plain segment, {@code xdr_rdma_segment} (RFC 8166 §4.1.2): registered memory of the sender
 * named by a handle (an iWARP STag), a length and an offset (an iWARP Tagged Offset). The handle
 * is an {@code int} and the offset a {@code long} because the RDMA provider never names memory
 * with more than 32 bits nor offsets with more than 64 (RPC-R-001): iWARP's STag and Tagged Offset
 * are exactly that wide, so every segment maps one to one onto the wire and onto RDMAP.
 *
 * @param handle the STag, 32 opaque bits
 * @param length octets, an unsigned 32-bit value (0 to 2^32-1)
 * @param offset the tagged offset, 64 opaque bits
 */
public record RdmaSegment(int handle, long length, long offset) {

    private static final long MAX_LENGTH = 0xFFFF_FFFFL;

    public RdmaSegment {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("segment length is 32 bits unsigned: " + length);
        }
    }

    /** The same segment with {@code newLength} octets: how a Responder reports what it wrote (§3.4.6). */
    public RdmaSegment withLength(long newLength) {
        return new RdmaSegment(handle, newLength, offset);
    }

    @Override
    public String toString() {
        return String.format("%08x:%d@%016x", handle, length, offset);
    }
}
