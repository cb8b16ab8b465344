package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/** Orderly close (ULP graceful termination) and abortive close (the peer's RNIC goes away). */
class CloseTest {

    @Test
    void closeWithWritesOutstandingCompletesThemThenThePeerSeesTheClose() throws Exception {
        // RDMAP-R-034 (ULP graceful termination: in-progress operations complete, then a graceful
        // LLP close), RDMAP-R-031 (in order), DDP-R-040: eight 1 MiB Writes posted, close() at once.
        int writes = 8;
        int size = 1 << 20;
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(writes * size).writeZero(writes * size);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(writes * size);
        byte[] data = new byte[writes * size];
        new Random(8).nextBytes(data);
        clientMemory.writeBytes(data);
        try {
            MemoryRegion[] serverMr = new MemoryRegion[1];
            RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server -> {
                serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                server.postReceive(new ReceiveWorkRequest(80, serverMr[0].sge(0, 16)));
            }, client -> { });
            try {
                MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
                pair.client.postReceive(new ReceiveWorkRequest(81, clientMr.sge(0, 16)));
                SendWorkRequest[] requests = new SendWorkRequest[writes];
                for (int i = 0; i < writes; i++) {
                    requests[i] = SendWorkRequest.rdmaWrite(i, serverMr[0].stag(),
                            serverMr[0].baseTaggedOffset() + (long) i * size, clientMr.sge((long) i * size, size));
                }
                pair.client.postSend(requests);
                java.util.concurrent.CompletableFuture<QueuePair> closed = pair.client.close();

                for (int i = 0; i < writes; i++) {
                    WorkCompletion c = RdmaPair.next(pair.clientCq);
                    assertThat(c.workRequestId()).isEqualTo(i);
                    assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);
                    assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                }
                WorkCompletion clientReceive = RdmaPair.next(pair.clientCq);
                assertThat(clientReceive.workRequestId()).isEqualTo(81);
                assertThat(clientReceive.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                assertThat(clientReceive.terminateReason()).as("no Terminate in an orderly close").isNull();
                closed.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);

                // The peer sees the close after every Write was placed: nothing acknowledged is lost.
                pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(pair.server.state()).isEqualTo(QueuePairState.ERROR);
                assertThat(pair.server.terminateReason()).isNull();
                WorkCompletion serverReceive = RdmaPair.next(pair.serverCq);
                assertThat(serverReceive.workRequestId()).isEqualTo(80);
                assertThat(serverReceive.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                assertThat(RdmaPair.sameOctets(serverMemory, 0, clientMemory, 0, writes * size)).isTrue();
                assertThat(pair.clientCq.poll()).isNull();
                assertThat(pair.serverCq.poll()).isNull();
                // Posted after the close: not carried out, flushed (QueuePair#postSend).
                pair.client.postSend(SendWorkRequest.send(99, clientMr.sge(0, 1)));
                WorkCompletion late = RdmaPair.next(pair.clientCq);
                assertThat(late.workRequestId()).isEqualTo(99);
                assertThat(late.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            } finally {
                pair.close();
            }
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void whenThePeerRnicIsClosedAbruptlyPostedReceivesAreFlushedAndTheQueuePairFails() throws Exception {
        // RDMAP-R-035 (LLP abortive termination: posted work completes FLUSHED), RDMAP-R-034 (no
        // Terminate: the reason stays empty), DDP-R-043.
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
        try {
            MemoryRegion[] clientMr = new MemoryRegion[1];
            RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server -> { }, client -> {
                clientMr[0] = client.settings().protectionDomain().register(clientMemory, RdmaPair.ALL);
                client.postReceive(new ReceiveWorkRequest(1, clientMr[0].sge(0, 1024)),
                        new ReceiveWorkRequest(2, clientMr[0].sge(1024, 1024)),
                        new ReceiveWorkRequest(3, clientMr[0].sge(2048, 1024)));
            });
            try {
                assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
                pair.serverRnic.close();

                for (long id = 1; id <= 3; id++) {
                    WorkCompletion c = RdmaPair.next(pair.clientCq);
                    assertThat(c.workRequestId()).isEqualTo(id);
                    assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
                    assertThat(c.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                    assertThat(c.terminateReason()).isNull();
                }
                pair.client.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);
                assertThat(pair.client.terminateReason()).isNull();
                assertThat(pair.clientCq.poll()).isNull();
                assertThatThrownBy(() -> pair.client.postReceive(new ReceiveWorkRequest(4, clientMr[0].sge(0, 1))))
                        .isInstanceOf(IllegalStateException.class);
            } finally {
                pair.closeAbruptly();
            }
        } finally {
            clientMemory.release();
        }
    }
}
