package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One whole ONC RPC message, call or reply, from the xid on (RFC 5531 §9), as an ordered list
 * of {@link XdrPiece}s. This is the unit every transport carries: TCP frames it with a record
 * mark, RPC-over-RDMA sends it as the Payload stream after its transport header.
 *
 * <p><b>The XDR stream.</b> The concatenation of the pieces is the XDR stream, where each
 * DDP-eligible piece is followed by its implicit roundup padding
 * ({@link #padding(int) padding(length)} zero octets, see {@link XdrPiece}). {@link #stream()}
 * returns that stream as one buffer; {@link #readableBytes()} is its length and
 * {@link #position(int)} the stream offset of a piece (the Position of a Read chunk, RFC 8166
 * §3.4.5).
 *
 * <p><b>Reduced data items.</b> A receiving transport that got DDP-eligible items out of band
 * without knowing where they belong in the stream (RPC-over-RDMA Write chunks in a Reply, RFC
 * 8166 §3.4.6.1) builds the message with {@link #ofReduced}: the pieces are then the
 * <em>reduced</em> stream (length words kept, data and padding removed) and the items are
 * given in chunk order. {@link XdrDecoder#readDdpEligibleOpaque(int)} takes the body of the
 * next non-empty DDP-eligible item from that list instead of the stream. A message built by an
 * encoder never has reduced items.
 *
 * <p><b>Ownership.</b> The message is reference counted and owns one reference to every piece's
 * buffer and every reduced item; releasing the message to zero releases them. Readers never
 * change the pieces' indices ({@link #stream()} returns duplicates), so a message may be read
 * more than once, e.g. retransmitted.
 */
public final class XdrMessage extends AbstractReferenceCounted {

    private static final ByteBuf ZEROS = Unpooled.unreleasableBuffer(
            Unpooled.wrappedBuffer(new byte[3]).asReadOnly());

    private final List<XdrPiece> pieces;
    private final List<ByteBuf> reducedItems;
    private final int readableBytes;

    private XdrMessage(List<XdrPiece> pieces, List<ByteBuf> reducedItems) {
        this.pieces = List.copyOf(pieces);
        this.reducedItems = List.copyOf(reducedItems);
        long total = 0;
        for (XdrPiece piece : this.pieces) {
            total += piece.streamLength();
        }
        if (total > Integer.MAX_VALUE) {
            ReferenceCountUtil.safeRelease(this);
            throw new XdrException("XDR message longer than 2^31-1 octets");
        }
        this.readableBytes = (int) total;
    }

    /** A message of one inline piece; takes over the caller's reference to {@code stream}. */
    public static XdrMessage of(ByteBuf stream) {
        return new XdrMessage(List.of(XdrPiece.inline(stream)), List.of());
    }

    /** A message of these pieces, in order; takes over the caller's reference to each piece's buffer. */
    public static XdrMessage of(List<XdrPiece> pieces) {
        return new XdrMessage(pieces, List.of());
    }

    /**
     * A received message whose DDP-eligible items arrived out of band (see the class comment).
     * Takes over the caller's references to the pieces' buffers and to the items.
     *
     * @param reducedStream the reduced Payload stream
     * @param reducedItems the data octets of each reduced item, without padding, in chunk order;
     *     an empty buffer for a chunk that was available but came back holding nothing (RFC 8166
     *     §4.3.2.2), so that {@link XdrDecoder#readDdpEligibleOpaque} can tell a result wrongly
     *     returned inline (§6.1)
     */
    public static XdrMessage ofReduced(List<XdrPiece> reducedStream, List<ByteBuf> reducedItems) {
        return new XdrMessage(reducedStream, reducedItems);
    }

    /** {@code a} followed by {@code b}; consumes one reference of each (both are released). */
    public static XdrMessage concat(XdrMessage a, XdrMessage b) {
        try {
            List<XdrPiece> pieces = new ArrayList<>(a.pieces.size() + b.pieces.size());
            List<ByteBuf> items = new ArrayList<>(a.reducedItems.size() + b.reducedItems.size());
            for (XdrMessage m : List.of(a, b)) {
                for (XdrPiece piece : m.pieces) {
                    pieces.add(new XdrPiece(piece.data().retainedDuplicate(), piece.ddpEligible()));
                }
                for (ByteBuf item : m.reducedItems) {
                    items.add(item.retainedDuplicate());
                }
            }
            return new XdrMessage(pieces, items);
        } finally {
            a.release();
            b.release();
        }
    }

    /** XDR roundup padding after {@code length} octets of opaque data: 0 to 3 (RFC 4506 §4.10). */
    public static int padding(int length) {
        return -length & 3;
    }

    /** The pieces in stream order. The list is immutable; the buffers belong to this message. */
    public List<XdrPiece> pieces() {
        return pieces;
    }

    /** Items received out of band, in chunk order; empty unless built with {@link #ofReduced}. */
    public List<ByteBuf> reducedItems() {
        return reducedItems;
    }

    /** Whether any piece is DDP-eligible. */
    public boolean hasDdpEligiblePieces() {
        for (XdrPiece piece : pieces) {
            if (piece.ddpEligible()) {
                return true;
            }
        }
        return false;
    }

    /** Length of the XDR stream: all pieces plus the implicit padding of DDP-eligible ones. */
    public int readableBytes() {
        return readableBytes;
    }

    /** Offset in the XDR stream where piece {@code index} starts; {@code pieces().size()} gives the total. */
    public int position(int index) {
        Objects.checkIndex(index, pieces.size() + 1);
        int position = 0;
        for (int i = 0; i < index; i++) {
            position += pieces.get(i).streamLength();
        }
        return position;
    }

    /**
     * The XDR stream as one buffer, including the implicit padding; the buffer holds its own
     * references to the pieces (no octets are copied), and the caller releases it. The pieces'
     * indices are not changed.
     */
    public ByteBuf stream() {
        if (pieces.isEmpty()) {
            return Unpooled.EMPTY_BUFFER;
        }
        if (pieces.size() == 1 && !pieces.get(0).ddpEligible()) {
            return pieces.get(0).data().retainedDuplicate();
        }
        ByteBufAllocator alloc = pieces.get(0).data().alloc();
        CompositeByteBuf composite = alloc.compositeBuffer(pieces.size() * 2);
        for (XdrPiece piece : pieces) {
            ByteBuf data = piece.data();
            composite.addComponent(true, data.retainedDuplicate());
            int pad = piece.ddpEligible() ? padding(data.readableBytes()) : 0;
            if (pad > 0) {
                composite.addComponent(true, ZEROS.slice(0, pad));
            }
        }
        return composite;
    }

    @Override
    public XdrMessage retain() {
        super.retain();
        return this;
    }

    @Override
    public XdrMessage retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public XdrMessage touch() {
        return touch(null);
    }

    @Override
    public XdrMessage touch(Object hint) {
        for (XdrPiece piece : pieces) {
            piece.data().touch(hint);
        }
        for (ByteBuf item : reducedItems) {
            item.touch(hint);
        }
        return this;
    }

    @Override
    protected void deallocate() {
        for (XdrPiece piece : pieces) {
            ReferenceCountUtil.safeRelease(piece.data());
        }
        for (ByteBuf item : reducedItems) {
            ReferenceCountUtil.safeRelease(item);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("XdrMessage(").append(readableBytes).append(" octets:");
        for (XdrPiece piece : pieces) {
            sb.append(' ').append(piece.data().readableBytes()).append(piece.ddpEligible() ? "[ddp]" : "");
        }
        if (!reducedItems.isEmpty()) {
            sb.append("; reduced items:");
            for (ByteBuf item : reducedItems) {
                sb.append(' ').append(item.readableBytes());
            }
        }
        return sb.append(')').toString();
    }
}
