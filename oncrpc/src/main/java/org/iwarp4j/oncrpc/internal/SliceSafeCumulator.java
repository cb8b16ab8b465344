package org.iwarp4j.oncrpc.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * A cumulator for a decoder that emits retained slices of its cumulation to other threads: it
 * never writes into a cumulation that anyone else still holds a reference to. Netty's default
 * ({@link ByteToMessageDecoder#MERGE_CUMULATOR}) appends in place whenever the octets fit, shared
 * or not, which is only safe if a reader of a slice never touches state it shares with the
 * writer. With Netty 4.2's adaptive allocator that is not so (Netty 4.2.7.Final): a
 * {@code getBytes} to an {@code OutputStream} or channel on a slice resets the position of the
 * parent buffer's one cached NIO view, the same view that {@code setBytes} positions just before it
 * copies, so the appended octets can land at offset 0, over records already handed out, while
 * the octets where they belong stay stale (docs/oncrpc.md, "Records are slices").
 *
 * <p>So, while the cumulation is shared ({@code refCnt() > 1}: some emitted record still holds
 * it), what is left of it is copied together with the new read into a new buffer and the old one
 * is let go (the records keep it alive, and it is never written again); once nobody else holds it,
 * Netty's merge applies. The copy is of the leftover (a part of one record) and one read, once per
 * read that finds a record still outstanding, not of every record.
 *
 * <p>The new buffer is sized for the record in progress when the decoder has said how long that
 * is ({@link #expect}), so that a large record does not grow it by doubling (a copy each time);
 * at most {@value #MAX_AHEAD} times the octets already here, so that an announced length alone
 * reserves little (a bare mark, next to nothing). One instance per decoder (it holds that hint).
 */
public final class SliceSafeCumulator implements ByteToMessageDecoder.Cumulator {

    /** A new buffer is at most this many times the octets it starts with. */
    static final int MAX_AHEAD = 16;

    private int expected;

    /**
     * The decoder's hint: the record in progress will need {@code octets} from the cumulation's
     * reader index (its mark included); 0 if unknown.
     */
    public void expect(int octets) {
        expected = Math.max(0, octets);
    }

    @Override
    public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation == in || cumulation.refCnt() == 1) {
            return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        if (!cumulation.isReadable()) {
            cumulation.release();
            return in;
        }
        ByteBuf joined = null;
        boolean joinedAll = false;
        try {
            int total = cumulation.readableBytes() + in.readableBytes();
            int capacity = alloc.calculateNewCapacity(total, Integer.MAX_VALUE);
            if (expected > capacity) {
                capacity = (int) Math.min(expected, (long) MAX_AHEAD * total);
            }
            joined = alloc.buffer(capacity);
            joined.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes())
                    .writeBytes(in, in.readerIndex(), in.readableBytes());
            in.readerIndex(in.writerIndex());
            joinedAll = true;
            return joined;
        } finally {
            // As in Netty's cumulators: the read is consumed whatever happens; on failure the
            // decoder keeps its old cumulation, so only a half-built buffer goes.
            in.release();
            if (joinedAll) {
                cumulation.release();
            } else if (joined != null) {
                joined.release();
            }
        }
    }
}
