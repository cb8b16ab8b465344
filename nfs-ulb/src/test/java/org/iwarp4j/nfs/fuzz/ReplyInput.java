package org.iwarp4j.nfs.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.iwarp4j.oncrpc.XdrDecoder;

/**
 * The reply part of an NFS client target's input, in the client's allocator: an XDR stream and, if
 * the input says so, one reduced data item (RFC 8166 §3.4.6), as RPC-over-RDMA hands a client the
 * READ data or READLINK path that the server wrote into a Write chunk (RFC 8267 §4). Layout from
 * {@code from}: if reduced, two octets L (big-endian), the stream, then the item: the last L
 * octets (all that is there, if fewer).
 */
final class ReplyInput {

    private final ByteBuf stream;
    private final ByteBuf item;

    private ReplyInput(ByteBuf stream, ByteBuf item) {
        this.stream = stream;
        this.item = item;
    }

    static ReplyInput of(ByteBufAllocator alloc, byte[] input, int from, boolean reduced) {
        int at = Math.min(from, input.length);
        if (!reduced) {
            return new ReplyInput(alloc.buffer(input.length - at).writeBytes(input, at, input.length - at), null);
        }
        int declared = input.length - at >= 2 ? (input[at] & 0xFF) << 8 | input[at + 1] & 0xFF : 0;
        at = Math.min(at + 2, input.length);
        int itemLength = Math.min(declared, input.length - at);
        int streamLength = input.length - at - itemLength;
        ByteBuf stream = alloc.buffer(streamLength).writeBytes(input, at, streamLength);
        return new ReplyInput(stream, alloc.buffer(itemLength).writeBytes(input, at + streamLength, itemLength));
    }

    /** A decoder over the stream and the item, as the client's RPC layer makes one. */
    XdrDecoder decoder() {
        return new XdrDecoder(stream, item == null ? List.of() : List.of(item));
    }

    boolean reduced() {
        return item != null;
    }

    /**
     * Releases the stream and the item, once what was decoded from them is released: checks that
     * no buffer a decoder returned is still held, and that decoding released nothing it borrowed.
     */
    void release() {
        assertThat(stream.refCnt()).as("the reply stream's reference").isEqualTo(1);
        stream.release();
        if (item != null) {
            assertThat(item.refCnt()).as("the reduced item's reference").isEqualTo(1);
            item.release();
        }
    }
}
