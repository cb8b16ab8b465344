package org.iwarp4j.rdmap;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of a listener's connection whose MPA startup failed: it is closed once what was
 * written on it (the MPA Reply with R=1 of a reject) has gone out, and until then a final handler
 * takes whatever still reaches the end of its pipeline.
 *
 * <p>RFC 5044 §7.1.2 rule 2 (MPA-R-056) leaves the TCP connection open after a reject, for the
 * ULP to decide. A listener's ULP has no other use for it, whether the reject was its own or the
 * Responder's (a Request for CRC or markers that are off here): left open, an Initiator could
 * hold it, and its place under the listener's connection caps, for as long as it liked. Other
 * failures close the connection already; closing it again does nothing.
 *
 * <p>No engine is in such a pipeline, so an exception (the Initiator resetting the connection)
 * would reach Netty's tail handler, which logs a WARN with a stack trace per connection: a log
 * flood any peer could cause. The sink logs it at DEBUG and closes.
 */
final class FailedStartup {

    private static final Logger log = LoggerFactory.getLogger(FailedStartup.class);

    private FailedStartup() {
    }

    /** Call on {@code ch}'s event loop when its startup failed. */
    static void ended(Channel ch) {
        ch.pipeline().addLast(Sink.INSTANCE);
        // Behind the Reply, which the startup handler wrote just before failing: the empty write's
        // promise completes once everything written before it has gone out (or failed).
        ch.eventLoop().execute(() -> ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE));
    }

    /** The last handler of a connection whose startup failed. */
    @ChannelHandler.Sharable
    static final class Sink extends ChannelInboundHandlerAdapter {
        static final Sink INSTANCE = new Sink();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg); // octets after a failed startup mean nothing
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("connection {} after a failed MPA startup: {}", ctx.channel(), cause.toString());
            ctx.close();
        }
    }
}
