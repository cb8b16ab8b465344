package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/**
 * A completion queue listener must not throw; when it does, the exception fails the queue pair
 * whose completion it was, as {@link CompletionQueue#setListener} promises, wherever that
 * completion was made: in a write's listener (where Netty alone would log the exception and go
 * on) and inside the work queue's drain (where it would stop the commands behind it until the
 * next post). The queue pair's failure cause is the listener's exception and it closes.
 */
class CompletionListenerFailureTest {

    private final ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
    private final ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
    private final IllegalStateException boom = new IllegalStateException("the listener broke");
    /** Every completion the listener was called with, as "id STATUS", before it threw. */
    private final List<String> seen = new CopyOnWriteArrayList<>();

    /** Posts {@code requests(region of the server, region of the client)} on a client whose listener throws. */
    private void postUnderAThrowingListener(java.util.function.BiFunction<MemoryRegion, MemoryRegion,
            SendWorkRequest[]> requests) throws Exception {
        MemoryRegion[] serverMr = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(),
                server -> serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                client -> { })) {
            MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            pair.clientCq.setListener(c -> {
                seen.add(c.workRequestId() + " " + c.status());
                throw boom;
            });
            pair.client.postSend(requests.apply(serverMr[0], clientMr));

            pair.client.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pair.client.failureCause()).isSameAs(boom);
            assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(pair.client.terminateReason()).as("a local failure: no Terminate").isNull();
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void aListenerThatThrowsOnAWriteCompletionFailsTheQueuePair() throws Exception {
        postUnderAThrowingListener((server, client) -> new SendWorkRequest[] {
                SendWorkRequest.rdmaWrite(1, server.stag(), server.baseTaggedOffset(), client.sge(0, 8)),
                SendWorkRequest.rdmaWrite(2, server.stag(), server.baseTaggedOffset() + 8, client.sge(8, 8))});
        // The first Write's completion threw in its write listener; the second was still
        // outstanding and failed with the queue pair.
        assertThat(seen).containsExactly("1 SUCCESS", "2 FATAL");
    }

    @Test
    void aListenerThatThrowsOnACompletionMadeWhilePostingFailsTheQueuePair() throws Exception {
        // A Local Invalidate completes inside the work queue's drain, ahead of the Write behind it.
        postUnderAThrowingListener((server, client) -> new SendWorkRequest[] {
                SendWorkRequest.localInvalidate(1, client.stag()),
                SendWorkRequest.rdmaWrite(2, server.stag(), server.baseTaggedOffset(), client.sge(0, 8))});
        assertThat(seen).containsExactly("1 SUCCESS", "2 FLUSHED");
    }
}
