package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A completion that cannot be delivered fails its queue pair as a local failure: the completion
 * queue overran (verbs make that an error of the queue pair, not something to carry on past), or
 * the queue's listener threw, whichever path made the completion (the receive path, a write's
 * completion, the work queue's drain).
 */
class CompletionFailureTest {

    private final ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
    private final ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);

    @BeforeEach
    void fill() {
        clientMemory.setByte(0, 0x5A);
    }

    @AfterEach
    void release() {
        serverMemory.release();
        clientMemory.release();
    }

    @Test
    void anOverrunCompletionQueueFailsItsQueuePairInsteadOfLosingTheCompletionQuietly() throws Exception {
        CompletionQueue two = new CompletionQueue(2);
        MemoryRegion[] serverMr = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b.receiveCompletionQueue(two), b -> b,
                server -> {
                    serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                    for (int i = 0; i < 4; i++) {
                        server.postReceive(new ReceiveWorkRequest(10 + i, serverMr[0].sge(i * 64, 64)));
                    }
                }, client -> { })) {
            MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            for (int i = 0; i < 4; i++) {
                pair.client.postSend(SendWorkRequest.send(i, clientMr.sge(0, 8)));
            }
            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pair.server.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(pair.server.failureCause()).hasMessageContaining("completion queue overrun");
            // The two that fitted, in order; the third found the queue full and was lost.
            assertThat(two.poll().workRequestId()).isEqualTo(10);
            assertThat(two.poll().workRequestId()).isEqualTo(11);
        }
    }

    @Test
    void aListenerThrowingOnAWriteCompletionFailsTheQueuePair() throws Exception {
        // Before: a write's completion ran the listener in Netty's write listener, which logged the
        // exception and carried on, the queue pair in RTS.
        RuntimeException thrown = new IllegalStateException("listener failed");
        MemoryRegion[] serverMr = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server ->
                serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                client -> { })) {
            pair.clientCq.setListener(c -> {
                throw thrown;
            });
            MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            pair.client.postSend(
                    SendWorkRequest.rdmaWrite(1, serverMr[0].stag(), serverMr[0].baseTaggedOffset(), clientMr.sge(0, 8)),
                    SendWorkRequest.rdmaWrite(2, serverMr[0].stag(), serverMr[0].baseTaggedOffset(), clientMr.sge(0, 8)));
            pair.client.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(pair.client.failureCause()).isSameAs(thrown);
        }
    }

    @Test
    void aListenerThrowingOnAReceiveCompletionFailsTheQueuePair() throws Exception {
        RuntimeException thrown = new IllegalStateException("listener failed");
        MemoryRegion[] serverMr = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server -> {
            serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
            server.postReceive(new ReceiveWorkRequest(10, serverMr[0].sge(0, 64)),
                    new ReceiveWorkRequest(11, serverMr[0].sge(64, 64)));
        }, client -> { })) {
            pair.serverCq.setListener(c -> {
                throw thrown;
            });
            MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            pair.client.postSend(SendWorkRequest.send(1, clientMr.sge(0, 8)));
            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pair.server.failureCause()).isSameAs(thrown);
        }
    }
}
