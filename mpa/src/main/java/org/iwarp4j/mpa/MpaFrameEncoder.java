package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.MAX_ULPDU;
import static org.iwarp4j.mpa.internal.MarkerSpacing.isMarkerOffset;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markerAtOrAfter;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
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
 * <p>The ULPDU is not copied: the FPDU written downstream is a composite of a small header, the
 * ULPDU (or slices of it between markers) and a small trailer. This handler takes ownership of
 * the ULPDU; the composite is released by the transport after it is written.
 *
 * <p>A Responder's encoder starts <em>fenced</em>: it holds every FPDU until the decoder has
 * validated the Initiator's first FPDU (RFC 5044 §7.1.2 #4, MPA-R-061, MPA2-R-011).
 *
 * <p>A ULPDU over 64768 octets fails its write and nothing is sent (RFC 5044 §3, MPA-R-006).
 */
public final class MpaFrameEncoder extends ChannelOutboundHandlerAdapter {

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
        ByteBuf fpdu = markers ? encodeWithMarkers(alloc, ulpdu) : encodeWithoutMarkers(alloc, ulpdu);
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

    private ByteBuf encodeWithMarkers(ByteBufAllocator alloc, ByteBuf ulpdu) {
        int length = ulpdu.readableBytes();
        int pad = padLength(length);
        // Head, tail, and per marker one marker buffer and one ULPDU slice. Markers come every 508
        // ULPDU octets (512 minus the marker), so size for that: a composite that outgrows its
        // limit silently consolidates, i.e. copies the whole FPDU.
        int markers = length / (MpaConstants.MARKER_INTERVAL - MpaConstants.MARKER_LENGTH) + 2;
        CompositeByteBuf out = alloc.compositeBuffer(3 + 2 * markers);
        try {
            crc.reset();
            long pos = streamOffset;
            ByteBuf head = alloc.buffer(6);
            if (isMarkerOffset(pos)) {
                // A marker between FPDUs belongs to the next one: FPDUPTR 0, inside its CRC (§4.4 rule 2).
                head.writeInt(0);
                pos += MpaConstants.MARKER_LENGTH;
            }
            long fpduStart = pos;
            head.writeShort(length);
            pos += 2;
            append(out, head);
            int index = ulpdu.readerIndex();
            int remaining = length;
            while (remaining > 0) {
                long next = markerAtOrAfter(pos);
                if (next == pos) {
                    append(out, marker(alloc, pos - fpduStart));
                    pos += MpaConstants.MARKER_LENGTH;
                    continue;
                }
                int chunk = (int) Math.min(remaining, next - pos);
                append(out, ulpdu.retainedSlice(index, chunk));
                index += chunk;
                pos += chunk;
                remaining -= chunk;
            }
            ByteBuf tail = alloc.buffer(pad + 2 * MpaConstants.MARKER_LENGTH).writeZero(pad);
            pos += pad;
            if (isMarkerOffset(pos)) {
                // A marker right after PAD is inside this FPDU and its CRC (§4.4 rule 3).
                tail.writeShort(0).writeShort((int) (pos - fpduStart));
                pos += MpaConstants.MARKER_LENGTH;
            }
            int crcValue = 0;
            if (crcEnabled) {
                ByteBufCrc32c.update(crc, tail);
                crcValue = (int) crc.getValue();
            }
            tail.writeIntLE(crcValue);
            pos += MpaConstants.CRC_LENGTH;
            out.addComponent(true, tail);
            streamOffset = pos;
            return out;
        } catch (Throwable t) {
            out.release();
            throw t;
        } finally {
            ulpdu.release();
        }
    }

    private void append(CompositeByteBuf out, ByteBuf part) {
        if (crcEnabled) {
            ByteBufCrc32c.update(crc, part);
        }
        out.addComponent(true, part);
    }

    private static ByteBuf marker(ByteBufAllocator alloc, long fpduPointer) {
        return alloc.buffer(MpaConstants.MARKER_LENGTH).writeShort(0).writeShort((int) fpduPointer);
    }

    /** PAD octets after a ULPDU of this length: (2 + length + pad) is a multiple of 4 (RFC 5044 §4.1). */
    public static int padLength(int ulpduLength) {
        return (4 - ((2 + ulpduLength) & 3)) & 3;
    }
}
