package org.iwarp4j.mpa.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayList;
import java.util.List;

/**
 * The handler after MPA in a fuzzed pipeline: copies out and releases every ULPDU, and keeps every
 * exception, in arrival order, so that a target can check what came out and what was raised.
 */
final class Recorder extends ChannelInboundHandlerAdapter {

    final List<byte[]> ulpdus = new ArrayList<>();
    final List<Throwable> errors = new ArrayList<>();
    /** How many ULPDUs had arrived when the first error did, or -1. */
    int ulpdusBeforeFirstError = -1;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf ulpdu = (ByteBuf) msg;
        try {
            ulpdus.add(ByteBufUtil.getBytes(ulpdu));
        } finally {
            ulpdu.release();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        // MpaStartupEvent and TCP events end here.
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (errors.isEmpty()) {
            ulpdusBeforeFirstError = ulpdus.size();
        }
        errors.add(cause);
    }
}
