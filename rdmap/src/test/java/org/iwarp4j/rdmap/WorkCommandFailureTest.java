package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.internal.qp.QueuePairEngine;
import org.iwarp4j.rdmap.internal.qp.WorkCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the engine does with a command that threw in the work queue's drain
 * ({@code WorkQueueDrainTest} shows the drain going on behind it): a bug of the stack's, since a
 * post refuses what the engine cannot take, so the state it left is unknown. Its work request, in
 * no queue, completes FATAL with the exception as failure cause, and the queue pair fails as for
 * any local failure: no Terminate, the work posted before it flushed, the connection closed. No
 * request can make a command throw any more (the overflowing scatter/gather element that did is
 * refused when it is made), so the drain's call is made here by hand.
 */
@Timeout(60)
class WorkCommandFailureTest {

    @Test
    void theRequestOfACommandThatThrewCompletesFatalWithTheCauseAndTheQueuePairFails() throws Exception {
        CompletableFuture<Channel> connection = new CompletableFuture<>();
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(16).writeZero(16);
        RdmaPair pair = new RdmaPair(Rnic.builder(), Rnic.builder().channelInitializer(connection::complete),
                MpaSettings.builder().build(), b -> b, b -> b, s -> { }, c -> { });
        try {
            MemoryRegion region = pair.client.register(memory, RdmaPair.ALL);
            pair.client.postReceive(new ReceiveWorkRequest(5, region.sge(0, 8)));
            IllegalStateException boom = new IllegalStateException("the engine broke");
            Channel channel = connection.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            QueuePairEngine engine = channel.pipeline().get(QueuePairEngine.class);
            channel.eventLoop().submit(() -> engine.commandFailed(
                    new WorkCommand.PostReceive(new ReceiveWorkRequest(7, region.sge(8, 8))), boom))
                    .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);

            WorkCompletion failed = RdmaPair.next(pair.clientCq);
            assertThat(failed.workRequestId()).isEqualTo(7);
            assertThat(failed.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(failed.status()).isEqualTo(WorkCompletionStatus.FATAL);
            assertThat(failed.failureCause()).isSameAs(boom);
            WorkCompletion flushed = RdmaPair.next(pair.clientCq);
            assertThat(flushed.workRequestId()).isEqualTo(5);
            assertThat(flushed.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            pair.client.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pair.client.failureCause()).isSameAs(boom);
            assertThat(pair.client.terminateReason()).isNull();
            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pair.server.terminateReason()).as("no Terminate for a local failure").isNull();
            assertThat(pair.clientCq.poll()).isNull();
        } finally {
            pair.closeAbruptly();
            memory.release();
        }
    }
}
