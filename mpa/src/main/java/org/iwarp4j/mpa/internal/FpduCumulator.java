package org.iwarp4j.mpa.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * How the FPDU decoder joins the partial FPDU left over from one read with the next read. Netty's
 * default merges by copying, and since the ULPDUs handed upwards are slices of the receive buffer,
 * it must copy the leftover and the new read into a new buffer each time: with FPDUs near 64 KiB
 * almost every received octet was copied once more before its CRC check and its placement. Here
 * a leftover of more than {@value #COPY_LIMIT} octets (a large FPDU in progress) is joined to the
 * read as a composite, without copying; the decoder then reads each FPDU that lies within one
 * read from that read directly. A small leftover (small FPDUs, or the head of a large one) is
 * still joined by copying, which keeps many small FPDUs in one plain buffer: measured cheaper
 * than a composite for them ({@code ReceivePathBenchmark}).
 */
public final class FpduCumulator implements ByteToMessageDecoder.Cumulator {

    /** A leftover of at most this many octets is joined by copying. */
    public static final int COPY_LIMIT = 4096;

    public static final FpduCumulator INSTANCE = new FpduCumulator();

    private FpduCumulator() {
    }

    @Override
    public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation.readableBytes() <= COPY_LIMIT) {
            return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        return ByteToMessageDecoder.COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
    }
}
