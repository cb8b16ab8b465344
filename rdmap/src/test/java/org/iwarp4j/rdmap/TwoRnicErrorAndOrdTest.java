package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/**
 * Two real RNICs: a Terminate caused by one work request fails the RDMA Read behind it on both
 * ends with the decoded reason; and RDMA Reads beyond ORD wait at the requester and all complete,
 * in order.
 */
class TwoRnicErrorAndOrdTest {

    @Test
    void aBadWriteEndsBothQueuePairsAndTheReadBehindItFailsWithTheDecodedReason() throws Exception {
        // RDMAP-R-009 (server sends DDP 0x1/0x1/0x00), RDMAP-R-028 and RDMAP-R-035 (client: the
        // outstanding Read completes REMOTE_ACCESS_ERROR with that reason), RDMAP-R-031 (the Write
        // itself completed SUCCESS when handed to TCP, before the Read, in posting order).
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
        try {
            MemoryRegion[] serverMr = new MemoryRegion[1];
            RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server -> {
                serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                server.postReceive(new ReceiveWorkRequest(90, serverMr[0].sge(0, 64)));
            }, client -> { });
            try {
                MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
                int unknownStag = serverMr[0].stag() ^ 0x5A5A_5A00; // another index: not registered
                pair.client.postSend(
                        SendWorkRequest.rdmaWrite(1, unknownStag, 0x1000, clientMr.sge(0, 100)),
                        SendWorkRequest.rdmaRead(2, serverMr[0].stag(), serverMr[0].baseTaggedOffset(),
                                clientMr.sge(1024, 512)));

                WorkCompletion write = RdmaPair.next(pair.clientCq);
                assertThat(write.workRequestId()).isEqualTo(1);
                assertThat(write.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                WorkCompletion read = RdmaPair.next(pair.clientCq);
                assertThat(read.workRequestId()).isEqualTo(2);
                assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                assertThat(read.status()).isEqualTo(WorkCompletionStatus.REMOTE_ACCESS_ERROR);
                assertThat(read.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
                assertThat(read.terminateReason().layer()).isEqualTo(TerminateReason.Layer.DDP);
                assertThat(ByteBufUtil.getBytes(clientMemory, 1024, 512)).containsOnly(0);

                pair.client.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);
                assertThat(pair.client.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
                assertThat(pair.client.terminateReceived()).isTrue(); // the peer found our Write bad
                assertThat(pair.client.terminatedStag()).hasValue(unknownStag); // and echoed its header

                // The server sent the Terminate: its QP is in ERROR with the reason, its receive flushed,
                // and it never answered the Read Request that followed the bad Write (RFC 5041 §7.1).
                WorkCompletion flushed = RdmaPair.next(pair.serverCq);
                assertThat(flushed.workRequestId()).isEqualTo(90);
                assertThat(flushed.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                assertThat(flushed.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
                pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(pair.server.state()).isEqualTo(QueuePairState.ERROR);
                assertThat(pair.server.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
                assertThat(pair.server.terminateReceived()).isFalse(); // it sent the Terminate
                assertThat(pair.server.terminatedStag()).isEmpty();
                assertThat(ByteBufUtil.getBytes(serverMemory)).containsOnly(0);
                assertThat(pair.clientCq.poll()).isNull();
                assertThat(pair.serverCq.poll()).isNull();
            } finally {
                pair.close();
            }
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void readsBeyondOrdWaitAndAllCompleteInPostingOrder() throws Exception {
        // MPA2-R-007, RDMAP-R-012, RDMAP-R-017, RDMAP-R-031: ORD 2, five 2 MiB Reads posted at once. The
        // requester holds three back; all succeed in posting order with the right data; the
        // responder, whose IRD is 2, never saw more than that (it would have Terminated: it is
        // still in RTS with no reason, RDMAP-R-013).
        int ord = 2;
        int reads = ord + 3;
        int size = 2 << 20;
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(reads * size).writeZero(reads * size);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(reads * size).writeZero(reads * size);
        byte[] data = new byte[reads * size];
        new Random(7).nextBytes(data);
        serverMemory.setBytes(0, data);
        try {
            MemoryRegion[] serverMr = new MemoryRegion[1];
            try (RdmaPair pair = new RdmaPair(MpaSettings.builder().ord(ord).build(), server ->
                    serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                    client -> { })) {
                assertThat(pair.client.negotiated().ord()).isEqualTo(ord);
                assertThat(pair.server.negotiated().ird()).isEqualTo(ord);
                MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
                SendWorkRequest[] requests = new SendWorkRequest[reads];
                for (int i = 0; i < reads; i++) {
                    // Read i fetches server slice (reads - 1 - i): posting order is not address order.
                    long source = serverMr[0].baseTaggedOffset() + (long) (reads - 1 - i) * size;
                    requests[i] = SendWorkRequest.rdmaRead(100 + i, serverMr[0].stag(), source,
                            clientMr.sge((long) i * size, size));
                }
                pair.client.postSend(requests);
                for (int i = 0; i < reads; i++) {
                    WorkCompletion c = RdmaPair.next(pair.clientCq);
                    assertThat(c.workRequestId()).as("posting order").isEqualTo(100 + i);
                    assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                    assertThat(c.byteLength()).isEqualTo(size);
                }
                for (int i = 0; i < reads; i++) {
                    assertThat(RdmaPair.sameOctets(clientMemory, i * size, serverMemory, (reads - 1 - i) * size, size))
                            .as("read %d", i).isTrue();
                }
                assertThat(pair.server.state()).isEqualTo(QueuePairState.RTS);
                assertThat(pair.server.terminateReason()).isNull();
                assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
            }
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }
}
