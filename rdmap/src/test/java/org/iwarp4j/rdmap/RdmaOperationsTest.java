package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.Random;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Send/Receive, RDMA Write and RDMA Read between two RNICs over loopback TCP, data compared octet for octet. */
class RdmaOperationsTest {

    private static MpaSettings mpa(boolean crc, boolean markers) {
        return MpaSettings.builder().crc(crc ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .markers(markers ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .emss(MpaSettings.DEFAULT_EMSS).build(); // MULPDU 1454 whatever the loopback MSS
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @ParameterizedTest(name = "{0} octets, crc {1}, markers {2}")
    @CsvSource({"0, true, false", "1, true, false", "4095, false, false", "1453, true, true", "1455, true, true",
            "1048576, true, false"})
    void sendWriteAndReadMoveTheExactOctets(int size, boolean crc, boolean markers) throws Exception {
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(3 * size + 3).writeZero(3 * size + 3);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(3 * size + 3).writeZero(3 * size + 3);
        byte[] payload = random(size, size);
        clientMemory.setBytes(0, payload);
        try {
            MemoryRegion[] serverMr = new MemoryRegion[1];
            try (RdmaPair pair = new RdmaPair(mpa(crc, markers), server -> {
                serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                server.postReceive(new ReceiveWorkRequest(7, serverMr[0].sge(0, size + 1)));
            }, client -> { })) {
                MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
                MemoryRegion smr = serverMr[0];

                // Send -> the server's posted receive.
                pair.client.postSend(SendWorkRequest.send(1, clientMr.sge(0, size)));
                WorkCompletion sent = RdmaPair.next(pair.clientCq);
                assertThat(sent.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(sent.opcode()).isEqualTo(WorkCompletionOpcode.SEND);
                WorkCompletion received = RdmaPair.next(pair.serverCq);
                assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(received.workRequestId()).isEqualTo(7);
                assertThat(received.byteLength()).isEqualTo(size);
                assertThat(ByteBufUtil.getBytes(serverMemory, 0, size)).isEqualTo(payload);

                // RDMA Write into the server's region at offset size+1.
                pair.client.postSend(SendWorkRequest.rdmaWrite(2, smr.stag(), smr.baseTaggedOffset() + size + 1,
                        clientMr.sge(0, size)));
                WorkCompletion written = RdmaPair.next(pair.clientCq);
                assertThat(written.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(written.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);

                // RDMA Read it back into the client's region at offset 2*size+2: also fences the Write.
                // RDMAP-R-019: the Read completes only once its Response is placed (data checked below).
                pair.client.postSend(SendWorkRequest.rdmaRead(3, smr.stag(), smr.baseTaggedOffset() + size + 1,
                        clientMr.sge(2L * size + 2, size)));
                WorkCompletion read = RdmaPair.next(pair.clientCq);
                assertThat(read.status()).as(read.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                assertThat(read.byteLength()).isEqualTo(size);
                assertThat(ByteBufUtil.getBytes(serverMemory, size + 1, size)).isEqualTo(payload);
                assertThat(ByteBufUtil.getBytes(clientMemory, 2 * size + 2, size)).isEqualTo(payload);
                assertThat(pair.serverCq.size()).as("RDMAP-R-010: Writes and Reads are not delivered to the target's ULP").isZero();
            }
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }
}
