package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * A listener's connection after a failed MPA startup (docs/limits.md): closed once what was
 * written before has gone out, and an exception on it (the Initiator resetting it) ends in the
 * sink instead of Netty's tail handler, which would log a WARN with a stack trace per connection.
 */
class FailedStartupTest {

    @Test
    void theConnectionIsClosedAfterTheReplyAndAResetReachesNoTailHandler() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1, 2, 3})); // stands for the MPA Reply
        FailedStartup.ended(ch);
        ch.pipeline().fireChannelRead(Unpooled.wrappedBuffer(new byte[] {4})); // released by the sink
        ch.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
        ch.runPendingTasks();
        // EmbeddedChannel records what reaches its tail and rethrows it here.
        ch.checkException();
        assertThat(ch.<Object>readInbound()).as("nothing reached the tail").isNull();
        ByteBuf reply = ch.readOutbound();
        assertThat(reply.readableBytes()).as("the Reply went out first").isEqualTo(3);
        reply.release();
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }
}
