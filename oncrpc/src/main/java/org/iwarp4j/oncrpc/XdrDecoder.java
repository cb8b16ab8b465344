package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/**
 * Reads XDR (RFC 4506) items from a buffer, with bounded decoding: every length is checked
 * against the caller's declared maximum and against the octets that remain <em>before</em>
 * anything is allocated, so a hostile length costs nothing but an {@link XdrException}.
 *
 * <p>The decoder borrows its buffer: it advances the buffer's reader index and never releases
 * it; buffers it returns ({@link #readOpaqueBuf}, {@link #readDdpEligibleOpaque}) are new
 * references the caller releases. Not thread-safe.
 */
public final class XdrDecoder {

    private final ByteBuf in;
    /** Reduced items not yet taken, or null if the stream had none. */
    private final Deque<ByteBuf> reducedItems;
    /**
     * Where each placed item's data starts in {@link #in} (the DDP-eligible pieces of a received
     * message: in a Call, the data of its Read chunks), in stream order, and its length; empty if none.
     */
    private final int[] placedStarts;
    private final int[] placedLengths;
    /** The stream index {@link #placedStarts} are relative to, for messages. */
    private final int streamStart;
    private int placedNext;
    /** Where the next placed item not yet taken starts; no other read may reach it. MAX_VALUE if none. */
    private int placedLimit = Integer.MAX_VALUE;
    /** Set once placed data was read as something else; never cleared. */
    private String placedViolation;

    /** A decoder over the readable bytes of {@code in}. */
    public XdrDecoder(ByteBuf in) {
        this(in, List.of());
    }

    /**
     * A decoder over a reduced stream whose DDP-eligible items are given separately, in order
     * (see {@link XdrMessage#ofReduced}); the items are borrowed like the stream.
     */
    public XdrDecoder(ByteBuf in, List<ByteBuf> reducedItems) {
        this(in, reducedItems, NONE, NONE);
    }

    /**
     * A decoder over {@code stream}, the {@link XdrMessage#stream()} of {@code message} (both
     * borrowed), that knows its reduced items and where its DDP-eligible pieces lie. In a received
     * Call those pieces are the data the transport placed from Read chunks, which only
     * {@link #readDdpEligibleOpaque} may take, exactly at its item (RFC 8166 §6.1, RPC-R-073):
     * any other read that would reach a placed item's data throws {@link XdrException}, and
     * {@link #placedDataViolation()} then says why the Call must not be processed. Finding the
     * places costs a pass over the pieces, not over the octets.
     */
    public XdrDecoder(XdrMessage message, ByteBuf stream) {
        this(stream, message.reducedItems(), placedStarts(message), placedLengths(message));
    }

    private static final int[] NONE = new int[0];

    private XdrDecoder(ByteBuf in, List<ByteBuf> reducedItems, int[] placedStarts, int[] placedLengths) {
        this.in = in;
        this.reducedItems = reducedItems.isEmpty() ? null : new ArrayDeque<>(reducedItems);
        this.streamStart = in.readerIndex();
        this.placedStarts = placedStarts;
        this.placedLengths = placedLengths;
        if (placedStarts.length > 0) {
            placedLimit = streamStart + placedStarts[0];
        }
    }

    private static int[] placedStarts(XdrMessage message) {
        if (!message.hasDdpEligiblePieces()) {
            return NONE;
        }
        List<XdrPiece> pieces = message.pieces();
        int[] starts = new int[pieces.size()];
        int n = 0;
        int position = 0;
        for (XdrPiece piece : pieces) {
            if (piece.ddpEligible()) {
                starts[n++] = position;
            }
            position += piece.streamLength();
        }
        return java.util.Arrays.copyOf(starts, n);
    }

    private static int[] placedLengths(XdrMessage message) {
        if (!message.hasDdpEligiblePieces()) {
            return NONE;
        }
        int[] lengths = new int[message.pieces().size()];
        int n = 0;
        for (XdrPiece piece : message.pieces()) {
            if (piece.ddpEligible()) {
                lengths[n++] = piece.data().readableBytes();
            }
        }
        return java.util.Arrays.copyOf(lengths, n);
    }

    /**
     * Why the message must not be processed, or null (RFC 8166 §6.1, RPC-R-073): placed data (a
     * Read chunk's) was read as an item that is not DDP-eligible, or the reading reached it and
     * stopped there, leaving it to no item. Placed data beyond where the reading stopped is not
     * judged: a procedure may stop early (an NFSv4 COMPOUND stops at its first failing operation).
     */
    public String placedDataViolation() {
        if (placedViolation == null && in.readerIndex() >= placedLimit) {
            placedViolation = "Read chunk data at stream offset " + (placedLimit - streamStart)
                    + " left to no DDP-eligible item (RFC 8166 §6.1)";
        }
        return placedViolation;
    }

    /**
     * Ends the decoding of a procedure's whole arguments, before anything runs (RFC 8166 §6.1,
     * RPC-R-073): placed data that no argument took (a Read chunk after the last argument, whether
     * the reading reached it or stopped short of it) means the Call must not be processed. For a
     * procedure that decodes all of its arguments before it acts; one that decodes as it runs (an
     * NFSv4 COMPOUND) cannot use it. Without placed data it does nothing.
     *
     * @throws XdrException if placed data is left; {@link #placedDataViolation()} then says why
     */
    public void argumentsDone() {
        if (placedViolation == null && placedNext < placedStarts.length) {
            placedViolation = "Read chunk data at stream offset " + (placedLimit - streamStart)
                    + " taken by no argument (RFC 8166 §6.1)";
        }
        if (placedViolation != null) {
            throw new XdrException(placedViolation);
        }
    }

    /**
     * Ends the decoding of a Reply's whole results (RFC 8166 §6.1, RPC-R-074): a Write chunk the
     * Responder returned holding data that no DDP-eligible result took (a result whose length
     * word is 0, or a status without the result, while its chunk came back filled) moved data that
     * belongs to no item of the Reply, so the RPC ends with a permanent error. It cannot be told
     * while decoding: a result of 0 octets may leave a filled chunk to a later result (RFC 8267
     * §6.4.1 pairs the k-th chunk with the k-th READ). Without reduced items it does nothing.
     *
     * @throws XdrException if a filled reduced item is left
     */
    public void resultsDone() {
        if (reducedItems == null) {
            return;
        }
        for (ByteBuf item : reducedItems) {
            if (item.isReadable()) {
                throw new XdrException("Write chunk returned holding " + item.readableBytes()
                        + " octets that no result took (RFC 8166 §6.1)");
            }
        }
    }

    /** Refuses a read of {@code octets} that would reach placed data not yet taken (see {@link #XdrDecoder(XdrMessage, ByteBuf)}). */
    private void notPlaced(long octets, String what) {
        if (in.readerIndex() + octets > placedLimit) {
            placedViolation = "Read chunk data at stream offset " + (placedLimit - streamStart) + " read as " + what
                    + ", which is not DDP-eligible (RFC 8166 §6.1)";
            throw new XdrException(placedViolation);
        }
    }

    /** Octets not yet read from the stream. */
    public int remaining() {
        return in.readableBytes();
    }

    /** Whether the stream is fully read. */
    public boolean isEmpty() {
        return !in.isReadable();
    }

    /** The buffer read from (borrowed), positioned at the next item. */
    public ByteBuf buffer() {
        return in;
    }

    private void need(long octets, String what) {
        if (octets > in.readableBytes()) {
            throw new XdrException(what + " needs " + octets + " octets but only "
                    + in.readableBytes() + " remain");
        }
    }

    /** int (RFC 4506 §4.1). */
    public int readInt() {
        need(4, "int");
        notPlaced(4, "an int");
        return in.readInt();
    }

    /** unsigned int (RFC 4506 §4.2), as a long in 0 to 2^32-1. */
    public long readUnsignedInt() {
        return readInt() & 0xFFFF_FFFFL;
    }

    /** enum (RFC 4506 §4.3) as its int; the caller checks membership. */
    public int readEnum() {
        return readInt();
    }

    /** bool (RFC 4506 §4.4): only 0 and 1 are valid. */
    public boolean readBoolean() {
        int v = readInt();
        if (v == 0 || v == 1) {
            return v == 1;
        }
        throw new XdrException("bool must be 0 or 1, was " + v);
    }

    /** hyper or unsigned hyper (RFC 4506 §4.5). */
    public long readHyper() {
        need(8, "hyper");
        notPlaced(8, "a hyper");
        return in.readLong();
    }

    /** Fixed-length opaque of {@code length} octets (RFC 4506 §4.9), padding skipped. */
    public byte[] readFixedOpaque(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length < 0");
        }
        if ((long) length + XdrMessage.padding(length) > in.readableBytes()) {
            // the item's name is built only for the error: this runs for every file handle and verifier
            need((long) length + XdrMessage.padding(length), "opaque[" + length + "]");
        }
        notPlaced((long) length + XdrMessage.padding(length), "an opaque");
        byte[] data = new byte[length];
        in.readBytes(data);
        in.skipBytes(XdrMessage.padding(length));
        return data;
    }

    /** Variable-length opaque {@code opaque<max>} (RFC 4506 §4.10) copied into an array. */
    public byte[] readOpaque(int max) {
        return readFixedOpaque(readLength(max, "opaque"));
    }

    /**
     * Variable-length opaque {@code opaque<max>} as a slice of the stream, without copying; the
     * caller releases the returned buffer.
     */
    public ByteBuf readOpaqueBuf(int max) {
        int length = readLength(max, "opaque");
        if ((long) length + XdrMessage.padding(length) > in.readableBytes()) {
            need((long) length + XdrMessage.padding(length), "opaque<" + max + "> of " + length);
        }
        notPlaced((long) length + XdrMessage.padding(length), "an opaque");
        ByteBuf data = in.readRetainedSlice(length);
        in.skipBytes(XdrMessage.padding(length));
        return data;
    }

    /**
     * A variable-length opaque that the Upper-Layer Binding declares DDP-eligible: reads the
     * length word from the stream and then, if that length is not zero and a reduced item is
     * pending (RFC 8166 §3.4.6.1), takes the next non-empty reduced item as the body (its length
     * must equal the length word, RFC 8166 §3.4.6.2); otherwise reads the body from the stream like
     * {@link #readOpaqueBuf}. The caller releases the returned buffer.
     *
     * <p>An empty reduced item stands for a Write chunk the Responder returned holding nothing
     * ({@link XdrMessage#ofReduced}). A body of 0 octets takes such an item if it is next (it had
     * nothing to place, a READ at end of file). A longer body read from the stream while such an
     * item was passed and no filled one followed is a result returned inline although a Write
     * chunk was available for it: RFC 8166 §6.1 makes that a permanent error of the RPC
     * (RPC-R-074), an {@link XdrException}. Passing over it to a filled item is tolerated: RFC
     * 8267 §6.4.1 pairs the k-th chunk with the k-th READ, so an earlier READ of 0 octets leaves
     * its chunk unused.
     */
    public ByteBuf readDdpEligibleOpaque(int max) {
        int mark = in.readerIndex();
        long word = readUnsignedInt();
        if (in.readerIndex() == placedLimit) {
            return takePlaced(word, max);
        }
        in.readerIndex(mark);
        int length = readLength(max, "opaque");
        if (reducedItems != null && !reducedItems.isEmpty()) {
            if (length == 0) {
                if (!reducedItems.peekFirst().isReadable()) {
                    reducedItems.removeFirst();
                }
            } else {
                int unused = 0;
                ByteBuf item;
                while ((item = reducedItems.pollFirst()) != null && !item.isReadable()) {
                    unused++;
                }
                if (item != null) {
                    if (item.readableBytes() != length) {
                        throw new XdrException("reduced data item of " + item.readableBytes()
                                + " octets does not match its length word " + length);
                    }
                    return item.retainedDuplicate();
                }
                throw new XdrException("DDP-eligible item of " + length + " octets returned inline although "
                        + unused + " Write chunk(s) available for it came back unused (RFC 8166 §6.1)");
            }
        }
        in.readerIndex(mark);
        return readOpaqueBuf(max);
    }

    /**
     * The placed item whose data starts here, after its length word {@code word}: the chunk holds
     * the item's data with or without its roundup padding (RFC 8166 §3.4.5.2); a chunk of another
     * length does not match its stream, an {@link XdrException} (GARBAGE_ARGS, RPC-R-066). Taken
     * either way, so it is not also left to no item.
     */
    private ByteBuf takePlaced(long word, int max) {
        int placed = placedLengths[placedNext++];
        placedLimit = placedNext < placedStarts.length ? streamStart + placedStarts[placedNext] : Integer.MAX_VALUE;
        if (word > max) {
            throw new XdrException("opaque length " + word + " exceeds its maximum " + max);
        }
        int length = (int) word;
        int pad = XdrMessage.padding(length);
        if (placed != length && placed != length + pad) {
            throw new XdrException("Read chunk of " + placed + " octets does not match its length word " + length);
        }
        need((long) length + pad, "opaque<" + max + "> of " + length);
        ByteBuf data = in.readRetainedSlice(length);
        in.skipBytes(pad);
        return data;
    }

    /** string {@code string<max>} (RFC 4506 §4.11), decoded as UTF-8; max counts octets. */
    public String readString(int max) {
        int length = readLength(max, "string");
        if ((long) length + XdrMessage.padding(length) > in.readableBytes()) {
            need((long) length + XdrMessage.padding(length), "string<" + max + "> of " + length);
        }
        notPlaced((long) length + XdrMessage.padding(length), "a string");
        String s = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length + XdrMessage.padding(length));
        return s;
    }

    /** Variable-length array of int {@code int<max>} (RFC 4506 §4.13). */
    public int[] readIntArray(int max) {
        int count = readCount(max, "int array");
        notPlaced(4L * count, "an int array");
        int[] values = new int[count];
        for (int i = 0; i < count; i++) {
            values[i] = in.readInt();
        }
        return values;
    }

    /**
     * Variable-length array {@code T<max>} (RFC 4506 §4.13). Every XDR element occupies at
     * least 4 octets, so a count larger than the remaining words is rejected before the list
     * is allocated.
     */
    public <T> List<T> readArray(int max, Function<XdrDecoder, T> element) {
        int count = readCount(max, "array");
        if (count == 0) {
            return Collections.emptyList();
        }
        List<T> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(element.apply(this));
        }
        return values;
    }

    /** Optional-data {@code *T} (RFC 4506 §4.19): null when absent. */
    public <T> T readOptional(Function<XdrDecoder, T> element) {
        return readBoolean() ? element.apply(this) : null;
    }

    /** Skips {@code octets} of stream, checked. */
    public void skip(int octets) {
        need(octets, "skip");
        notPlaced(octets, "skipped octets");
        in.skipBytes(octets);
    }

    private int readLength(int max, String what) {
        long length = readUnsignedInt();
        if (length > max) {
            throw new XdrException(what + " length " + length + " exceeds its maximum " + max);
        }
        return (int) length;
    }

    private int readCount(int max, String what) {
        int count = readLength(max, what);
        if ((long) count * 4 > in.readableBytes()) {
            throw new XdrException(what + " of " + count + " elements needs at least " + (4L * count)
                    + " octets but only " + in.readableBytes() + " remain");
        }
        return count;
    }
}
