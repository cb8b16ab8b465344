package org.iwarp4j.mpa.internal;

import static org.iwarp4j.mpa.MpaConstants.CRC_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.MARKER_INTERVAL;
import static org.iwarp4j.mpa.MpaConstants.MARKER_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.ULPDU_LENGTH_FIELD;
import static org.iwarp4j.mpa.internal.MarkerSpacing.isMarkerOffset;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markerAtOrAfter;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markersBeforeCrc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The copies of the contiguous FPDU path (RFC 5044 §4.1, §4.3, §4.4): a ULPDU into one FPDU buffer
 * with ULPDU_Length, PAD, a marker at every 512th octet of the stream and the CRC; and the reverse,
 * an FPDU's ULPDU copied out from between its markers, with every marker's FPDUPTR checked and the
 * CRC computed over the FPDU as received, markers included (§6.4).
 *
 * <p>Why not through {@link ByteBuf} calls alone: markers cut a 64 KiB ULPDU into 128 pieces of
 * at most 508 octets, and a {@code getBytes} per piece pays the buffer's index checks, the pooled
 * buffer's delegation to its chunk and, under the leak detector, a record, 128 times per FPDU;
 * the CRC was a second pass over the whole FPDU. When both buffers have a memory address (pooled
 * direct memory, the usual case) the pieces are copied and the markers written or read by
 * address, and the CRC runs over one NIO view of the FPDU (fresh, never a buffer's cached one:
 * registered memory may be read by several event loops at once) in blocks of {@code crcBlock}
 * octets just behind (send) or ahead of (receive) the copy, so that each block is read from the
 * cache the copy has just filled; a block ends where a piece ends, so the CRC is fed the octets in
 * stream order. Creating NIO views costs more than it seems here ({@code DirectByteBuffer.slice}
 * showed in every profile), so there is one per FPDU, as before.
 *
 * <p>Otherwise (heap memory, an FPDU that spans two reads of a composite cumulation, a body that
 * is a composite) the per-piece views of the source are walked in order, a marker possibly
 * straddling two of them. One instance per encoder or decoder; not thread-safe.
 */
public final class MarkedCopy {

    /** Octets the CRC takes per call, about: small enough to stay in the level-1 cache. */
    public static final int DEFAULT_CRC_BLOCK = 4096;

    /** Netty can copy by address (sun.misc.Unsafe is usable). */
    private static final boolean ADDRESSES = PlatformDependent.hasUnsafe();

    private final int crcBlock;
    /** The source's views, in order; {@code ends[i]} is the source offset just past view i. */
    private ByteBuffer[] parts = new ByteBuffer[2];
    private int[] bases = new int[2];
    private int[] ends = new int[2];
    private int count;
    /** The view the last access fell in: accesses go forward, so the search starts there. */
    private int current;

    public MarkedCopy() {
        this(DEFAULT_CRC_BLOCK);
    }

    /** @param crcBlock octets per CRC call (at least 1; {@link Integer#MAX_VALUE}: one pass at the end) */
    public MarkedCopy(int crcBlock) {
        if (crcBlock < 1) {
            throw new IllegalArgumentException("crcBlock " + crcBlock);
        }
        this.crcBlock = crcBlock;
    }

    /**
     * The whole FPDU in one new direct buffer of exactly its wire length: a leading marker if the
     * stream is at a marker position (it belongs to this FPDU, FPDUPTR 0, §4.4 rule 2),
     * ULPDU_Length, the ULPDU ({@code header} then {@code body}'s readable octets) cut by markers,
     * PAD (zero), a marker right after PAD if one falls there (§4.4 rule 3), the CRC
     * least-significant octet first (zero when {@code crc} is null, §4.4 allows any value).
     * {@code body} is neither released nor moved.
     *
     * @param streamOffset this direction's stream offset (from SeqStart) of the FPDU's first octet
     * @param markers whether markers are in use in this direction
     * @param crc the CRC to compute (reset here), or null
     */
    public ByteBuf encode(ByteBufAllocator alloc, byte[] header, ByteBuf body, long streamOffset, boolean markers,
                          CRC32C crc) {
        int headerLength = header.length;
        int bodyLength = body.readableBytes();
        int length = headerLength + bodyLength;
        int pad = (4 - ((ULPDU_LENGTH_FIELD + length) & 3)) & 3;
        int lead = markers && isMarkerOffset(streamOffset) ? MARKER_LENGTH : 0;
        long fpduStart = streamOffset + lead;
        int preCrc = ULPDU_LENGTH_FIELD + length + pad;
        int inner = markers ? markersBeforeCrc(fpduStart, preCrc) : 0;
        int wireLength = lead + preCrc + MARKER_LENGTH * inner + CRC_LENGTH;
        ByteBuf out = alloc.directBuffer(wireLength, wireLength);
        if (ADDRESSES && out.hasMemoryAddress() && (bodyLength == 0 || body.hasMemoryAddress())) {
            try {
                return encodeByAddress(out, header, body, length, pad, lead, fpduStart, wireLength, markers, crc);
            } catch (Throwable t) {
                out.release();
                throw t;
            }
        }
        try {
            ByteBuffer view = out.nioBuffer(0, wireLength).order(ByteOrder.BIG_ENDIAN);
            int base = view.position();
            int w = base;
            if (bodyLength != 0) {
                source(body, body.readerIndex(), bodyLength);
            }
            if (crc != null) {
                crc.reset();
            }
            int crcDone = base;
            if (lead != 0) {
                view.putInt(w, 0);
                w += MARKER_LENGTH;
            }
            view.putShort(w, (short) length);
            w += ULPDU_LENGTH_FIELD;
            long pos = fpduStart + ULPDU_LENGTH_FIELD;
            long next = markers ? markerAtOrAfter(pos) : Long.MAX_VALUE;
            int taken = 0;
            while (taken < length) {
                if (pos == next) {
                    view.putInt(w, (int) (pos - fpduStart) & 0xFFFF);
                    w += MARKER_LENGTH;
                    pos += MARKER_LENGTH;
                    next += MARKER_INTERVAL;
                    continue;
                }
                int chunk = (int) Math.min(length - taken, next - pos);
                if (taken < headerLength) {
                    chunk = Math.min(chunk, headerLength - taken);
                    view.put(w, header, taken, chunk);
                } else {
                    copy(taken - headerLength, view, w, chunk);
                }
                taken += chunk;
                pos += chunk;
                w += chunk;
                if (crc != null && w - crcDone >= crcBlock) {
                    update(crc, view, crcDone, w, base + wireLength);
                    crcDone = w;
                }
            }
            for (int i = 0; i < pad; i++) { // the buffer is pooled memory, not zeroed
                view.put(w++, (byte) 0);
            }
            pos += pad;
            if (markers && isMarkerOffset(pos)) {
                view.putInt(w, (int) (pos - fpduStart) & 0xFFFF);
                w += MARKER_LENGTH;
            }
            int crcValue = 0;
            if (crc != null) {
                update(crc, view, crcDone, w, base + wireLength);
                crcValue = (int) crc.getValue();
            }
            view.putInt(w, Integer.reverseBytes(crcValue));
            return out.writerIndex(wireLength);
        } catch (Throwable t) {
            out.release();
            throw t;
        } finally {
            clear();
        }
    }

    /**
     * Copies the ULPDU of the FPDU at {@code fpdu[base, base + wireLength)} into {@code ulpdu}
     * (written from index 0, its writer index set to {@code length}), leaving out every marker;
     * when {@code crc} is not null, resets it and feeds it the FPDU's octets before the CRC field,
     * markers included, for the caller to compare (the CRC is the caller's first check, MPA-R-030).
     * Checks every marker's FPDUPTR as {@code MpaFrameDecoder} did over the ByteBuf: a leading one
     * is 0, the others the distance back to ULPDU_Length, the two low bits ignored (MPA-R-014,
     * MPA-R-017, MPA-R-018).
     *
     * @param streamOffset the stream offset of {@code fpdu[base]} (of the leading marker if any)
     * @param lead 4 if a marker leads the FPDU, else 0
     * @param innerMarkers the markers after ULPDU_Length, up to the one just before the CRC
     * @return whether every marker points at this FPDU
     */
    public boolean decode(ByteBuf fpdu, int base, int wireLength, long streamOffset, int lead, int length,
                          int innerMarkers, ByteBuf ulpdu, CRC32C crc) {
        if (ADDRESSES && fpdu.hasMemoryAddress() && ulpdu.hasMemoryAddress()) {
            return decodeByAddress(fpdu, base, wireLength, streamOffset, lead, length, innerMarkers, ulpdu, crc);
        }
        source(fpdu, base, wireLength);
        try {
            long fpduStart = streamOffset + lead;
            int crcEnd = wireLength - CRC_LENGTH;
            int crcDone = 0;
            if (crc != null) {
                crc.reset();
            }
            if (length != 0) {
                ByteBuffer to = ulpdu.nioBuffer(0, length);
                int d = to.position();
                long pos = fpduStart + ULPDU_LENGTH_FIELD;
                int r = lead + ULPDU_LENGTH_FIELD; // source offset of pos
                long next = markerAtOrAfter(pos);
                int remaining = length;
                while (remaining > 0) {
                    if (pos == next) {
                        pos += MARKER_LENGTH;
                        r += MARKER_LENGTH;
                        next += MARKER_INTERVAL;
                        continue;
                    }
                    int chunk = (int) Math.min(remaining, next - pos);
                    if (crc != null && crcDone < r + chunk) {
                        int until = Math.min(crcEnd, Math.max(r + chunk, crcDone + crcBlock));
                        updateSource(crc, crcDone, until);
                        crcDone = until;
                    }
                    copy(r, to, d, chunk);
                    pos += chunk;
                    r += chunk;
                    d += chunk;
                    remaining -= chunk;
                }
            }
            ulpdu.writerIndex(length);
            if (crc != null) {
                updateSource(crc, crcDone, crcEnd);
            }
            if (lead != 0 && (unsignedShort(2) & ~3) != 0) {
                return false;
            }
            long marker = markerAtOrAfter(fpduStart + 1);
            for (int i = 0; i < innerMarkers; i++, marker += MARKER_INTERVAL) {
                if ((unsignedShort((int) (marker - streamOffset) + 2) & ~3) != marker - fpduStart) {
                    return false;
                }
            }
            return true;
        } finally {
            clear();
        }
    }

    private ByteBuf encodeByAddress(ByteBuf out, byte[] header, ByteBuf body, int length, int pad, int lead,
                                    long fpduStart, int wireLength, boolean markers, CRC32C crc) {
        int headerLength = header.length;
        long o = out.memoryAddress();
        long b = length > headerLength ? body.memoryAddress() + body.readerIndex() : 0;
        ByteBuffer view = null;
        int base = 0;
        if (crc != null) {
            crc.reset();
            view = out.nioBuffer(0, wireLength);
            base = view.position();
        }
        int crcDone = 0;
        int w = 0;
        if (lead != 0) {
            putInt(o, 0);
            w = MARKER_LENGTH;
        }
        putShort(o + w, length);
        w += ULPDU_LENGTH_FIELD;
        long pos = fpduStart + ULPDU_LENGTH_FIELD;
        long next = markers ? markerAtOrAfter(pos) : Long.MAX_VALUE;
        int taken = 0;
        while (taken < length) {
            if (pos == next) {
                putInt(o + w, (int) (pos - fpduStart) & 0xFFFF);
                w += MARKER_LENGTH;
                pos += MARKER_LENGTH;
                next += MARKER_INTERVAL;
                continue;
            }
            int chunk = (int) Math.min(length - taken, next - pos);
            if (taken < headerLength) {
                chunk = Math.min(chunk, headerLength - taken);
                PlatformDependent.copyMemory(header, taken, o + w, chunk);
            } else {
                PlatformDependent.copyMemory(b + taken - headerLength, o + w, chunk);
            }
            taken += chunk;
            pos += chunk;
            w += chunk;
            if (crc != null && w - crcDone >= crcBlock) {
                update(crc, view, base + crcDone, base + w, base + wireLength);
                crcDone = w;
            }
        }
        if (pad != 0) { // pooled memory is not zeroed
            PlatformDependent.setMemory(o + w, pad, (byte) 0);
            w += pad;
            pos += pad;
        }
        if (markers && isMarkerOffset(pos)) {
            putInt(o + w, (int) (pos - fpduStart) & 0xFFFF);
            w += MARKER_LENGTH;
        }
        int crcValue = 0;
        if (crc != null) {
            update(crc, view, base + crcDone, base + w, base + wireLength);
            crcValue = (int) crc.getValue();
        }
        putInt(o + w, Integer.reverseBytes(crcValue)); // least-significant octet first
        return out.writerIndex(wireLength);
    }

    /** The address path's decode: see {@link #decode}. */
    private boolean decodeByAddress(ByteBuf fpdu, int base, int wireLength, long streamOffset, int lead,
                                    int length, int innerMarkers, ByteBuf ulpdu, CRC32C crc) {
        long f = fpdu.memoryAddress() + base;
        long fpduStart = streamOffset + lead;
        int crcEnd = wireLength - CRC_LENGTH;
        ByteBuffer view = null;
        int viewBase = 0;
        if (crc != null) {
            crc.reset();
            view = fpdu.nioBuffer(base, wireLength);
            viewBase = view.position();
        }
        int crcDone = 0;
        if (length != 0) {
            long u = ulpdu.memoryAddress();
            long pos = fpduStart + ULPDU_LENGTH_FIELD;
            int r = lead + ULPDU_LENGTH_FIELD; // FPDU offset of pos
            int d = 0;
            long next = markerAtOrAfter(pos);
            while (d < length) {
                if (pos == next) {
                    pos += MARKER_LENGTH;
                    r += MARKER_LENGTH;
                    next += MARKER_INTERVAL;
                    continue;
                }
                int chunk = (int) Math.min(length - d, next - pos);
                if (crc != null && crcDone < r + chunk) {
                    int until = Math.min(crcEnd, Math.max(r + chunk, crcDone + crcBlock));
                    update(crc, view, viewBase + crcDone, viewBase + until, viewBase + wireLength);
                    crcDone = until;
                }
                PlatformDependent.copyMemory(f + r, u + d, chunk);
                pos += chunk;
                r += chunk;
                d += chunk;
            }
        }
        ulpdu.writerIndex(length);
        if (crc != null) {
            update(crc, view, viewBase + crcDone, viewBase + crcEnd, viewBase + wireLength);
        }
        if (lead != 0 && (getUnsignedShort(f + 2) & ~3) != 0) {
            return false;
        }
        long marker = markerAtOrAfter(fpduStart + 1);
        for (int i = 0; i < innerMarkers; i++, marker += MARKER_INTERVAL) {
            if ((getUnsignedShort(f + (marker - streamOffset) + 2) & ~3) != marker - fpduStart) {
                return false;
            }
        }
        return true;
    }

    private static void putInt(long address, int value) {
        PlatformDependent.putInt(address, PlatformDependent.BIG_ENDIAN_NATIVE_ORDER ? value : Integer.reverseBytes(value));
    }

    private static void putShort(long address, int value) {
        short v = (short) value;
        PlatformDependent.putShort(address, PlatformDependent.BIG_ENDIAN_NATIVE_ORDER ? v : Short.reverseBytes(v));
    }

    private static int getUnsignedShort(long address) {
        short v = PlatformDependent.getShort(address);
        return (PlatformDependent.BIG_ENDIAN_NATIVE_ORDER ? v : Short.reverseBytes(v)) & 0xFFFF;
    }

    /** Takes {@code buf[index, index + length)} as the source, as fresh NIO views. */
    private void source(ByteBuf buf, int index, int length) {
        if (buf.nioBufferCount() == 1) {
            add(0, buf.nioBuffer(index, length), 0);
        } else {
            ByteBuffer[] views = buf.nioBuffers(index, length);
            count = 0;
            int end = 0;
            for (ByteBuffer view : views) {
                if (view.hasRemaining()) {
                    end = add(count, view, end);
                }
            }
            if (end != length) {
                clear();
                throw new IllegalStateException("views of " + end + " octets for " + length);
            }
        }
    }

    private int add(int i, ByteBuffer view, int start) {
        if (i == parts.length) {
            parts = java.util.Arrays.copyOf(parts, 2 * i);
            bases = java.util.Arrays.copyOf(bases, 2 * i);
            ends = java.util.Arrays.copyOf(ends, 2 * i);
        }
        parts[i] = view.order(ByteOrder.BIG_ENDIAN);
        bases[i] = view.position();
        ends[i] = start + view.remaining();
        count = i + 1;
        current = 0;
        return ends[i];
    }

    /** Drops the views: they must not keep the source's memory reachable. */
    private void clear() {
        for (int i = 0; i < count; i++) {
            parts[i] = null;
        }
        count = 0;
        current = 0;
    }

    /** The index of the view that holds source offset {@code offset}. */
    private int part(int offset) {
        int i = current;
        while (offset >= ends[i]) {
            i++;
        }
        while (i > 0 && offset < ends[i - 1]) {
            i--;
        }
        current = i;
        return i;
    }

    private int start(int i) {
        return i == 0 ? 0 : ends[i - 1];
    }

    private void copy(int from, ByteBuffer to, int toIndex, int n) {
        while (n > 0) {
            int i = part(from);
            int k = Math.min(n, ends[i] - from);
            to.put(toIndex, parts[i], bases[i] + from - start(i), k);
            from += k;
            toIndex += k;
            n -= k;
        }
    }

    private void updateSource(CRC32C crc, int from, int to) {
        while (from < to) {
            int i = part(from);
            int k = Math.min(to, ends[i]) - from;
            int index = bases[i] + from - start(i);
            update(crc, parts[i], index, index + k, bases[i] + ends[i] - start(i));
            from += k;
        }
    }

    private int unsignedShort(int offset) {
        int i = part(offset);
        if (offset + 2 <= ends[i]) {
            return parts[i].getShort(bases[i] + offset - start(i)) & 0xFFFF;
        }
        return (unsignedByte(offset) << 8) | unsignedByte(offset + 1);
    }

    private int unsignedByte(int offset) {
        int i = part(offset);
        return parts[i].get(bases[i] + offset - start(i)) & 0xFF;
    }

    /** CRC over {@code view[from, to)}; the view's limit is {@code limit} again afterwards. */
    private static void update(CRC32C crc, ByteBuffer view, int from, int to, int limit) {
        if (from == to) {
            return;
        }
        view.limit(to);
        view.position(from);
        crc.update(view);
        view.limit(limit);
    }
}
