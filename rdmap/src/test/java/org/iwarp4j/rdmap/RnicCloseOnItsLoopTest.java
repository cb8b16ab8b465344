package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Rnic#close()} where a user's callback runs, on one of the RNIC's own event loops, and the
 * queue pairs of a closed RNIC: nothing waits for itself, nothing throws.
 */
class RnicCloseOnItsLoopTest {

    private static final long WAIT = 5;

    @Test
    // In a thread of its own: a close that deadlocks its event loop would also hold the cleanup's
    // uninterruptible close of the same RNIC, and with it the test thread, for ever.
    @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeFromACompletionQueueListenerShutsTheRnicDownWithoutWaitingForItself() throws Exception {
        CompletableFuture<Channel> clientChannel = new CompletableFuture<>();
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(16).writeZero(16);
        RdmaPair pair = new RdmaPair(Rnic.builder(), Rnic.builder().channelInitializer(clientChannel::complete),
                MpaSettings.builder().build(), b -> b, b -> b,
                server -> server.postReceive(new ReceiveWorkRequest(1, server.register(memory,
                        EnumSet.of(Access.LOCAL_WRITE)).sge())),
                client -> { });
        ByteBuf message = ByteBufAllocator.DEFAULT.directBuffer(16).writeZero(16);
        try (MemoryRegion local = pair.client.register(message, RdmaPair.ALL)) {
            CompletableFuture<WorkCompletion> listenerReturned = new CompletableFuture<>();
            pair.clientCq.setListener(c -> {
                pair.clientRnic.close();
                listenerReturned.complete(c);
            });
            pair.client.postSend(SendWorkRequest.send(2, local.sge(0, 4)));

            assertThat(listenerReturned.get(WAIT, TimeUnit.SECONDS).workRequestId()).isEqualTo(2);
            Channel channel = clientChannel.get(WAIT, TimeUnit.SECONDS);
            assertThat(channel.eventLoop().terminationFuture().await(WAIT, TimeUnit.SECONDS))
                    .as("the RNIC's event loop stopped").isTrue();
            assertThat(pair.client.closeFuture().get(WAIT, TimeUnit.SECONDS)).isSameAs(pair.client);
            assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);
        } finally {
            pair.closeAbruptly();
            memory.release();
            message.release();
        }
    }

    @Test
    @Timeout(30)
    void closeAndAbortOfAQueuePairAfterItsRnicWasClosedComplete() throws Exception {
        RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server -> { }, client -> { });
        try {
            pair.clientRnic.close();
            assertThat(pair.client.close().get(WAIT, TimeUnit.SECONDS)).isSameAs(pair.client);
            assertThat(pair.client.abort().get(WAIT, TimeUnit.SECONDS)).isSameAs(pair.client);
            assertThat(pair.client.close().get(WAIT, TimeUnit.SECONDS)).isSameAs(pair.client);
            assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(pair.clientCq.poll()).isNull();
        } finally {
            pair.closeAbruptly();
        }
    }
}
