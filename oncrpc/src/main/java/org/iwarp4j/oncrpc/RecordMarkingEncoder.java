package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.util.List;

/**
 * Frames each {@link XdrMessage} as one record with record marking (RFC 5531 §11): fragments
 * of at most {@code maxFragmentSize} octets, each after its 4-octet record mark, the last with
 * the last-fragment bit. The message's octets are not copied (they are written as slices of
 * {@link XdrMessage#stream()}); the encoder releases the message.
 */
public final class RecordMarkingEncoder extends MessageToMessageEncoder<XdrMessage> {

    private final int maxFragmentSize;

    /** One fragment per record (up to 2^31-1 octets). */
    public RecordMarkingEncoder() {
        this(RpcConstants.FRAGMENT_LENGTH_MASK);
    }

    /** @param maxFragmentSize largest fragment, 1 to 2^31-1 octets */
    public RecordMarkingEncoder(int maxFragmentSize) {
        super(XdrMessage.class);
        if (maxFragmentSize < 1) {
            throw new IllegalArgumentException("maxFragmentSize must be at least 1");
        }
        this.maxFragmentSize = maxFragmentSize;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, XdrMessage msg, List<Object> out) {
        ByteBuf stream = msg.stream();
        try {
            int length = stream.readableBytes();
            if (length == 0) {
                out.add(mark(ctx, true, 0));
                return;
            }
            int offset = stream.readerIndex();
            int end = offset + length;
            while (offset < end) {
                int fragment = Math.min(maxFragmentSize, end - offset);
                boolean last = offset + fragment == end;
                out.add(mark(ctx, last, fragment));
                out.add(stream.retainedSlice(offset, fragment));
                offset += fragment;
            }
        } finally {
            stream.release();
        }
    }

    private static ByteBuf mark(ChannelHandlerContext ctx, boolean last, int length) {
        return ctx.alloc().buffer(RpcConstants.RECORD_MARK_LENGTH)
                .writeInt((last ? RpcConstants.LAST_FRAGMENT : 0) | length);
    }
}
