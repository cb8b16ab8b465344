package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The upper layer of a test connection: records the startup outcome, every ULPDU received (copied,
 * then released) and the first error; sends ULPDUs on request.
 */
final class TestUlp extends ChannelInboundHandlerAdapter {

    static final long WAIT_SECONDS = 20;

    final CompletableFuture<NegotiatedParameters> startup = new CompletableFuture<>();
    final CompletableFuture<Throwable> error = new CompletableFuture<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
    volatile Channel channel;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof MpaStartupEvent) {
            MpaStartupEvent e = (MpaStartupEvent) evt;
            if (e.isSuccess()) {
                startup.complete(e.parameters());
            } else {
                startup.completeExceptionally(e.cause());
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            received.add(ByteBufUtil.getBytes(buf));
        } finally {
            buf.release();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        error.complete(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed.complete(null);
    }

    NegotiatedParameters awaitStartup() throws Exception {
        return startup.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** The next ULPDU; fails the test if none arrives in time. */
    byte[] take() throws InterruptedException {
        byte[] ulpdu = received.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(ulpdu).as("a ULPDU within %d s", WAIT_SECONDS).isNotNull();
        return ulpdu;
    }

    ChannelFuture send(byte[] ulpdu) {
        return channel.writeAndFlush(channel.alloc().buffer(ulpdu.length).writeBytes(ulpdu));
    }
}
