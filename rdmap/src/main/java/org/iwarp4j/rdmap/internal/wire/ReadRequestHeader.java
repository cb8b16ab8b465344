package org.iwarp4j.rdmap.internal.wire;

import static org.iwarp4j.rdmap.internal.wire.RdmapConstants.READ_REQUEST_HEADER_LENGTH;

import io.netty.buffer.ByteBuf;

/**
 * The RDMA Read Request header (RFC 5040 §4.4 Fig. 6, App. A.2), immutable. It follows the
 * 18-octet untagged DDP header of a Read Request (QN 1) and comes back as the Terminated RDMA
 * Header of a Terminate about that request (§4.8).
 *
 * <pre>
 *  0  Data Sink STag            4 octets  the requester's buffer the Read Response is placed into
 *  4  Data Sink Tagged Offset   8 octets
 * 12  RDMA Read Message Size    4 octets  unsigned, 0 to 2^32-1
 * 16  Data Source STag          4 octets  the responder's buffer to read from
 * 20  Data Source Tagged Offset 8 octets
 * </pre>
 *
 * STags and TOs are opaque 32- and 64-bit values: {@code int} and {@code long} holding the wire bits.
 */
public final class ReadRequestHeader {

    private static final long MAX_SIZE = 0xFFFFFFFFL;

    private final int sinkStag;
    private final long sinkTaggedOffset;
    private final long readMessageSize;
    private final int sourceStag;
    private final long sourceTaggedOffset;

    /**
     * @param readMessageSize octets to read, 0 to 2^32-1
     * @throws IllegalArgumentException if the size does not fit 32 unsigned bits
     */
    public ReadRequestHeader(int sinkStag, long sinkTaggedOffset, long readMessageSize, int sourceStag,
                             long sourceTaggedOffset) {
        if (readMessageSize < 0 || readMessageSize > MAX_SIZE) {
            throw new IllegalArgumentException("RDMA Read Message Size is 32 bits unsigned: " + readMessageSize);
        }
        this.sinkStag = sinkStag;
        this.sinkTaggedOffset = sinkTaggedOffset;
        this.readMessageSize = readMessageSize;
        this.sourceStag = sourceStag;
        this.sourceTaggedOffset = sourceTaggedOffset;
    }

    /**
     * Reads the 28 octets at {@code in}'s reader index and advances it by 28. The buffer is not
     * released (the caller owns it).
     *
     * @throws RdmapFormatException if fewer than 28 octets are readable; nothing is consumed
     */
    public static ReadRequestHeader decode(ByteBuf in) {
        if (in.readableBytes() < READ_REQUEST_HEADER_LENGTH) {
            throw new RdmapFormatException("RDMA Read Request header needs " + READ_REQUEST_HEADER_LENGTH
                    + " octets, " + in.readableBytes() + " readable");
        }
        return new ReadRequestHeader(in.readInt(), in.readLong(), in.readUnsignedInt(), in.readInt(), in.readLong());
    }

    /** Writes the 28 octets at {@code out}'s writer index. {@code out} stays the caller's. */
    public void encode(ByteBuf out) {
        out.ensureWritable(READ_REQUEST_HEADER_LENGTH);
        out.writeInt(sinkStag);
        out.writeLong(sinkTaggedOffset);
        out.writeInt((int) readMessageSize);
        out.writeInt(sourceStag);
        out.writeLong(sourceTaggedOffset);
    }

    /** Data Sink STag: copied into the Read Response without interpretation. */
    public int sinkStag() {
        return sinkStag;
    }

    /** Data Sink Tagged Offset: copied into the Read Response. */
    public long sinkTaggedOffset() {
        return sinkTaggedOffset;
    }

    /** RDMA Read Message Size, 0 to 2^32-1. */
    public long readMessageSize() {
        return readMessageSize;
    }

    /** Data Source STag: the buffer read at the Remote Peer. */
    public int sourceStag() {
        return sourceStag;
    }

    /** Data Source Tagged Offset. */
    public long sourceTaggedOffset() {
        return sourceTaggedOffset;
    }

    /** A zero-size read: its STags and TOs MUST NOT be checked (RFC 5040 §5.2.1, RDMAP-R-015). */
    public boolean isZeroLength() {
        return readMessageSize == 0;
    }

    /**
     * The header as a Terminate echoes it after {@code octetsSent} octets of the response were sent
     * (RFC 5040 §4.8, RDMAP-R-041): STags unchanged, both TOs advanced by {@code octetsSent}
     * (modulo 2^64), size reduced by it.
     *
     * @throws IllegalArgumentException if {@code octetsSent} is negative or more than the size
     */
    public ReadRequestHeader advancedBy(long octetsSent) {
        if (octetsSent < 0 || octetsSent > readMessageSize) {
            throw new IllegalArgumentException("octets sent " + octetsSent + " not in [0, " + readMessageSize + "]");
        }
        return new ReadRequestHeader(sinkStag, sinkTaggedOffset + octetsSent, readMessageSize - octetsSent,
                sourceStag, sourceTaggedOffset + octetsSent);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ReadRequestHeader)) {
            return false;
        }
        ReadRequestHeader that = (ReadRequestHeader) o;
        return sinkStag == that.sinkStag && sinkTaggedOffset == that.sinkTaggedOffset
                && readMessageSize == that.readMessageSize && sourceStag == that.sourceStag
                && sourceTaggedOffset == that.sourceTaggedOffset;
    }

    @Override
    public int hashCode() {
        int h = sinkStag;
        h = 31 * h + Long.hashCode(sinkTaggedOffset);
        h = 31 * h + Long.hashCode(readMessageSize);
        h = 31 * h + sourceStag;
        return 31 * h + Long.hashCode(sourceTaggedOffset);
    }

    @Override
    public String toString() {
        return String.format("ReadRequestHeader{sink 0x%08x @ 0x%016x, size %d, source 0x%08x @ 0x%016x}",
                sinkStag, sinkTaggedOffset, readMessageSize, sourceStag, sourceTaggedOffset);
    }
}
