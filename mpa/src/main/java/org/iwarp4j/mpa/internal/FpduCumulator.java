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
 *
 * <p>Only reads that are worth keeping join that way: at least {@value #MIN_KEPT_READ} octets and a
 * quarter of their buffer. Smaller reads (small messages, or a peer that trickles an FPDU in tiny
 * segments) are copied as Netty does, so a partial FPDU never holds more than about four times its
 * size in buffers, in at most 64 pieces; joins of at most {@value #COPY_LIMIT} octets in all are
 * copied too.
 */
public final class FpduCumulator implements ByteToMessageDecoder.Cumulator {

    /** Joins of at most this many octets in all are copied into one buffer. */
    public static final int COPY_LIMIT = 4096;

    /** Reads smaller than this are copied into the cumulation rather than kept. */
    public static final int MIN_KEPT_READ = 1024;

    public static final FpduCumulator INSTANCE = new FpduCumulator();

    private FpduCumulator() {
    }

    @Override
    public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        int read = in.readableBytes();
        if (cumulation.readableBytes() + (long) read <= COPY_LIMIT || read < MIN_KEPT_READ
                || read < in.capacity() / 4) {
            return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        return ByteToMessageDecoder.COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
    }
}
