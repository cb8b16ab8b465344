package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Writes XDR (RFC 4506) items, big-endian and 4-octet aligned, into an {@link XdrMessage}.
 *
 * <p>Small items are written into an inline buffer; {@link #writeOpaque(ByteBuf, int)} and
 * {@link #writeDdpEligibleOpaque(ByteBuf, int)} append the caller's buffer as a piece of its
 * own, without copying. Every variable-length write checks the declared maximum and throws
 * {@link XdrException} when it is exceeded, so a local caller cannot emit what a conforming
 * peer must reject.
 *
 * <p>{@link #toMessage()} ends the encoder and hands the pieces to the message; until then
 * the encoder owns them and {@link #discard()} releases them. Not thread-safe.
 */
public final class XdrEncoder {

    /** Largest 32-bit unsigned value (RFC 4506 §4.2). */
    private static final long UINT_MAX = 0xFFFF_FFFFL;
    private static final int INITIAL_CAPACITY = 256;

    private final ByteBufAllocator alloc;
    private final List<XdrPiece> pieces = new ArrayList<>(2);
    private ByteBuf current;
    private boolean done;

    private XdrEncoder(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** An encoder whose inline buffers come from {@code alloc}. */
    public static XdrEncoder create(ByteBufAllocator alloc) {
        return new XdrEncoder(alloc);
    }

    /** An encoder on {@link ByteBufAllocator#DEFAULT}. */
    public static XdrEncoder create() {
        return new XdrEncoder(ByteBufAllocator.DEFAULT);
    }

    private void checkOpen() {
        if (done) {
            throw new IllegalStateException("encoder already produced its message or was discarded");
        }
    }

    private ByteBuf out(int needed) {
        checkOpen();
        if (current == null) {
            current = alloc.buffer(Math.max(INITIAL_CAPACITY, needed));
        }
        return current;
    }

    private void closeInline() {
        if (current != null) {
            pieces.add(XdrPiece.inline(current));
            current = null;
        }
    }

    /** int (RFC 4506 §4.1). */
    public XdrEncoder writeInt(int value) {
        out(4).writeInt(value);
        return this;
    }

    /** unsigned int (RFC 4506 §4.2), 0 to 2^32-1. */
    public XdrEncoder writeUnsignedInt(long value) {
        if (value < 0 || value > UINT_MAX) {
            throw new XdrException("unsigned int out of range: " + value);
        }
        out(4).writeInt((int) value);
        return this;
    }

    /** enum (RFC 4506 §4.3): the value's int. */
    public XdrEncoder writeEnum(int value) {
        return writeInt(value);
    }

    /** bool (RFC 4506 §4.4): 1 or 0. */
    public XdrEncoder writeBoolean(boolean value) {
        return writeInt(value ? 1 : 0);
    }

    /** hyper or unsigned hyper (RFC 4506 §4.5): the 64 bits, big-endian. */
    public XdrEncoder writeHyper(long value) {
        out(8).writeLong(value);
        return this;
    }

    /** Fixed-length opaque (RFC 4506 §4.9): {@code data.length} octets and padding. */
    public XdrEncoder writeFixedOpaque(byte[] data) {
        ByteBuf out = out(data.length + 3);
        out.writeBytes(data);
        out.writeZero(XdrMessage.padding(data.length));
        return this;
    }

    /** Variable-length opaque {@code opaque<max>} (RFC 4506 §4.10): length word, octets, padding. */
    public XdrEncoder writeOpaque(byte[] data, int max) {
        checkLength(data.length, max, "opaque");
        writeInt(data.length);
        return writeFixedOpaque(data);
    }

    /**
     * Variable-length opaque {@code opaque<max>} whose octets are the readable bytes of
     * {@code data}, appended as a piece of its own (no copy). Takes over the caller's reference
     * to {@code data}, also when this throws.
     */
    public XdrEncoder writeOpaque(ByteBuf data, int max) {
        int length = data.readableBytes();
        try {
            checkLength(length, max, "opaque");
            writeInt(length);
        } catch (RuntimeException e) {
            data.release();
            throw e;
        }
        closeInline();
        pieces.add(XdrPiece.inline(data));
        int pad = XdrMessage.padding(length);
        if (pad > 0) {
            out(pad).writeZero(pad);
        }
        return this;
    }

    /**
     * Variable-length opaque {@code opaque<max>} that the Upper-Layer Binding declares
     * DDP-eligible (RFC 8166 §3.4.2): the length word goes inline, the octets become a
     * DDP-eligible {@link XdrPiece}, and the padding is implicit. Takes over the caller's
     * reference to {@code data}, also when this throws.
     */
    public XdrEncoder writeDdpEligibleOpaque(ByteBuf data, int max) {
        int length = data.readableBytes();
        try {
            checkLength(length, max, "opaque");
            writeInt(length);
        } catch (RuntimeException e) {
            data.release();
            throw e;
        }
        closeInline();
        pieces.add(XdrPiece.ddpEligible(data));
        return this;
    }

    /** string {@code string<max>} (RFC 4506 §4.11), encoded as UTF-8 (ASCII is a subset); max counts octets. */
    public XdrEncoder writeString(String value, int max) {
        return writeOpaque(value.getBytes(StandardCharsets.UTF_8), max);
    }

    /** Variable-length array of int {@code int<max>} (RFC 4506 §4.13). */
    public XdrEncoder writeIntArray(int[] values, int max) {
        checkLength(values.length, max, "array");
        ByteBuf out = out(4 + 4 * values.length);
        out.writeInt(values.length);
        for (int v : values) {
            out.writeInt(v);
        }
        return this;
    }

    /** Variable-length array {@code T<max>} (RFC 4506 §4.13): count, then each element. */
    public <T> XdrEncoder writeArray(Collection<T> values, int max, BiConsumer<XdrEncoder, T> element) {
        checkLength(values.size(), max, "array");
        writeInt(values.size());
        for (T value : values) {
            element.accept(this, value);
        }
        return this;
    }

    /**
     * Optional-data {@code *T} (RFC 4506 §4.19): 0, or 1 and the value. The presence word is an
     * inline word like any other: if the value is written with {@link #writeDdpEligibleOpaque}, only
     * the value's octets can leave the Payload stream, never the word saying it is there (RPC-R-018).
     */
    public <T> XdrEncoder writeOptional(T value, BiConsumer<XdrEncoder, T> element) {
        writeBoolean(value != null);
        if (value != null) {
            element.accept(this, value);
        }
        return this;
    }

    /**
     * The XDR octets already encoded by another encoder, appended as they are (pieces and flags
     * kept). Consumes {@code message}.
     */
    public XdrEncoder writeMessage(XdrMessage message) {
        try {
            if (!message.reducedItems().isEmpty()) {
                throw new IllegalArgumentException("a message with reduced items cannot be re-encoded");
            }
            checkOpen();
            closeInline();
            for (XdrPiece piece : message.pieces()) {
                pieces.add(new XdrPiece(piece.data().retainedDuplicate(), piece.ddpEligible()));
            }
        } finally {
            message.release();
        }
        return this;
    }

    /** Octets encoded so far, implicit padding included. */
    public int length() {
        int total = current == null ? 0 : current.readableBytes();
        for (XdrPiece piece : pieces) {
            total += piece.streamLength();
        }
        return total;
    }

    /** Ends the encoder: the message owns everything written. */
    public XdrMessage toMessage() {
        checkOpen();
        closeInline();
        done = true;
        return XdrMessage.of(pieces);
    }

    /**
     * Ends the encoder and returns its XDR stream as one array (the implicit padding of
     * DDP-eligible pieces included); nothing stays allocated. For small items whose octets are
     * kept as such.
     */
    public byte[] toByteArray() {
        XdrMessage message = toMessage();
        try {
            ByteBuf stream = message.stream();
            try {
                return ByteBufUtil.getBytes(stream);
            } finally {
                stream.release();
            }
        } finally {
            message.release();
        }
    }

    /** Ends the encoder and releases everything written (for error paths). */
    public void discard() {
        if (done) {
            return;
        }
        done = true;
        if (current != null) {
            current.release();
            current = null;
        }
        for (XdrPiece piece : pieces) {
            ReferenceCountUtil.safeRelease(piece.data());
        }
        pieces.clear();
    }

    private static void checkLength(int length, int max, String what) {
        if (length > max) {
            throw new XdrException(what + " of " + length + " exceeds its maximum " + max);
        }
    }
}
