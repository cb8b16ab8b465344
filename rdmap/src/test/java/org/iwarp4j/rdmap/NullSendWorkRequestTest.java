package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/**
 * A {@code null} among the requests of one {@link QueuePair#postSend} is refused before anything
 * is posted or a send-queue slot is taken; queued, it would have failed inside the event loop's
 * drain and stopped the work behind it.
 */
class NullSendWorkRequestTest {

    private static final int SLOT = 64;

    @Test
    void aPostWithANullRequestPostsNoneAndTakesNoSlot() throws Exception {
        ByteBuf sink = ByteBufAllocator.DEFAULT.directBuffer(2 * SLOT).writeZero(2 * SLOT);
        ByteBuf src = ByteBufAllocator.DEFAULT.directBuffer(SLOT).writeZero(SLOT);
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b, b -> b.sendQueueDepth(2), s -> {
            MemoryRegion r = s.settings().protectionDomain().register(sink, RdmaPair.ALL);
            s.postReceive(new ReceiveWorkRequest(1, r.sge(0, SLOT)), new ReceiveWorkRequest(2, r.sge(SLOT, SLOT)));
        }, c -> { })) {
            MemoryRegion source = pair.clientPd.register(src, RdmaPair.ALL);
            assertThatNullPointerException()
                    .isThrownBy(() -> pair.client.postSend(SendWorkRequest.send(9, source.sge(0, SLOT)), null));

            // both slots are free and 9 was never sent: the two Sends below fill receives 1 and 2
            pair.client.postSend(SendWorkRequest.send(10, source.sge(0, 10)), SendWorkRequest.send(11, source.sge(0, 11)));
            assertThat(RdmaPair.next(pair.clientCq).workRequestId()).isEqualTo(10);
            assertThat(RdmaPair.next(pair.clientCq).workRequestId()).isEqualTo(11);
            WorkCompletion first = RdmaPair.next(pair.serverCq);
            WorkCompletion second = RdmaPair.next(pair.serverCq);
            assertThat(first.status()).as(first.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(first.byteLength()).as("receive 1 got Send 10, not 9").isEqualTo(10);
            assertThat(second.status()).as(second.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(second.byteLength()).isEqualTo(11);
        } finally {
            sink.release();
            src.release();
        }
    }
}
