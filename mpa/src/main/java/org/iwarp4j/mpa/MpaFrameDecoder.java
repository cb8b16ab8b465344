package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.CRC_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.MARKER_INTERVAL;
import static org.iwarp4j.mpa.MpaConstants.MARKER_LENGTH;
import static org.iwarp4j.mpa.internal.MarkerSpacing.isMarkerOffset;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markerAtOrAfter;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markersBeforeCrc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.internal.ByteBufCrc32c;
import org.iwarp4j.mpa.internal.FpduCumulator;
import org.iwarp4j.mpa.internal.MpaMeters;

/**
 * Turns the inbound TCP byte stream of Full Operation into ULPDUs (RFC 5044 §4, §5.2, §6): finds
 * each FPDU by its ULPDU_Length whatever the TCP segmentation (MPA-R-037), removes markers at
 * their fixed positions (MPA-R-022, MPA-R-038), checks the CRC when in use (MPA-R-030) and every
 * marker's FPDUPTR, and passes on the ULPDU only when the whole FPDU is present and valid
 * (MPA-R-039, MPA-R-040).
 *
 * <p>Each ULPDU goes to the next handler as a {@link ByteBuf} that the next handler must release:
 * a slice of the receive buffer (which may be a composite of several reads, see {@link
 * FpduCumulator}), or, when markers cut the ULPDU, a copy without them. Otherwise ULPDU octets
 * are copied only to join small reads.
 *
 * <p>Errors (RFC 5044 §8) are fired as {@link MpaException} through {@code exceptionCaught}:
 * {@link MpaError#CRC_ERROR}, {@link MpaError#MARKER_ERROR} (also used for a ULPDU_Length above
 * {@link MpaSettings#maxReceiveUlpdu()}, since the length cannot start a valid FPDU), and
 * {@link MpaError#CONNECTION_LOST} when the connection ends inside an FPDU. After an error no
 * further ULPDU is delivered (MPA-R-074) and the connection is not closed here (MPA-R-075): the
 * ULP sends its Terminate and closes. Memory held between reads is bounded by one incomplete FPDU
 * (at most 65535 octets of ULPDU plus framing; every complete FPDU is taken out at once), kept in
 * the buffers of the reads that brought it: a join of more than 4 KiB keeps each read's buffer,
 * sized by Netty to what that read returned, instead of copying.
 */
public final class MpaFrameDecoder extends ByteToMessageDecoder {

    private final boolean markers;
    private final boolean crcEnabled;
    private final int maxUlpdu;
    private final MpaMeters meters;
    private final CRC32C crc = new CRC32C();
    private Runnable firstFpduListener;
    private long streamOffset;
    private boolean failed;

    /**
     * @param markers the peer puts markers in its FPDUs (this end's startup frame had M=1)
     * @param crc check CRCs (either startup frame had C=1)
     * @param maxUlpdu largest acceptable ULPDU_Length
     */
    public MpaFrameDecoder(boolean markers, boolean crc, int maxUlpdu) {
        this(markers, crc, maxUlpdu, MpaMeters.of(null), null);
    }

    MpaFrameDecoder(boolean markers, boolean crc, int maxUlpdu, MpaMeters meters, Runnable firstFpduListener) {
        this.markers = markers;
        this.crcEnabled = crc;
        this.maxUlpdu = maxUlpdu;
        this.meters = meters;
        this.firstFpduListener = firstFpduListener;
        setCumulator(FpduCumulator.INSTANCE);
    }

    /** {@code true} once an error was reported; nothing is delivered afterwards. */
    public boolean hasFailed() {
        return failed;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int start = in.readerIndex();
        int available = in.readableBytes();
        int lead = markers && isMarkerOffset(streamOffset) ? MARKER_LENGTH : 0;
        if (available < lead + 2) {
            return;
        }
        int length = in.getUnsignedShort(start + lead);
        if (length > maxUlpdu) {
            meters.lengthErrors.increment();
            fail(ctx, in, MpaError.MARKER_ERROR, "ULPDU_Length " + length + " is over the maximum " + maxUlpdu);
            return;
        }
        int preCrc = 2 + length + MpaFrameEncoder.padLength(length);
        long fpduStart = streamOffset + lead;
        int innerMarkers = markers ? markersBeforeCrc(fpduStart, preCrc) : 0;
        int wireLength = lead + preCrc + MARKER_LENGTH * innerMarkers + CRC_LENGTH;
        if (available < wireLength) {
            return;
        }
        // The FPDU's octets: in the read that holds all of them when the cumulation is a composite
        // of reads, so that CRC, markers and ULPDU are read without the composite's indirection.
        ByteBuf fpdu = in;
        int base = start;
        if (in instanceof CompositeByteBuf) {
            CompositeByteBuf composite = (CompositeByteBuf) in;
            int component = composite.toComponentIndex(start);
            int offset = start - composite.toByteIndex(component);
            ByteBuf read = composite.internalComponent(component);
            if (offset + wireLength <= read.readableBytes()) {
                fpdu = read;
                base = read.readerIndex() + offset;
            }
        }
        if (crcEnabled) {
            crc.reset();
            ByteBufCrc32c.update(crc, fpdu, base, wireLength - CRC_LENGTH);
            int received = fpdu.getIntLE(base + wireLength - CRC_LENGTH);
            if ((int) crc.getValue() != received) {
                meters.crcErrors.increment();
                fail(ctx, in, MpaError.CRC_ERROR, String.format(
                        "CRC mismatch in the FPDU at stream offset %d: received %08x, computed %08x",
                        fpduStart, received, (int) crc.getValue()));
                return;
            }
        }
        if (markers && !markersPointAt(fpdu, base, fpduStart, lead, innerMarkers)) {
            meters.markerErrors.increment();
            fail(ctx, in, MpaError.MARKER_ERROR,
                    "a marker's FPDUPTR disagrees with the FPDU starting at stream offset " + fpduStart);
            return;
        }
        ByteBuf ulpdu = innerMarkers == 0
                ? fpdu.retainedSlice(base + lead + 2, length)
                : ulpduWithoutMarkers(ctx, fpdu, base, fpduStart, length);
        in.skipBytes(wireLength);
        streamOffset += wireLength;
        meters.fpdusReceived.increment();
        meters.bytesReceived.increment(wireLength);
        out.add(ulpdu);
        if (firstFpduListener != null) {
            Runnable listener = firstFpduListener;
            firstFpduListener = null;
            listener.run();
        }
    }

    /**
     * Every marker of this FPDU: a leading one has FPDUPTR 0, the others the distance back to the
     * ULPDU_Length field; the two low bits are ignored (MPA-R-014, MPA-R-017, MPA-R-018).
     */
    private boolean markersPointAt(ByteBuf in, int start, long fpduStart, int lead, int innerMarkers) {
        if (lead != 0 && (in.getUnsignedShort(start + 2) & ~3) != 0) {
            return false;
        }
        long marker = markerAtOrAfter(fpduStart + 1);
        for (int i = 0; i < innerMarkers; i++, marker += MARKER_INTERVAL) {
            int index = start + (int) (marker - streamOffset);
            if ((in.getUnsignedShort(index + 2) & ~3) != marker - fpduStart) {
                return false;
            }
        }
        return true;
    }

    /**
     * The ULPDU of an FPDU that markers cut, copied out in one contiguous buffer: one allocation
     * and a copy per 508 octets costs less than a composite of a retained slice per piece.
     */
    private ByteBuf ulpduWithoutMarkers(ChannelHandlerContext ctx, ByteBuf in, int start, long fpduStart,
                                        int length) {
        ByteBuf ulpdu = ctx.alloc().directBuffer(length, length);
        try {
            long pos = fpduStart + 2;
            int remaining = length;
            while (remaining > 0) {
                long next = markerAtOrAfter(pos);
                if (next == pos) {
                    pos += MARKER_LENGTH;
                    continue;
                }
                int chunk = (int) Math.min(remaining, next - pos);
                in.getBytes(start + (int) (pos - streamOffset), ulpdu, ulpdu.writerIndex(), chunk);
                ulpdu.writerIndex(ulpdu.writerIndex() + chunk);
                pos += chunk;
                remaining -= chunk;
            }
            return ulpdu;
        } catch (Throwable t) {
            ulpdu.release();
            throw t;
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        // callDecode has already taken every whole FPDU; what is left is at most one partial FPDU.
        if (in.isReadable()) {
            decode(ctx, in, out);
        }
        if (!failed && in.isReadable()) {
            fail(ctx, in, MpaError.CONNECTION_LOST,
                    "the connection ended inside an FPDU (" + in.readableBytes() + " octets pending)");
        }
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, MpaError error, String message) {
        failed = true;
        in.skipBytes(in.readableBytes());
        ctx.fireExceptionCaught(new MpaException(error, message));
    }
}
