package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.CRC_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.MARKER_LENGTH;
import static org.iwarp4j.mpa.internal.MarkerSpacing.isMarkerOffset;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markersBeforeCrc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.internal.ByteBufCrc32c;
import org.iwarp4j.mpa.internal.FpduCumulator;
import org.iwarp4j.mpa.internal.MarkedCopy;
import org.iwarp4j.mpa.internal.MpaMeters;

/**
 * Turns the inbound TCP byte stream of Full Operation into ULPDUs (RFC 5044 §4, §5.2, §6): finds
 * each FPDU by its ULPDU_Length whatever the TCP segmentation (MPA-R-037, MPA-R-078), removes
 * markers at their fixed positions (MPA-R-022, MPA-R-038), checks the CRC when in use (MPA-R-030;
 * over ULPDU_Length through PAD, markers included, MPA-R-029; with CRC off the field is skipped
 * unread, MPA-R-013; CRC32c over each whole DDP segment, DDP-R-006) and every marker's FPDUPTR,
 * and passes on the ULPDU only when the whole FPDU is present and valid (MPA-R-039, MPA-R-040):
 * the ULPDU alone, one buffer per FPDU, so segment boundaries are kept (DDP-R-004), its length
 * that of the buffer (MPA-R-007, DDP-R-007), no framing, so that CRC and markers stay invisible to
 * the ULP (MPA-R-025). PAD octets are covered by the CRC but their values are not looked at
 * (MPA-R-011).
 *
 * <p>Each ULPDU goes to the next handler as a {@link ByteBuf} that the next handler must release:
 * a slice of the receive buffer (which may be a composite of several reads, see {@link
 * FpduCumulator}). When markers cut the ULPDU they are removed in the receive buffer itself, after
 * the FPDU's checks, by moving the pieces between them ({@link MarkedCopy#removeMarkersInPlace});
 * an FPDU that spans two reads is first joined into one new buffer (released here; the ULPDU holds
 * its own reference), and only one in heap or read-only memory is copied out piece by piece.
 * Otherwise ULPDU octets are copied only to join small reads.
 *
 * <p>Errors (RFC 5044 §8, MPA-R-070, MPA-R-071) are fired as {@link MpaException} through {@code
 * exceptionCaught}: {@link MpaError#CRC_ERROR}, {@link MpaError#MARKER_ERROR} (also used for a
 * ULPDU_Length above {@link MpaSettings#maxReceiveUlpdu()}, markers or not, since the length cannot
 * start a valid FPDU), and {@link MpaError#CONNECTION_LOST} when the connection ends inside an FPDU. After an error no
 * further ULPDU is delivered (MPA-R-074) and the connection is not closed here (MPA-R-075): the
 * ULP sends its Terminate and closes. Memory held between reads is bounded by one incomplete FPDU
 * (at most 65535 octets of ULPDU plus framing; every complete FPDU is taken out at once), kept in
 * the buffers of the reads that brought it: a join of more than 4 KiB keeps each read's buffer,
 * sized by Netty to what that read returned, instead of copying.
 *
 * <p><b>Direct placement</b> ({@link #placementAdvisor}): when an FPDU's header has arrived and
 * enough of it is still to come, the decoder asks the ULP where its payload belongs; if the ULP
 * names memory, the octets already read are copied there, and the channel's {@link
 * PlacementRecvByteBufAllocator} makes the following socket reads land in that memory directly,
 * so the rest of the payload is copied once, by the kernel. The CRC runs over the octets in place,
 * then over the pad; the ULPDU is delivered only once the CRC at the FPDU's end has been checked,
 * as on the ordinary path, as a composite of the header and the placed payload, so the ULP's own
 * checks and placement run unchanged (its copy of the payload onto itself is skipped). A CRC error
 * there is reported as usual and nothing is delivered: the payload was placed but not delivered.
 * Without markers only; a read that did not land in place (another channel allocator, a test)
 * is copied into the memory instead, so placement never depends on how the stream was cut.
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
    private PlacementAdvisor advisor;
    private int placementThreshold;
    /** Stream offset of the last FPDU the advisor was asked about: it is asked once per FPDU. */
    private long advisedFpdu = -1;
    /** While an FPDU is placed directly: its payload's memory (exactly its length), else null. */
    private ByteBuf placing;
    private ByteBuf placingHeader;
    private PlacementGuard placingGuard;
    private int placed;
    private int placingLength;
    private int placingPad;
    private int placingWireLength;
    private PlacementRecvByteBufAllocator placementReads;
    private RecvByteBufAllocator channelAllocator;
    /** The last FPDU was placed directly: read only up to the next header, to place the next one too. */
    private boolean chaining;
    /**
     * A read into the FPDU being placed came back with fewer octets than it asked for: the socket
     * ran dry, so this end is ahead of the sender and the next FPDU is still on its way.
     */
    private boolean caughtUp;

    /**
     * @param markers the peer puts markers in its FPDUs (this end's startup frame had M=1)
     * @param crc check CRCs (either startup frame had C=1); without, the CRC field is not checked
     *     (MPA-R-013)
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

    /**
     * Turns direct placement on (see the class comment): an FPDU whose payload octets still to come
     * number at least {@code threshold} is offered to {@code advisor}. Below the threshold the
     * ordinary path is cheaper (the extra read for the FPDU's trailer and the advisor's checks
     * cost more than the copy they save). Ignored while markers are in use: they cut the payload.
     * On the channel's event loop.
     *
     * @param advisor the ULP's advisor, or {@code null} to turn direct placement off
     * @param threshold at least 1
     */
    public void placementAdvisor(PlacementAdvisor advisor, int threshold) {
        if (threshold < 1) {
            throw new IllegalArgumentException("placement threshold must be positive: " + threshold);
        }
        this.advisor = advisor;
        this.placementThreshold = threshold;
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
        if (placing != null) {
            decodeTrailer(ctx, in, out);
            return;
        }
        int start = in.readerIndex();
        int available = in.readableBytes();
        int lead = markers && isMarkerOffset(streamOffset) ? MARKER_LENGTH : 0;
        if (available < lead + 2) {
            readOnlyHead(available);
            return;
        }
        int length = in.getUnsignedShort(start + lead);
        if (length > maxUlpdu) {
            // Error 3, markers or not: RFC 5044 §8 has no closer code (MPA-R-070, MPA-R-071 Notes).
            meters.lengthErrors.increment();
            fail(ctx, in, MpaError.MARKER_ERROR, "ULPDU_Length " + length + " is over the maximum " + maxUlpdu);
            return;
        }
        int preCrc = 2 + length + MpaFrameEncoder.padLength(length);
        long fpduStart = streamOffset + lead;
        int innerMarkers = markers ? markersBeforeCrc(fpduStart, preCrc) : 0;
        int wireLength = lead + preCrc + MARKER_LENGTH * innerMarkers + CRC_LENGTH;
        if (available < wireLength) {
            if (advisor != null && !markers && fpduStart != advisedFpdu
                    && 2 + length - available >= placementThreshold) {
                startPlacement(ctx, in, start, available, length, wireLength, fpduStart);
            }
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
        ByteBuf joined = null;
        if (innerMarkers != 0 && fpdu == in && in instanceof CompositeByteBuf
                && MarkedCopy.removesInPlaceInDirectMemory()) {
            // Cut by a read's end: joined into one buffer in a few large copies, the markers are then
            // removed there like in any other FPDU. Taking the pieces one by one out of the composite
            // cost several times the copy (a component lookup and bounds checks per 508 octets).
            joined = ctx.alloc().directBuffer(wireLength, wireLength);
            in.getBytes(start, joined, 0, wireLength);
            joined.writerIndex(wireLength);
            fpdu = joined;
            base = 0;
        }
        try {
            decodeFpdu(ctx, in, out, fpdu, base, wireLength, fpduStart, lead, length, innerMarkers);
        } finally {
            if (joined != null) {
                joined.release();
            }
        }
    }

    /**
     * Checks and passes on the FPDU whose {@code wireLength} octets are at {@code fpdu[base]}
     * ({@code in} itself, the read of {@code in} that holds them all, or a copy), then takes them
     * out of {@code in}, so that no ULPDU is passed up twice (DDP-R-011). The ULPDU handed on holds
     * its own reference to {@code fpdu}.
     */
    private void decodeFpdu(ChannelHandlerContext ctx, ByteBuf in, List<Object> out, ByteBuf fpdu, int base,
                            int wireLength, long fpduStart, int lead, int length, int innerMarkers) {
        ByteBuf ulpdu;
        if (innerMarkers != 0 && !MarkedCopy.canRemoveInPlace(fpdu)) {
            ulpdu = ulpduWithoutMarkers(ctx, in, fpdu, base, wireLength, fpduStart, lead, length, innerMarkers);
            if (ulpdu == null) {
                return; // reported
            }
        } else {
            if (crcEnabled) {
                crc.reset();
                ByteBufCrc32c.update(crc, fpdu, base, wireLength - CRC_LENGTH);
                int received = fpdu.getIntLE(base + wireLength - CRC_LENGTH);
                if ((int) crc.getValue() != received) {
                    crcError(ctx, in, fpduStart, received);
                    return;
                }
            }
            if (markers && !MarkedCopy.markersPointAt(fpdu, base, streamOffset, lead, innerMarkers)) {
                markerError(ctx, in, fpduStart);
                return;
            }
            if (innerMarkers != 0) {
                // Checked above over the octets as received (CRC first, then FPDUPTRs): now close the gaps.
                MarkedCopy.removeMarkersInPlace(fpdu, base, streamOffset, lead, length);
            }
            ulpdu = fpdu.retainedSlice(base + lead + 2, length);
        }
        in.skipBytes(wireLength);
        streamOffset += wireLength;
        chaining = false;
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
     * Asks the advisor about the incomplete FPDU at {@code start} (no markers); if it names memory,
     * takes the FPDU's octets out of {@code in}: the header is kept, the payload octets so far go
     * to the memory, and the following reads are directed there.
     */
    private void startPlacement(ChannelHandlerContext ctx, ByteBuf in, int start, int available, int length,
                                int wireLength, long fpduStart) {
        int headLength = Math.min(PlacementAdvisor.HEAD_LENGTH, length);
        if (available < 2 + headLength) {
            readOnlyHead(available);
            return; // asked again once the header is here
        }
        advisedFpdu = fpduStart;
        DirectPlacement placement = advisor.advise(in.slice(start + 2, headLength), length);
        if (placement == null) {
            return;
        }
        int headerLength = placement.headerLength();
        ByteBuf target = placement.target();
        int payloadLength = length - headerLength;
        if (headerLength > headLength || target.capacity() != payloadLength || !target.isDirect()
                || target.nioBufferCount() != 1) {
            target.release(); // not memory a read can go to: the ordinary path
            return;
        }
        ByteBuf header = ctx.alloc().directBuffer(headerLength, headerLength);
        header.writeBytes(in, start + 2, headerLength);
        if (crcEnabled) {
            crc.reset();
            ByteBufCrc32c.update(crc, in, start, 2 + headerLength);
        }
        placing = target;
        placingGuard = placement.guard();
        placingHeader = header;
        placed = 0;
        caughtUp = false;
        placingLength = payloadLength;
        placingPad = MpaFrameEncoder.padLength(length);
        placingWireLength = wireLength;
        in.skipBytes(2 + headerLength);
        meters.fpdusPlacedDirectly.increment();
        placeFrom(in, false);
    }

    /**
     * Places the next octets of {@code buf} (up to the payload's end) into the memory, unless the
     * read already put them there, and runs the CRC over them in place; then directs the next read.
     */
    private void placeFrom(ByteBuf buf, boolean inPlace) {
        int n = Math.min(buf.readableBytes(), placingLength - placed);
        if (inPlace) {
            // The read was given exactly the missing octets (PlacementRecvByteBufAllocator).
            caughtUp |= buf.readableBytes() < buf.capacity();
            meters.bytesPlacedDirectly.increment(n);
            if (crcEnabled) {
                ByteBufCrc32c.update(crc, placing, placed, n);
            }
        } else if (n > 0 && placingGuard.enter()) {
            // Under the guard: an invalidation of the memory that returns has no copy still running.
            try {
                // Through a fresh NIO view: the memory's cached one is not safe when other event
                // loops place into the same registered buffer.
                buf.getBytes(buf.readerIndex(), placing.nioBuffer(placed, n));
            } finally {
                placingGuard.exit();
            }
            if (crcEnabled) {
                ByteBufCrc32c.update(crc, placing, placed, n);
            }
        } else if (crcEnabled) {
            // The memory stopped being a valid target (its STag was invalidated): the octets are
            // checked and dropped; the ULP's checks at delivery report the error.
            ByteBufCrc32c.update(crc, buf, buf.readerIndex(), n);
        }
        placed += n;
        buf.skipBytes(n);
        if (placed < placingLength) {
            directNextRead();
        } else if (placementReads != null) {
            placementReads.stopPlacing();
            if (caughtUp) {
                placementReads.limitNextRead(placingPad + CRC_LENGTH + 2 + PlacementAdvisor.HEAD_LENGTH);
            }
        }
    }

    /**
     * While chaining, the next read stops at the end of the next FPDU's head ({@code available}
     * octets are here), so that its payload can be read in place too. Only when the receiver had
     * caught up with the stream: with a backlog in the socket, one ordinary read takes many FPDUs
     * at once, and a short read per FPDU for its trailer and the next head costs more (a system
     * call and an ACK for every 64 KiB) than the copy it would save.
     */
    private void readOnlyHead(int available) {
        if (chaining && placementReads != null && available < 2 + PlacementAdvisor.HEAD_LENGTH) {
            placementReads.limitNextRead(2 + PlacementAdvisor.HEAD_LENGTH - available);
        }
    }

    private void directNextRead() {
        if (placementReads == null) {
            RecvByteBufAllocator allocator = channelAllocator;
            if (allocator instanceof PlacementRecvByteBufAllocator) {
                placementReads = (PlacementRecvByteBufAllocator) allocator;
            }
        }
        if (placementReads != null) {
            placementReads.placeInto(placing, placingGuard, placed, placingLength - placed);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (placing == null || placed == placingLength || failed || !(msg instanceof ByteBuf)) {
            super.channelRead(ctx, msg);
            return;
        }
        ByteBuf buf = (ByteBuf) msg;
        placeFrom(buf, placementReads != null && placementReads.isInPlace(buf));
        if (buf.isReadable()) {
            super.channelRead(ctx, buf); // the trailer and whatever follows: the ordinary path
        } else {
            buf.release();
        }
    }

    /** The pad and CRC after a directly placed payload: check, then deliver header + payload as the ULPDU. */
    private void decodeTrailer(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int need = placingPad + CRC_LENGTH;
        if (in.readableBytes() < need) {
            return;
        }
        int start = in.readerIndex();
        long fpduStart = streamOffset;
        if (crcEnabled) {
            ByteBufCrc32c.update(crc, in, start, placingPad);
            int received = in.getIntLE(start + placingPad);
            if ((int) crc.getValue() != received) {
                meters.crcErrors.increment();
                fail(ctx, in, MpaError.CRC_ERROR, String.format(
                        "CRC mismatch in the FPDU at stream offset %d (placed directly, not delivered): "
                                + "received %08x, computed %08x", fpduStart, received, (int) crc.getValue()));
                return;
            }
        }
        ByteBuf ulpdu = ctx.alloc().compositeDirectBuffer(2).addComponents(true, placingHeader,
                placing.setIndex(0, placingLength));
        placing = null;
        placingHeader = null;
        in.skipBytes(need);
        streamOffset += placingWireLength;
        chaining = caughtUp;
        readOnlyHead(in.readableBytes());
        meters.fpdusReceived.increment();
        meters.bytesReceived.increment(placingWireLength);
        out.add(ulpdu);
        if (firstFpduListener != null) {
            Runnable listener = firstFpduListener;
            firstFpduListener = null;
            listener.run();
        }
    }

    private void releasePlacement() {
        if (placing != null) {
            placing.release();
            placingHeader.release();
            placing = null;
            placingHeader = null;
            placingGuard = null;
        }
        if (placementReads != null) {
            placementReads.stopPlacing();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        channelAllocator = ctx.channel().config().getRecvByteBufAllocator();
        super.handlerAdded(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        releasePlacement();
        super.handlerRemoved0(ctx);
    }

    /**
     * The ULPDU of an FPDU that markers cut and that cannot be changed in place (it lies in heap or
     * read-only memory, or Netty cannot use addresses here), copied out in one contiguous buffer (one allocation and
     * a copy per 508 octets cost less than a composite of a retained slice per piece), or null after
     * reporting an error. The CRC over the FPDU as received (markers included), the markers'
     * FPDUPTRs and the copy go through {@link MarkedCopy#decode} (by memory address where the
     * buffers have one); a CRC error is reported first (MPA-R-030), then a marker's (MPA-R-014,
     * MPA-R-017, MPA-R-018), and the copy is dropped.
     */
    private ByteBuf ulpduWithoutMarkers(ChannelHandlerContext ctx, ByteBuf in, ByteBuf fpdu, int base,
                                        int wireLength, long fpduStart, int lead, int length, int innerMarkers) {
        ByteBuf ulpdu = ctx.alloc().directBuffer(length, length);
        try {
            boolean markersOk = MarkedCopy.decode(fpdu, base, wireLength, streamOffset, lead, length, innerMarkers,
                    ulpdu, crcEnabled ? crc : null);
            if (crcEnabled) {
                int received = fpdu.getIntLE(base + wireLength - CRC_LENGTH);
                if ((int) crc.getValue() != received) {
                    ulpdu.release();
                    crcError(ctx, in, fpduStart, received);
                    return null;
                }
            }
            if (!markersOk) {
                ulpdu.release();
                markerError(ctx, in, fpduStart);
                return null;
            }
            return ulpdu;
        } catch (Throwable t) {
            ulpdu.release();
            throw t;
        }
    }

    private void crcError(ChannelHandlerContext ctx, ByteBuf in, long fpduStart, int received) {
        meters.crcErrors.increment();
        fail(ctx, in, MpaError.CRC_ERROR, String.format(
                "CRC mismatch in the FPDU at stream offset %d: received %08x, computed %08x",
                fpduStart, received, (int) crc.getValue()));
    }

    private void markerError(ChannelHandlerContext ctx, ByteBuf in, long fpduStart) {
        meters.markerErrors.increment();
        fail(ctx, in, MpaError.MARKER_ERROR,
                "a marker's FPDUPTR disagrees with the FPDU starting at stream offset " + fpduStart);
    }

    /**
     * The peer's FIN (input shutdown) or the connection's end: the FPDUs before it go up, then the
     * event itself (passed on by {@link ByteToMessageDecoder}), so DDP learns of a graceful close
     * (MPA-R-069, DDP-R-009); a connection that ends inside an FPDU is error 1 (DDP-R-003: what
     * TCP took is delivered, or an error is reported).
     */
    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        // callDecode has already taken every whole FPDU; what is left is at most one partial FPDU.
        if (in.isReadable()) {
            decode(ctx, in, out);
        }
        if (!failed && (in.isReadable() || placing != null)) {
            fail(ctx, in, MpaError.CONNECTION_LOST, "the connection ended inside an FPDU ("
                    + (placing != null ? "placing directly, " + (placingLength - placed) + " payload octets missing"
                    : in.readableBytes() + " octets pending") + ")");
        }
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, MpaError error, String message) {
        failed = true;
        releasePlacement();
        in.skipBytes(in.readableBytes());
        ctx.fireExceptionCaught(new MpaException(error, message));
    }
}
