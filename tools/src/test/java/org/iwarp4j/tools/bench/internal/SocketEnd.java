package org.iwarp4j.tools.bench.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.ArrayList;
import java.util.List;

/**
 * The socket end of an embedded channel's pipeline, for the plain-TCP ends' tests: counts the
 * writes and flushes that reach it. One that sends nothing keeps every flush back, as a socket that
 * takes nothing would: what was written stays in the channel's write buffer.
 */
final class SocketEnd extends ChannelOutboundHandlerAdapter {
    private final boolean sends;
    int writes;
    int flushes;
    /** How many writes had come at each flush passed on. */
    final List<Integer> flushOffsets = new ArrayList<>();

    SocketEnd(boolean sends) {
        this.sends = sends;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        writes++;
        ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (sends) {
            flushes++;
            flushOffsets.add(writes);
            ctx.flush();
        }
    }
}
