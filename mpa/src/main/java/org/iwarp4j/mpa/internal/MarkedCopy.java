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
import java.util.zip.CRC32C;

/**
 * The copies of the contiguous FPDU path (RFC 5044 §4.1, §4.3, §4.4): a ULPDU into one FPDU buffer
 * with ULPDU_Length, PAD, a marker at every 512th octet of the stream and the CRC; and the reverse,
 * an FPDU's ULPDU copied out from between its markers, with every marker's FPDUPTR checked and the
 * CRC computed over the FPDU as received, markers included (§6.4).
 *
 * <p>Why not through {@link ByteBuf} calls alone: markers cut a 64 KiB ULPDU into 128 pieces of
 * at most 508 octets, and a {@code getBytes} per piece (and a {@code getUnsignedShort} per marker)
 * pays the buffer's index checks, the pooled buffer's delegation to its chunk and, under the leak
 * detector, a record, 128 times per FPDU. When both buffers have a memory address (pooled direct
 * memory, the usual case) the pieces are copied and the markers written or read by address; the
 * CRC runs in one pass over one fresh NIO view of the FPDU (never a buffer's cached view:
 * registered memory may be read by several event loops at once). Views are not used for the
 * pieces: creating them ({@code DirectByteBuffer.slice}) cost more than the per-piece calls they
 * replaced. Running the CRC in 4 KiB blocks next to the copy, so that it reads what the copy had
 * just brought into the cache, measured no better than one pass and was dropped.
 *
 * <p>Otherwise (heap memory, an FPDU that spans two reads of a composite cumulation, a composite
 * body) the pieces go through the ByteBufs as before. Stateless apart from the caller's CRC.
 */
public final class MarkedCopy {

    /** Netty can copy by address (sun.misc.Unsafe is usable). */
    private static final boolean ADDRESSES = PlatformDependent.hasUnsafe();

    private MarkedCopy() {
    }

    /**
     * The whole FPDU in one new direct buffer of exactly its wire length: a leading marker if the
     * stream is at a marker position (it belongs to this FPDU, FPDUPTR 0, §4.4 rule 2; so the
     * first FPDU of Full Operation starts with one, MPA-R-019), ULPDU_Length, the ULPDU ({@code
     * header} then {@code body}'s readable octets) cut by markers that all point back at this
     * FPDU's ULPDU_Length (MPA-R-020, MPA-R-021), PAD (zero, MPA-R-011), a marker right after PAD
     * if one falls there (§4.4 rule 3), the CRC over all of that, markers included (MPA-R-029),
     * least-significant octet first (zero when {@code crc} is null, §4.4 allows any value).
     * {@code body} is neither released nor moved.
     *
     * @param streamOffset this direction's stream offset (from SeqStart) of the FPDU's first octet
     * @param markers whether markers are in use in this direction
     * @param crc the CRC to compute (reset here), or null
     */
    public static ByteBuf encode(ByteBufAllocator alloc, byte[] header, ByteBuf body, long streamOffset, boolean markers,
                          CRC32C crc) {
        return encode(alloc, 0, header, body, streamOffset, markers, crc);
    }

    /**
     * As {@link #encode(ByteBufAllocator, byte[], ByteBuf, long, boolean, CRC32C)}, the FPDU
     * written after {@code reserve} octets that are left for the caller to fill (the encoder puts
     * the previous FPDU's PAD and CRC there, so that both go in one buffer); the writer index is
     * {@code reserve} plus the FPDU's wire length, the CRC covers the FPDU alone.
     */
    public static ByteBuf encode(ByteBufAllocator alloc, int reserve, byte[] header, ByteBuf body, long streamOffset,
                                 boolean markers, CRC32C crc) {
        int wireLength = wireLength(header.length + body.readableBytes(), streamOffset, markers);
        return encodeInto(alloc.directBuffer(reserve + wireLength, reserve + wireLength), reserve, header, body,
                streamOffset, markers, crc);
    }

    /**
     * The FPDU's octets on the wire for a ULPDU of {@code length} octets starting at this stream
     * offset: leading marker if any, ULPDU_Length, ULPDU, PAD, the markers inside and right after
     * PAD, CRC.
     */
    public static int wireLength(int length, long streamOffset, boolean markers) {
        int pad = (4 - ((ULPDU_LENGTH_FIELD + length) & 3)) & 3;
        int lead = markers && isMarkerOffset(streamOffset) ? MARKER_LENGTH : 0;
        int preCrc = ULPDU_LENGTH_FIELD + length + pad;
        int inner = markers ? markersBeforeCrc(streamOffset + lead, preCrc) : 0;
        return lead + preCrc + MARKER_LENGTH * inner + CRC_LENGTH;
    }

    /**
     * As {@link #encode(ByteBufAllocator, byte[], ByteBuf, long, boolean, CRC32C)}, into {@code out}:
     * an empty direct buffer of at least {@link #wireLength} writable octets from index 0, released
     * here if this fails.
     */
    public static ByteBuf encodeInto(ByteBuf out, byte[] header, ByteBuf body, long streamOffset, boolean markers,
                                     CRC32C crc) {
        return encodeInto(out, 0, header, body, streamOffset, markers, crc);
    }

    /**
     * As {@link #encode(ByteBufAllocator, int, byte[], ByteBuf, long, boolean, CRC32C)}, into {@code
     * out}: an empty direct buffer of at least {@code reserve} + {@link #wireLength} writable octets
     * from index 0, released here if this fails.
     */
    public static ByteBuf encodeInto(ByteBuf out, int reserve, byte[] header, ByteBuf body, long streamOffset,
                                     boolean markers, CRC32C crc) {
        int headerLength = header.length;
        int bodyLength = body.readableBytes();
        int length = headerLength + bodyLength;
        int pad = (4 - ((ULPDU_LENGTH_FIELD + length) & 3)) & 3;
        int lead = markers && isMarkerOffset(streamOffset) ? MARKER_LENGTH : 0;
        long fpduStart = streamOffset + lead;
        int wireLength = wireLength(length, streamOffset, markers);
        try {
            if (ADDRESSES && out.hasMemoryAddress() && (bodyLength == 0 || body.hasMemoryAddress())) {
                return encodeByAddress(out, reserve, header, body, length, pad, lead, fpduStart, wireLength, markers,
                        crc);
            }
            return encodeByPieces(out.writerIndex(reserve), header, body, length, pad, lead, fpduStart, wireLength,
                    markers, crc);
        } catch (Throwable t) {
            out.release();
            throw t;
        }
    }

    /** Without memory addresses (heap or composite body, or no Unsafe: Java 24+): piece by piece, through views. */
    private static ByteBuf encodeByPieces(ByteBuf out, byte[] header, ByteBuf body, int length, int pad, int lead,
                                          long fpduStart, int wireLength, boolean markers, CRC32C crc) {
        int headerLength = header.length;
        int reserve = out.writerIndex();
        // One view of each for the whole FPDU, rather than a view per chunk inside getBytes: without
        // Unsafe (Java 24+) this is the markers path of every FPDU, and a chunk is at most 508 octets.
        ByteBuffer to = null;
        ByteBuffer from = null;
        if (body.nioBufferCount() == 1 && out.nioBufferCount() == 1 && length > headerLength
                && out.capacity() - reserve >= wireLength) {
            to = out.nioBuffer(reserve, out.capacity() - reserve);
            from = body.nioBuffer(body.readerIndex(), length - headerLength);
        }
        if (lead != 0) {
            out.writeInt(0);
        }
        out.writeShort(length);
        long pos = fpduStart + ULPDU_LENGTH_FIELD;
        int taken = 0;
        while (taken < length) {
            long next = markers ? markerAtOrAfter(pos) : Long.MAX_VALUE;
            if (next == pos) {
                out.writeShort(0).writeShort((int) (pos - fpduStart));
                pos += MARKER_LENGTH;
                continue;
            }
            int chunk = (int) Math.min(length - taken, next - pos);
            if (taken < headerLength) {
                chunk = Math.min(chunk, headerLength - taken);
                for (int k = 0; k < chunk; k++) {
                    out.writeByte(header[taken + k]);
                }
            } else if (to != null) {
                to.put(out.writerIndex() - reserve, from, taken - headerLength, chunk);
                out.writerIndex(out.writerIndex() + chunk);
            } else {
                body.getBytes(body.readerIndex() + taken - headerLength, out, out.writerIndex(), chunk);
                out.writerIndex(out.writerIndex() + chunk);
            }
            taken += chunk;
            pos += chunk;
        }
        out.writeZero(pad);
        pos += pad;
        if (markers && isMarkerOffset(pos)) {
            out.writeShort(0).writeShort((int) (pos - fpduStart));
        }
        int crcValue = 0;
        if (crc != null) {
            crc.reset();
            ByteBufCrc32c.update(crc, out, reserve, out.writerIndex() - reserve);
            crcValue = (int) crc.getValue();
        }
        return out.writeIntLE(crcValue);
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
    public static boolean decode(ByteBuf fpdu, int base, int wireLength, long streamOffset, int lead, int length,
                          int innerMarkers, ByteBuf ulpdu, CRC32C crc) {
        if (ADDRESSES && fpdu.hasMemoryAddress() && ulpdu.hasMemoryAddress()) {
            return decodeByAddress(fpdu, base, wireLength, streamOffset, lead, length, innerMarkers, ulpdu, crc);
        }
        return decodeByPieces(fpdu, base, wireLength, streamOffset, lead, length, innerMarkers, ulpdu, crc);
    }

    /**
     * Every marker of the FPDU at {@code in[start]} (stream offset {@code streamOffset}, of its
     * leading marker if {@code lead} is 4): a leading one has FPDUPTR 0, the others the distance
     * back to the ULPDU_Length field; the two low bits are ignored (MPA-R-014, MPA-R-017,
     * MPA-R-018).
     */
    public static boolean markersPointAt(ByteBuf in, int start, long streamOffset, int lead, int innerMarkers) {
        long fpduStart = streamOffset + lead;
        if (ADDRESSES && in.hasMemoryAddress()) {
            return markersPointAt(in.memoryAddress() + start, streamOffset, fpduStart, lead, innerMarkers);
        }
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

    /** {@link #markersPointAt(ByteBuf, int, long, int, int)} by address: {@code f} is the FPDU's first octet. */
    private static boolean markersPointAt(long f, long streamOffset, long fpduStart, int lead, int innerMarkers) {
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

    /** Whether {@link #removeMarkersInPlace} works on direct buffers here (Netty can use their addresses). */
    public static boolean removesInPlaceInDirectMemory() {
        return ADDRESSES;
    }

    /**
     * Whether {@link #removeMarkersInPlace} can work on {@code fpdu}: it has a memory address and
     * may be written (the decoder owns its receive buffers; a read-only one is copied instead).
     */
    public static boolean canRemoveInPlace(ByteBuf fpdu) {
        return ADDRESSES && fpdu.hasMemoryAddress() && !fpdu.isReadOnly();
    }

    /**
     * Removes the markers of the FPDU at {@code fpdu[base]} where it lies: the ULPDU's pieces
     * between markers are moved towards its start, each by 4 octets per marker before it, so that
     * afterwards {@code fpdu[base + lead + 2, + length)} holds the ULPDU without markers
     * (MPA-R-022). Only after the CRC over the octets as received, markers included, has been
     * checked (MPA-R-030) and every FPDUPTR with {@link #markersPointAt} (MPA-R-014, MPA-R-017,
     * MPA-R-018): the move overwrites the markers and leaves stale octets between the ULPDU's new
     * end and the CRC field. The pieces are at most 508 octets and were just read by the CRC, so
     * the move runs in the cache, where copying into a fresh buffer wrote cold memory (and, at
     * 64 KiB per FPDU, made the allocator take and zero new chunks). Caller checks {@link
     * #canRemoveInPlace}.
     *
     * @param streamOffset the stream offset of {@code fpdu[base]} (of the leading marker if any)
     * @param lead 4 if a marker leads the FPDU, else 0
     */
    public static void removeMarkersInPlace(ByteBuf fpdu, int base, long streamOffset, int lead, int length) {
        long f = fpdu.memoryAddress() + base;
        long fpduStart = streamOffset + lead;
        long u = f + lead + ULPDU_LENGTH_FIELD;
        long pos = fpduStart + ULPDU_LENGTH_FIELD;
        long next = markerAtOrAfter(pos);
        int d = 0;
        while (d < length) {
            if (pos == next) {
                pos += MARKER_LENGTH;
                next += MARKER_INTERVAL;
                continue;
            }
            int chunk = (int) Math.min(length - d, next - pos);
            long src = f + (pos - streamOffset);
            if (src != u + d) {
                // Overlapping ranges, destination first: Unsafe.copyMemory copies as memmove does.
                PlatformDependent.copyMemory(src, u + d, chunk);
            }
            pos += chunk;
            d += chunk;
        }
    }

    /**
     * Without memory addresses (heap or read-only memory, or no usable Unsafe): the CRC in
     * one pass, the FPDUPTRs by {@code getUnsignedShort}, the pieces by {@code getBytes}.
     */
    private static boolean decodeByPieces(ByteBuf in, int start, int wireLength, long streamOffset, int lead,
                                          int length, int innerMarkers, ByteBuf ulpdu, CRC32C crc) {
        if (crc != null) {
            crc.reset();
            ByteBufCrc32c.update(crc, in, start, wireLength - CRC_LENGTH);
        }
        long fpduStart = streamOffset + lead;
        if (!markersPointAt(in, start, streamOffset, lead, innerMarkers)) {
            return false;
        }
        long pos = fpduStart + ULPDU_LENGTH_FIELD;
        int remaining = length;
        // As in encodeByPieces: one view of each (a composite FPDU, cut by two reads, has none).
        ByteBuffer from = null;
        ByteBuffer to = null;
        int toBase = ulpdu.writerIndex();
        if (in.nioBufferCount() == 1 && ulpdu.nioBufferCount() == 1 && ulpdu.capacity() - toBase >= length) {
            from = in.nioBuffer(start, wireLength);
            to = ulpdu.nioBuffer(toBase, length);
        }
        while (remaining > 0) {
            long next = markerAtOrAfter(pos);
            if (next == pos) {
                pos += MARKER_LENGTH;
                continue;
            }
            int chunk = (int) Math.min(remaining, next - pos);
            if (to != null) {
                to.put(ulpdu.writerIndex() - toBase, from, (int) (pos - streamOffset), chunk);
            } else {
                in.getBytes(start + (int) (pos - streamOffset), ulpdu, ulpdu.writerIndex(), chunk);
            }
            ulpdu.writerIndex(ulpdu.writerIndex() + chunk);
            pos += chunk;
            remaining -= chunk;
        }
        return true;
    }

    private static ByteBuf encodeByAddress(ByteBuf out, int reserve, byte[] header, ByteBuf body, int length, int pad,
                                           int lead, long fpduStart, int wireLength, boolean markers, CRC32C crc) {
        int headerLength = header.length;
        long o = out.memoryAddress() + reserve;
        long b = length > headerLength ? body.memoryAddress() + body.readerIndex() : 0;
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
        }
        // Pooled memory is not zeroed. At most 3 octets: Unsafe.setMemory would be a native call each.
        for (int i = 0; i < pad; i++) {
            PlatformDependent.putByte(o + w++, (byte) 0);
        }
        pos += pad;
        if (markers && isMarkerOffset(pos)) {
            putInt(o + w, (int) (pos - fpduStart) & 0xFFFF);
            w += MARKER_LENGTH;
        }
        int crcValue = 0;
        if (crc != null) {
            crc.reset();
            ByteBufCrc32c.update(crc, out, reserve, w);
            crcValue = (int) crc.getValue();
        }
        putInt(o + w, Integer.reverseBytes(crcValue)); // least-significant octet first
        return out.writerIndex(reserve + wireLength);
    }

    /** The address path of {@link #decode}: as {@link #decodeByPieces}, the pieces and FPDUPTRs by address. */
    private static boolean decodeByAddress(ByteBuf fpdu, int base, int wireLength, long streamOffset, int lead,
                                           int length, int innerMarkers, ByteBuf ulpdu, CRC32C crc) {
        if (crc != null) {
            crc.reset();
            ByteBufCrc32c.update(crc, fpdu, base, wireLength - CRC_LENGTH);
        }
        long f = fpdu.memoryAddress() + base;
        long fpduStart = streamOffset + lead;
        if (!markersPointAt(f, streamOffset, fpduStart, lead, innerMarkers)) {
            return false;
        }
        long u = ulpdu.memoryAddress();
        long pos = fpduStart + ULPDU_LENGTH_FIELD;
        int d = 0;
        while (d < length) {
            long next = markerAtOrAfter(pos);
            if (next == pos) {
                pos += MARKER_LENGTH;
                continue;
            }
            int chunk = (int) Math.min(length - d, next - pos);
            PlatformDependent.copyMemory(f + (pos - streamOffset), u + d, chunk);
            pos += chunk;
            d += chunk;
        }
        ulpdu.writerIndex(length);
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
}
