package org.iwarp4j.mpa.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * How the FPDU decoder joins the partial FPDU left over from one read with the next read. Netty's
 * default merges by copying, and since the ULPDUs handed upwards are slices of the receive buffer,
 * it must copy the leftover and the new read into a new buffer each time: with FPDUs near 64 KiB
 * almost every received octet was copied once more before its CRC check and its placement, and
 * growing the old buffer in place made the allocator take (and zero) fresh chunks. Here the two
 * are joined as a composite, without copying; the decoder reads each FPDU that lies within one
 * read from that read directly, so only the FPDU cut by the join is read through the composite.
 * Joins of at most {@value #COPY_LIMIT} octets in all (small messages) are still copied.
 */
public final class FpduCumulator implements ByteToMessageDecoder.Cumulator {

    /** Joins of at most this many octets in all are copied into one buffer. */
    public static final int COPY_LIMIT = 4096;

    public static final FpduCumulator INSTANCE = new FpduCumulator();

    private FpduCumulator() {
    }

    @Override
    public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation.readableBytes() + (long) in.readableBytes() <= COPY_LIMIT) {
            return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        return ByteToMessageDecoder.COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
    }
}
