package org.iwarp4j.benchmarks;

import static org.iwarp4j.mpa.internal.MarkerSpacing.isMarkerOffset;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markerAtOrAfter;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markersBeforeCrc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaFrameEncoder;

/**
 * NOT PRODUCTION CODE: a sketch of an alternative FPDU encoder, only to put numbers on a
 * suggestion for {@link MpaFrameEncoder}. It writes the whole FPDU — optional leading marker,
 * ULPDU_Length, the ULPDU cut by markers, PAD, a marker after PAD, CRC — into one contiguous
 * direct buffer (one pooled allocation, one memcpy of the ULPDU), then runs CRC32C once over it.
 * The benchmarks check that its output is octet for octet the production encoder's.
 */
final class ProtoContiguousEncoder extends ChannelOutboundHandlerAdapter {

    private final boolean markers;
    private final boolean crcEnabled;
    private final CRC32C crc = new CRC32C();
    private long streamOffset;

    ProtoContiguousEncoder(boolean markers, boolean crc) {
        this.markers = markers;
        this.crcEnabled = crc;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ByteBuf ulpdu = (ByteBuf) msg;
        ByteBuf fpdu;
        try {
            fpdu = encode(ctx.alloc(), ulpdu);
        } finally {
            ulpdu.release();
        }
        ctx.write(fpdu, promise);
    }

    /** The FPDU of {@code ulpdu} in one new buffer; does not release {@code ulpdu}. */
    ByteBuf encode(ByteBufAllocator alloc, ByteBuf ulpdu) {
        int length = ulpdu.readableBytes();
        int pad = MpaFrameEncoder.padLength(length);
        long pos = streamOffset;
        int lead = markers && isMarkerOffset(pos) ? MpaConstants.MARKER_LENGTH : 0;
        long fpduStart = pos + lead;
        int preCrc = 2 + length + pad;
        int inner = markers ? markersBeforeCrc(fpduStart, preCrc) : 0;
        int wireLength = lead + preCrc + MpaConstants.MARKER_LENGTH * inner + MpaConstants.CRC_LENGTH;
        ByteBuf out = alloc.directBuffer(wireLength, wireLength);
        try {
            if (lead != 0) {
                out.writeInt(0);
            }
            out.writeShort(length);
            pos = fpduStart + 2;
            int index = ulpdu.readerIndex();
            int remaining = length;
            if (!markers) {
                ulpdu.getBytes(index, out, out.writerIndex(), remaining);
                out.writerIndex(out.writerIndex() + remaining);
                pos += remaining;
            } else {
                while (remaining > 0) {
                    long next = markerAtOrAfter(pos);
                    if (next == pos) {
                        out.writeShort(0).writeShort((int) (pos - fpduStart));
                        pos += MpaConstants.MARKER_LENGTH;
                        continue;
                    }
                    int chunk = (int) Math.min(remaining, next - pos);
                    ulpdu.getBytes(index, out, out.writerIndex(), chunk);
                    out.writerIndex(out.writerIndex() + chunk);
                    index += chunk;
                    pos += chunk;
                    remaining -= chunk;
                }
            }
            out.writeZero(pad);
            pos += pad;
            if (markers && isMarkerOffset(pos)) {
                out.writeShort(0).writeShort((int) (pos - fpduStart));
                pos += MpaConstants.MARKER_LENGTH;
            }
            int crcValue = 0;
            if (crcEnabled) {
                crc.reset();
                crc.update(out.internalNioBuffer(0, out.writerIndex()));
                crcValue = (int) crc.getValue();
            }
            out.writeIntLE(crcValue);
            streamOffset = pos + MpaConstants.CRC_LENGTH;
            return out;
        } catch (Throwable t) {
            out.release();
            throw t;
        }
    }
}
