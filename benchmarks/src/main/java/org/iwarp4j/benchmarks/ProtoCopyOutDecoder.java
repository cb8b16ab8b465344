package org.iwarp4j.benchmarks;

import static org.iwarp4j.mpa.MpaConstants.CRC_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.MARKER_INTERVAL;
import static org.iwarp4j.mpa.MpaConstants.MARKER_LENGTH;
import static org.iwarp4j.mpa.internal.MarkerSpacing.isMarkerOffset;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markerAtOrAfter;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markersBeforeCrc;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaFrameEncoder;

/**
 * NOT PRODUCTION CODE: a sketch of an alternative for {@link MpaFrameDecoder}'s marker path, only
 * to put numbers on a suggestion. Same checks (length, CRC over the wire octets, every marker's
 * FPDUPTR), but when markers cut the ULPDU it is copied out into one contiguous pooled buffer
 * (one allocation, ~127 small memcpys for 64768 octets) instead of a composite of one retained
 * slice per 508 octets. Without markers it hands out a retained slice, as production does.
 * Errors throw: error reporting is not what is measured.
 */
final class ProtoCopyOutDecoder extends ByteToMessageDecoder {

    private final boolean markers;
    private final boolean crcEnabled;
    private final int maxUlpdu;
    private final CRC32C crc = new CRC32C();
    private long streamOffset;

    ProtoCopyOutDecoder(boolean markers, boolean crc, int maxUlpdu) {
        this.markers = markers;
        this.crcEnabled = crc;
        this.maxUlpdu = maxUlpdu;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        int available = in.readableBytes();
        int lead = markers && isMarkerOffset(streamOffset) ? MARKER_LENGTH : 0;
        if (available < lead + 2) {
            return;
        }
        int length = in.getUnsignedShort(start + lead);
        if (length > maxUlpdu) {
            throw new IllegalStateException("ULPDU_Length " + length);
        }
        int preCrc = 2 + length + MpaFrameEncoder.padLength(length);
        long fpduStart = streamOffset + lead;
        int innerMarkers = markers ? markersBeforeCrc(fpduStart, preCrc) : 0;
        int wireLength = lead + preCrc + MARKER_LENGTH * innerMarkers + CRC_LENGTH;
        if (available < wireLength) {
            return;
        }
        if (crcEnabled) {
            crc.reset();
            crc.update(in.internalNioBuffer(start, wireLength - CRC_LENGTH));
            if ((int) crc.getValue() != in.getIntLE(start + wireLength - CRC_LENGTH)) {
                throw new IllegalStateException("CRC");
            }
        }
        if (markers) {
            if (lead != 0 && (in.getUnsignedShort(start + 2) & ~3) != 0) {
                throw new IllegalStateException("marker");
            }
            long marker = markerAtOrAfter(fpduStart + 1);
            for (int i = 0; i < innerMarkers; i++, marker += MARKER_INTERVAL) {
                int index = start + (int) (marker - streamOffset);
                if ((in.getUnsignedShort(index + 2) & ~3) != marker - fpduStart) {
                    throw new IllegalStateException("marker");
                }
            }
        }
        ByteBuf ulpdu = innerMarkers == 0
                ? in.retainedSlice(start + lead + 2, length)
                : copyOut(ctx, in, start, fpduStart, length);
        in.skipBytes(wireLength);
        streamOffset += wireLength;
        out.add(ulpdu);
    }

    private ByteBuf copyOut(ChannelHandlerContext ctx, ByteBuf in, int start, long fpduStart, int length) {
        ByteBuf ulpdu = ctx.alloc().directBuffer(length, length);
        long pos = fpduStart + 2;
        int remaining = length;
        int written = 0;
        while (remaining > 0) {
            long next = markerAtOrAfter(pos);
            if (next == pos) {
                pos += MARKER_LENGTH;
                continue;
            }
            int chunk = (int) Math.min(remaining, next - pos);
            in.getBytes(start + (int) (pos - streamOffset), ulpdu, written, chunk);
            written += chunk;
            pos += chunk;
            remaining -= chunk;
        }
        return ulpdu.writerIndex(length);
    }
}
