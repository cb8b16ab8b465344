package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.MAX_ULPDU;
import static org.iwarp4j.mpa.internal.MarkerSpacing.isMarkerOffset;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markerAtOrAfter;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markersBeforeCrc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.internal.ByteBufCrc32c;
import org.iwarp4j.mpa.internal.MpaMeters;

/**
 * Frames each outbound ULPDU ({@link ByteBuf}, one DDP segment) as one FPDU (RFC 5044 §4):
 * ULPDU_Length, the ULPDU, PAD, CRC32c (least-significant octet first), with a marker at every
 * 512th octet of this direction's stream when the peer asked for markers (§4.3).
 *
 * <p>A ULPDU of {@value #CONTIGUOUS_LIMIT} octets or more without markers is not copied: the FPDU
 * written downstream is a composite of a small header, the ULPDU and a small trailer, which the
 * transport writes with one gathering write. Smaller ULPDUs, and every ULPDU when markers are in
 * use, are copied into one contiguous buffer with the framing (markers every 512 octets would
 * otherwise cut the FPDU into two pieces per marker): one copy costs less than a composite's
 * bookkeeping there. Either way the CRC is computed in one pass. This handler takes ownership of
 * the ULPDU; the FPDU is released by the transport after it is written.
 *
 * <p>A Responder's encoder starts <em>fenced</em>: it holds every FPDU until the decoder has
 * validated the Initiator's first FPDU (RFC 5044 §7.1.2 #4, MPA-R-061, MPA2-R-011).
 *
 * <p>A ULPDU over 64768 octets fails its write and nothing is sent (RFC 5044 §3, MPA-R-006).
 */
public final class MpaFrameEncoder extends ChannelOutboundHandlerAdapter {

    /** ULPDUs of at least this many octets, without markers, are sent without copying. */
    public static final int CONTIGUOUS_LIMIT = 8192;

    private final boolean markers;
    private final boolean crcEnabled;
    private final MpaMeters meters;
    private final CRC32C crc = new CRC32C();
    private long streamOffset;
    private boolean fenced;
    private ChannelHandlerContext ctx;
    /** ULPDUs and their promises written while fenced; they must still be framed by this encoder. */
    private final ArrayDeque<Object> held = new ArrayDeque<>();

    /**
     * @param markers insert markers (the peer's startup frame had M=1)
     * @param crc compute the CRC; when off, the CRC field is sent as zero (RFC 5044 §4.4 allows any value)
     * @param fenced hold FPDUs until {@link #openFence()}
     */
    public MpaFrameEncoder(boolean markers, boolean crc, boolean fenced) {
        this(markers, crc, fenced, MpaMeters.of(null));
    }

    MpaFrameEncoder(boolean markers, boolean crc, boolean fenced, MpaMeters meters) {
        this.markers = markers;
        this.crcEnabled = crc;
        this.fenced = fenced;
        this.meters = meters;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        ClosedChannelException closed = null;
        while (!held.isEmpty()) {
            ReferenceCountUtil.safeRelease(held.poll());
            ChannelPromise promise = (ChannelPromise) held.poll();
            promise.tryFailure(closed == null ? closed = new ClosedChannelException() : closed);
        }
    }

    /** Lets held FPDUs go: the Responder has validated the Initiator's first FPDU. Event loop only. */
    public void openFence() {
        if (!fenced) {
            return;
        }
        fenced = false;
        if (!held.isEmpty()) {
            while (!held.isEmpty()) {
                write(ctx, held.poll(), (ChannelPromise) held.poll());
            }
            ctx.flush();
        }
    }

    /** Whether FPDUs are still held back. */
    public boolean isFenced() {
        return fenced;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf)) {
            ctx.write(msg, promise);
            return;
        }
        if (fenced) {
            held.add(msg);
            held.add(promise);
            return;
        }
        ByteBuf ulpdu = (ByteBuf) msg;
        if (ulpdu.readableBytes() > MAX_ULPDU) {
            int length = ulpdu.readableBytes();
            ReferenceCountUtil.release(ulpdu);
            promise.setFailure(new IllegalArgumentException(
                    "ULPDU of " + length + " octets is over the 64768 MPA allows (RFC 5044 §3)"));
            return;
        }
        ByteBuf fpdu;
        try {
            fpdu = encode(ctx.alloc(), ulpdu);
        } catch (Throwable t) {
            ReferenceCountUtil.safeRelease(ulpdu);
            promise.setFailure(t);
            return;
        }
        ctx.write(fpdu, promise);
    }

    /** FPDU octets for one ULPDU; takes ownership of {@code ulpdu}. */
    ByteBuf encode(ByteBufAllocator alloc, ByteBuf ulpdu) {
        long start = streamOffset;
        ByteBuf fpdu = markers || ulpdu.readableBytes() < CONTIGUOUS_LIMIT ? encodeContiguous(alloc, ulpdu)
                : encodeWithoutMarkers(alloc, ulpdu);
        meters.fpdusSent.increment();
        meters.bytesSent.increment(streamOffset - start);
        return fpdu;
    }

    private ByteBuf encodeWithoutMarkers(ByteBufAllocator alloc, ByteBuf ulpdu) {
        int length = ulpdu.readableBytes();
        int pad = padLength(length);
        ByteBuf head = alloc.buffer(2).writeShort(length);
        ByteBuf tail = alloc.buffer(pad + MpaConstants.CRC_LENGTH).writeZero(pad);
        int crcValue = 0;
        if (crcEnabled) {
            crc.reset();
            ByteBufCrc32c.update(crc, head);
            ByteBufCrc32c.update(crc, ulpdu);
            ByteBufCrc32c.update(crc, tail);
            crcValue = (int) crc.getValue();
        }
        tail.writeIntLE(crcValue);
        streamOffset += 2 + length + pad + MpaConstants.CRC_LENGTH;
        return alloc.compositeBuffer(3).addComponents(true, head, ulpdu, tail);
    }

    /**
     * The whole FPDU in one new direct buffer: an optional leading marker, ULPDU_Length, the ULPDU
     * (cut by markers), PAD, a marker right after PAD if one falls there, the CRC. Releases the ULPDU.
     */
    private ByteBuf encodeContiguous(ByteBufAllocator alloc, ByteBuf ulpdu) {
        try {
            int length = ulpdu.readableBytes();
            int pad = padLength(length);
            long pos = streamOffset;
            // A marker between FPDUs belongs to the next one: FPDUPTR 0, inside its CRC (§4.4 rule 2).
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
                while (remaining > 0) {
                    long next = markers ? markerAtOrAfter(pos) : Long.MAX_VALUE;
                    if (next == pos) {
                        out.writeShort(0).writeShort((int) (pos - fpduStart));
                        pos += MpaConstants.MARKER_LENGTH;
                        continue;
                    }
                    int chunk = (int) Math.min(remaining, next - pos);
                    // getBytes into a buffer with a memory address: a plain copy, no NIO view of
                    // the ULPDU (which may be registered memory other event loops use too).
                    ulpdu.getBytes(index, out, out.writerIndex(), chunk);
                    out.writerIndex(out.writerIndex() + chunk);
                    index += chunk;
                    pos += chunk;
                    remaining -= chunk;
                }
                out.writeZero(pad);
                pos += pad;
                if (markers && isMarkerOffset(pos)) {
                    // A marker right after PAD is inside this FPDU and its CRC (§4.4 rule 3).
                    out.writeShort(0).writeShort((int) (pos - fpduStart));
                    pos += MpaConstants.MARKER_LENGTH;
                }
                int crcValue = 0;
                if (crcEnabled) {
                    crc.reset();
                    ByteBufCrc32c.update(crc, out, 0, out.writerIndex());
                    crcValue = (int) crc.getValue();
                }
                out.writeIntLE(crcValue);
                streamOffset = pos + MpaConstants.CRC_LENGTH;
                return out;
            } catch (Throwable t) {
                out.release();
                throw t;
            }
        } finally {
            ulpdu.release();
        }
    }

    /** PAD octets after a ULPDU of this length: (2 + length + pad) is a multiple of 4 (RFC 5044 §4.1). */
    public static int padLength(int ulpduLength) {
        return (4 - ((2 + ulpduLength) & 3)) & 3;
    }
}
