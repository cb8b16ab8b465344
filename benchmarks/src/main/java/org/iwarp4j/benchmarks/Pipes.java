package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/** Small handlers that close a Netty pipeline around the MPA codec without a socket. */
final class Pipes {

    private Pipes() {
    }

    /**
     * Copies one contiguous wire image of every FPDU written to it into a fresh direct buffer from
     * the channel's allocator (what a socket write + read does, in one memcpy) and hands it back up
     * the pipeline as a read. Sits next to the head; the FPDU is released, the write succeeds.
     */
    static final class WireLoop extends ChannelDuplexHandler {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ByteBuf fpdu = (ByteBuf) msg;
            ByteBuf wire;
            try {
                wire = wireCopy(ctx.alloc(), fpdu);
            } finally {
                fpdu.release();
            }
            promise.trySuccess();
            ctx.fireChannelRead(wire);
            ctx.fireChannelReadComplete();
        }
    }

    /**
     * One contiguous direct copy of the readable bytes of {@code fpdu}, made by
     * {@code fpdu.getBytes(.., ByteBuf ..)}: component by component, memory to memory. (Not
     * {@code wire.writeBytes(fpdu)}: Netty 4.2's adaptive buffer implements that as
     * {@code put(src.nioBuffer())}, and a composite's nioBuffer() first merges all components into a
     * new heap ByteBuffer — a hidden second copy and a 64 KiB heap allocation per FPDU.)
     */
    static ByteBuf wireCopy(ByteBufAllocator alloc, ByteBuf fpdu) {
        return copy(alloc, fpdu, fpdu.readerIndex(), fpdu.readableBytes());
    }

    /** {@code length} octets of {@code src} from {@code index} in a new direct buffer of {@code alloc}. */
    static ByteBuf copy(ByteBufAllocator alloc, ByteBuf src, int index, int length) {
        ByteBuf copy = alloc.directBuffer(length, length);
        try {
            src.getBytes(index, copy, 0, length);
            copy.writerIndex(length);
            return copy;
        } catch (Throwable t) {
            copy.release();
            throw t;
        }
    }

    /** Keeps the last message that reached the tail of the inbound side, and any exception. */
    static final class InboundSink extends ChannelInboundHandlerAdapter {
        private ByteBuf last;
        private Throwable error;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (last != null) {
                last.release();
                throw new IllegalStateException("two messages for one operation");
            }
            last = (ByteBuf) msg;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            error = cause;
        }

        ByteBuf take() {
            if (error != null) {
                throw new IllegalStateException("the pipeline failed", error);
            }
            ByteBuf taken = last;
            if (taken == null) {
                throw new IllegalStateException("nothing came out of the pipeline");
            }
            last = null;
            return taken;
        }
    }

    /** Keeps the last message written down to the head side (in place of a socket). */
    static final class OutboundSink extends ChannelOutboundHandlerAdapter {
        private ByteBuf last;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (last != null) {
                last.release();
                throw new IllegalStateException("two messages for one operation");
            }
            last = (ByteBuf) msg;
            promise.trySuccess();
        }

        ByteBuf take() {
            ByteBuf taken = last;
            if (taken == null) {
                throw new IllegalStateException("nothing was written");
            }
            last = null;
            return taken;
        }
    }
}
