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

    /** A decoder over the readable bytes of {@code in}. */
    public XdrDecoder(ByteBuf in) {
        this(in, List.of());
    }

    /**
     * A decoder over a reduced stream whose DDP-eligible items are given separately, in order
     * (see {@link XdrMessage#ofReduced}); the items are borrowed like the stream.
     */
    public XdrDecoder(ByteBuf in, List<ByteBuf> reducedItems) {
        this.in = in;
        this.reducedItems = reducedItems.isEmpty() ? null : new ArrayDeque<>(reducedItems);
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

    /** string {@code string<max>} (RFC 4506 §4.11), decoded as UTF-8; max counts octets. */
    public String readString(int max) {
        int length = readLength(max, "string");
        if ((long) length + XdrMessage.padding(length) > in.readableBytes()) {
            need((long) length + XdrMessage.padding(length), "string<" + max + "> of " + length);
        }
        String s = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length + XdrMessage.padding(length));
        return s;
    }

    /** Variable-length array of int {@code int<max>} (RFC 4506 §4.13). */
    public int[] readIntArray(int max) {
        int count = readCount(max, "int array");
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
