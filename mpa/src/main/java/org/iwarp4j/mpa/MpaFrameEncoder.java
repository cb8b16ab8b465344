package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.MAX_ULPDU;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.internal.ByteBufCrc32c;
import org.iwarp4j.mpa.internal.FlushSlab;
import org.iwarp4j.mpa.internal.FpduSlabs;
import org.iwarp4j.mpa.internal.MarkedCopy;
import org.iwarp4j.mpa.internal.MpaMeters;

/**
 * Frames each outbound ULPDU (one DDP segment, as a {@link ByteBuf} or an {@link OutboundUlpdu})
 * as one FPDU, never more or less (RFC 5044 §3, §4: MPA-R-003, MPA-R-010; so DDP's segment
 * boundaries survive the stream, DDP-R-004): ULPDU_Length, the ULPDU, PAD, CRC32c
 * (least-significant octet first; the field is always there, MPA-R-028; the LLP's check over the
 * whole DDP segment, DDP-R-006), with a marker at every 512th octet of this direction's stream
 * when the peer asked for markers (§4.3, MPA-R-015, MPA-R-016; where they stand and what they
 * point at: {@link MarkedCopy#encode}).
 *
 * <p>A ULPDU of {@value #CONTIGUOUS_LIMIT} octets or more without markers is not copied. Given as
 * an {@link OutboundUlpdu} (what RDMAP sends), its FPDU goes downstream as flat buffers that the
 * transport's gathering write takes by address: a small one with ULPDU_Length and the header, then
 * the payload itself. Its trailer (PAD and CRC) is held back until the next write or flush, so
 * that it leaves in the same small buffer as the next FPDU's ULPDU_Length and header (or, for a
 * small next FPDU, in the same buffer as that whole FPDU): two entries per FPDU in Netty's
 * outbound buffer instead of three, each entry costing an allocation, a release and the entry's
 * own bookkeeping. A flush, a close, a message of another type and the removal of this handler
 * write a held trailer on its own first. The caller's promise of an FPDU (failed if the
 * connection fails: a segment taken is delivered by TCP or its loss reported, DDP-R-003) completes
 * with the write that holds its trailer (the next FPDU's small buffer, or the trailer's own at a
 * flush), never later: a responder frees an IRD slot when its Read Response is written; a void
 * promise of an FPDU whose trailer shares the next FPDU's small buffer gives way to that FPDU's
 * promise, which reports the buffer's outcome. The small buffers of one flush are slices of one
 * direct buffer ({@link FlushSlab}), not an allocation each; so, once a large FPDU has opened it,
 * are the copies of small FPDUs ({@link #SMALL_FPDU_IN_SLAB}).
 *
 * <p>Given as a {@link ByteBuf}, a large ULPDU's FPDU is one composite of a small header, the ULPDU
 * and a small trailer (one message per FPDU, as a test reading the channel expects). Smaller
 * ULPDUs, and every ULPDU when markers are in use, are copied into one contiguous buffer with the
 * framing (markers every 512 octets would otherwise cut the FPDU into two pieces per marker): one
 * copy costs less than the bookkeeping of pieces there. Either way the CRC is computed in one pass
 * over the octets that are sent. This handler takes ownership of the ULPDU; what it writes is
 * released by the transport after it is written.
 *
 * <p>With markers the copies are cut from reused memory ({@link FpduSlabs}), and ULPDUs are
 * framed only while less than {@link #MARKED_QUEUE_LIMIT} octets wait for the socket; later ones
 * wait unframed, in order, until the channel is writable again.
 *
 * <p>A Responder's encoder starts <em>fenced</em>: it holds every FPDU until the decoder has
 * validated the Initiator's first FPDU (RFC 5044 §7.1.2 #4, MPA-R-061, MPA2-R-011).
 *
 * <p>A ULPDU over 64768 octets fails its write and nothing is sent (RFC 5044 §3, MPA-R-006). Any
 * shorter one is framed whatever the current MULPDU, so a segment cut before the MULPDU shrank is
 * never handed back to be cut again (RFC 5041 §3, DDP-R-002).
 */
public final class MpaFrameEncoder extends ChannelDuplexHandler {

    /** ULPDUs of at least this many octets, without markers, are sent without copying. */
    public static final int CONTIGUOUS_LIMIT = 8192;

    /**
     * With markers: octets past the channel's low water mark (its {@code bytesBeforeWritable})
     * above which further ULPDUs wait unframed, so that at most about this much copied FPDU memory
     * is queued for the socket.
     */
    public static final int MARKED_QUEUE_LIMIT = 1 << 20;

    /**
     * Octets (with a held trailer in front) up to which a copied FPDU without markers is cut from
     * the flush's {@link FlushSlab} when one is open, instead of being allocated on its own: the
     * short last FPDU of each message over one MULPDU (a 64 KiB Send or Write is an FPDU of about
     * 64 KiB and one of about 100 octets) follows a large FPDU whose head opened the slab. An
     * eighth of a slab, so that such FPDUs cannot crowd out the heads. A small FPDU with no slab
     * open (small messages only, a latency test's) is allocated as before: a slab of its own would
     * cost more than the one buffer.
     */
    static final int SMALL_FPDU_IN_SLAB = FlushSlab.SLAB_SIZE / 8;

    private static final byte[] NO_HEADER = new byte[0];
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** PAD octets, for the CRC (RFC 5044 §4.1: at most 3, all zero, MPA-R-011). */
    private static final byte[] PAD = new byte[3];

    private final boolean markers;
    private final boolean crcEnabled;
    private final MpaMeters meters;
    private final CRC32C crc = new CRC32C();
    /** ULPDU_Length of the FPDU being framed, for the CRC (the head buffer is direct memory). */
    private final byte[] lengthField = new byte[MpaConstants.ULPDU_LENGTH_FIELD];
    /** For writes whose outcome a later write's promise reports (the transport fails every write after a failed one). */
    private ChannelPromise partPromise;
    /** PAD octets of the FPDU whose trailer is held back, or -1 when none is. */
    private int pendingPad = -1;
    /** CRC field of the held trailer. */
    private int pendingCrc;
    /** The caller's promise of the FPDU whose trailer is held back. */
    private ChannelPromise pendingPromise;
    private long streamOffset;
    private boolean fenced;
    private ChannelHandlerContext ctx;
    /** ULPDUs and their promises written while fenced; they must still be framed by this encoder. */
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    /** With markers: the memory FPDUs are copied into, reused once written (null without markers). */
    private final FpduSlabs slabs;
    /** Without markers: the memory the small head and trailer buffers of the current flush are cut from. */
    private final FlushSlab heads = new FlushSlab();
    /** Held ULPDUs are being framed: a write is framed now, not held behind them. */
    private boolean draining;

    /**
     * @param markers insert markers (the peer's startup frame had M=1)
     * @param crc compute the CRC; when off, the CRC field is still sent, as zero (RFC 5044 §4.4
     *     allows any value, MPA-R-013, MPA-R-027)
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
        this.slabs = markers ? new FpduSlabs() : null;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        // Not ctx.voidPromise(): a failed part must not fire exceptionCaught; a later write that
        // carries the FPDU's promise fails with it (the transport fails every write after a failed
        // one) and reports it.
        this.partPromise = new VoidChannelPromise(ctx.channel(), false);
        // The slabs go as soon as the channel closes, not only when the pipeline is torn down (a
        // task the event loop runs later): a closed channel never needs them, and an application
        // that ends its event loop early cannot keep them. Held ULPDUs stay until handlerRemoved,
        // after the connection's error is known: their writes fail with it.
        ctx.channel().closeFuture().addListener(closed -> {
            heads.release();
            if (slabs != null) {
                slabs.release();
            }
        });
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        // The FPDU's head and payload are downstream already: its trailer follows them (and fails
        // with them if the channel is closed).
        writePendingTrailer(ctx);
        if (slabs != null) {
            slabs.release();
        }
        heads.release();
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
            frameHeld(ctx);
            flush(ctx);
        }
    }

    /**
     * Frames held ULPDUs in order: all of them, or with markers while the queued FPDUs stay under
     * {@link #MARKED_QUEUE_LIMIT} (the rest when the channel becomes writable again).
     */
    private void frameHeld(ChannelHandlerContext ctx) {
        draining = true;
        try {
            while (!held.isEmpty() && !(markers && queueFull(ctx))) {
                write(ctx, held.poll(), (ChannelPromise) held.poll());
            }
        } finally {
            draining = false;
        }
    }

    /**
     * With markers every FPDU is a copy (RFC 5044 §4.3: markers cut the ULPDU), and a ULP may post
     * far more than the socket takes at once (128 RDMA WRITEs of 1 MiB in the benchmark): framing
     * all of them at once queued that many copies, fresh memory the allocator had to provide and
     * zero. So past the limit ULPDUs wait unframed, holding only their payload as the unmarked path
     * queues it. Past the limit the channel is not writable (the limit counts from the low water
     * mark), so its turning writable again is sure to come and frames the rest.
     */
    private static boolean queueFull(ChannelHandlerContext ctx) {
        return ctx.channel().bytesBeforeWritable() > MARKED_QUEUE_LIMIT;
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (!held.isEmpty() && !fenced && !draining && ctx.channel().isWritable()) {
            frameHeld(ctx);
            flush(ctx);
        }
        super.channelWritabilityChanged(ctx);
    }

    /** Slabs this encoder keeps for FPDUs with markers (for tests). */
    int keptSlabs() {
        return slabs == null ? 0 : slabs.slabs();
    }

    /** Whether a slab for this flush's small buffers is held now (for tests). */
    boolean holdsHeadSlab() {
        return heads.holdsSlab();
    }

    /** Whether FPDUs are still held back. */
    public boolean isFenced() {
        return fenced;
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        writePendingTrailer(ctx);
        heads.endFlush(); // this flush's small buffers are all written downstream: hold no memory while idle
        ctx.flush();
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        // Unflushed, the trailer fails with the rest of its FPDU, as the transport fails unflushed writes.
        writePendingTrailer(ctx);
        ctx.close(promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        writePendingTrailer(ctx);
        ctx.disconnect(promise);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf) && !(msg instanceof OutboundUlpdu)) {
            writePendingTrailer(ctx);
            ctx.write(msg, promise);
            return;
        }
        if (fenced || markers && !draining && (!held.isEmpty() || queueFull(ctx))) {
            held.add(msg);
            held.add(promise);
            return;
        }
        int length = msg instanceof ByteBuf ? ((ByteBuf) msg).readableBytes() : ((OutboundUlpdu) msg).length();
        if (length > MAX_ULPDU) {
            ReferenceCountUtil.release(msg);
            promise.setFailure(new IllegalArgumentException(
                    "ULPDU of " + length + " octets is over the 64768 MPA allows (RFC 5044 §3)"));
            return;
        }
        if (!copies(markers, length)) {
            if (msg instanceof OutboundUlpdu) {
                writeInPlace(ctx, (OutboundUlpdu) msg, promise);
                return;
            }
            writePendingTrailer(ctx);
        }
        // One buffer for the whole FPDU; a held trailer goes at its start when one promise can
        // stand for both FPDUs (the other's is void), else on its own before it.
        int reserve = 0;
        if (pendingPad >= 0) {
            if (pendingPromise.isVoid() || promise.isVoid()) {
                reserve = pendingPad + MpaConstants.CRC_LENGTH;
            } else {
                writePendingTrailer(ctx);
            }
        }
        ByteBuf fpdu;
        try {
            fpdu = msg instanceof ByteBuf ? encode(ctx.alloc(), reserve, (ByteBuf) msg)
                    : encode(ctx.alloc(), reserve, (OutboundUlpdu) msg);
        } catch (Throwable t) {
            ReferenceCountUtil.safeRelease(msg);
            promise.setFailure(t);
            return;
        }
        ChannelPromise outcome = promise;
        if (reserve != 0) {
            fpdu.setZero(0, pendingPad).setIntLE(pendingPad, pendingCrc);
            if (promise.isVoid()) {
                outcome = pendingPromise;
            }
            pendingPad = -1;
            pendingPromise = null;
        }
        ctx.write(fpdu, outcome);
    }

    /**
     * Writes the held trailer, if any, on its own, with its FPDU's promise. A trailer that cannot
     * be allocated leaves its FPDU cut short downstream: the connection is closed before that can
     * be flushed (the transport fails unflushed writes on close).
     */
    private void writePendingTrailer(ChannelHandlerContext ctx) {
        if (pendingPad < 0) {
            return;
        }
        int pad = pendingPad;
        ChannelPromise promise = pendingPromise;
        pendingPad = -1; // before the write: a listener of the promise may write again
        pendingPromise = null;
        ByteBuf tail;
        try {
            tail = heads.take(ctx.alloc(), pad + MpaConstants.CRC_LENGTH).writeZero(pad).writeIntLE(pendingCrc);
        } catch (Throwable t) {
            promise.tryFailure(t);
            ctx.close();
            return;
        }
        ctx.write(tail, promise);
    }

    /**
     * Writes the FPDU of a large ULPDU without markers as two flat buffers, and holds its trailer
     * back: the held trailer of the FPDU before, if any, then ULPDU_Length and the header, in one
     * small buffer (a slice of this flush's {@link FlushSlab}), carrying the promise of the FPDU before (its octets are all written once
     * that buffer is); the payload, not copied. PAD and the CRC of this FPDU wait for the next write
     * or flush. The CRC covers the header and PAD from heap arrays and the payload in place, the
     * octets the transport then sends.
     */
    private void writeInPlace(ChannelHandlerContext ctx, OutboundUlpdu ulpdu, ChannelPromise promise) {
        byte[] header = ulpdu.header();
        ByteBuf payload = ulpdu.payload();
        int length = ulpdu.length();
        int pad = padLength(length);
        int previousTrailer = pendingPad < 0 ? 0 : pendingPad + MpaConstants.CRC_LENGTH;
        ByteBuf head = null;
        int crcValue = 0;
        try {
            int headLength = previousTrailer + MpaConstants.ULPDU_LENGTH_FIELD + header.length;
            head = heads.take(ctx.alloc(), headLength);
            if (previousTrailer != 0) {
                head.writeZero(pendingPad).writeIntLE(pendingCrc);
            }
            head.writeShort(length);
            writeOctets(head, header);
            if (crcEnabled) {
                crc.reset();
                lengthField[0] = (byte) (length >>> 8);
                lengthField[1] = (byte) length;
                crc.update(lengthField, 0, lengthField.length);
                crc.update(header, 0, header.length);
                ByteBufCrc32c.update(crc, payload);
                crc.update(PAD, 0, pad);
                crcValue = (int) crc.getValue();
            }
        } catch (Throwable t) {
            ReferenceCountUtil.safeRelease(head);
            ReferenceCountUtil.safeRelease(ulpdu);
            promise.setFailure(t);
            return;
        }
        streamOffset += MpaConstants.ULPDU_LENGTH_FIELD + length + pad + MpaConstants.CRC_LENGTH;
        meters.fpdusSent.increment();
        meters.bytesSent.increment(MpaConstants.ULPDU_LENGTH_FIELD + length + pad + MpaConstants.CRC_LENGTH);
        ChannelPromise previous = previousTrailer != 0 ? pendingPromise : partPromise;
        // This FPDU's trailer is held before anything is written: a listener of the previous
        // promise (failed by a closed channel) may write or flush again, after this FPDU.
        pendingPad = pad;
        pendingCrc = crcValue;
        pendingPromise = promise;
        // The previous FPDU's promise rides on the buffer that ends it (its trailer, before this
        // head), not on this payload: a completion must not wait for another 64 KiB to be written
        // (a responder reposts an IRD slot when its Read Response is written, RFC 5040 §6.5).
        ctx.write(head, previous);
        ctx.write(payload, partPromise); // the ULPDU's one reference is its payload's
    }

    /**
     * Writes {@code octets} to {@code out} by longs, not by {@code writeBytes(byte[])}: the
     * allocator's buffers copy an array through a fresh NIO view, which cost more than the copy.
     */
    private static void writeOctets(ByteBuf out, byte[] octets) {
        int i = 0;
        for (; i + Long.BYTES <= octets.length; i += Long.BYTES) {
            out.writeLong((long) LONG.get(octets, i));
        }
        for (; i < octets.length; i++) {
            out.writeByte(octets[i]);
        }
    }

    /**
     * FPDU octets for one ULPDU given in parts, as one buffer, after {@code reserve} octets left
     * for the caller; takes ownership of {@code ulpdu}.
     */
    private ByteBuf encode(ByteBufAllocator alloc, int reserve, OutboundUlpdu ulpdu) {
        long start = streamOffset;
        ByteBuf fpdu = encodeContiguous(alloc, reserve, ulpdu.header(), ulpdu.payload());
        meters.fpdusSent.increment();
        meters.bytesSent.increment(streamOffset - start);
        return fpdu;
    }

    /**
     * FPDU octets for one ULPDU; takes ownership of {@code ulpdu}. Copied after {@code reserve}
     * octets left for the caller, or (large, without markers, {@code reserve} 0) a composite.
     */
    private ByteBuf encode(ByteBufAllocator alloc, int reserve, ByteBuf ulpdu) {
        long start = streamOffset;
        ByteBuf fpdu = markers || ulpdu.readableBytes() < CONTIGUOUS_LIMIT
                ? encodeContiguous(alloc, reserve, NO_HEADER, ulpdu)
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
     * ({@code header} then {@code body}'s readable octets, cut by markers), PAD, a marker right
     * after PAD if one falls there, the CRC (see {@link MarkedCopy#encode}: the pieces between
     * markers are copied by memory address where the buffers have one). With markers the FPDU is
     * a slice of this encoder's {@link FpduSlabs}, memory that is reused once written.
     * Releases {@code body}.
     */
    private ByteBuf encodeContiguous(ByteBufAllocator alloc, int reserve, byte[] header, ByteBuf body) {
        try {
            CRC32C c = crcEnabled ? crc : null;
            ByteBuf out;
            if (slabs != null) {
                // With markers no trailer is ever held, so nothing is reserved in front.
                int wireLength = MarkedCopy.wireLength(header.length + body.readableBytes(), streamOffset, true);
                out = MarkedCopy.encodeInto(slabs.take(alloc, wireLength), header, body, streamOffset, true, c);
            } else {
                int length = reserve + MarkedCopy.wireLength(header.length + body.readableBytes(), streamOffset, false);
                out = length <= SMALL_FPDU_IN_SLAB && heads.holdsSlab()
                        ? MarkedCopy.encodeInto(heads.take(alloc, length), reserve, header, body, streamOffset, false, c)
                        : MarkedCopy.encode(alloc, reserve, header, body, streamOffset, false, c);
            }
            streamOffset += out.readableBytes() - reserve;
            return out;
        } finally {
            body.release();
        }
    }

    /**
     * Whether a ULPDU of {@code ulpduLength} octets is copied, with its framing, into memory of
     * this encoder's: always with markers (RFC 5044 §4.3 cuts the ULPDU), else under {@link
     * #CONTIGUOUS_LIMIT}. A sender that can make its ULPDUs at leisure (RDMAP's Read Responses)
     * asks this to know how much fresh memory what it queues costs.
     */
    public static boolean copies(boolean markers, int ulpduLength) {
        return markers || ulpduLength < CONTIGUOUS_LIMIT;
    }

    /** PAD octets after a ULPDU of this length: (2 + length + pad) is a multiple of 4 (RFC 5044 §4.1). */
    public static int padLength(int ulpduLength) {
        return (4 - ((2 + ulpduLength) & 3)) & 3;
    }
}
