package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A completion queue that overruns loses a completion; the queue pair that overran it must not go
 * on as if nothing happened (whoever waits for the lost work request would wait forever, and the
 * completions after it would land behind the gap). As on an RNIC, it fails: a Terminate RDMAP
 * Local Catastrophic Error to the peer (RFC 5040 §7.1 #1, RDMAP-R-036, no headers: RDMAP-R-026),
 * the connection closed, the failure cause naming the overrun. Our RNIC is the Initiator, a
 * hand-driven MPA peer ({@link RawMpaPeer}) the Responder, so the octets it sent can be checked.
 */
class CompletionQueueOverrunTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();

    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(2);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
    private final MemoryRegion region = pd.register(memory, RdmaPair.ALL);
    private final QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA)
            .wakeUpWriteAfter(Duration.ZERO).build());

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.release();
    }

    @Test
    void fourSignalledWritesIntoACompletionQueueOfTwoFailTheQueuePair() throws Exception {
        try (RawMpaPeer peer = RawMpaPeer.acceptingFrom(qp, MPA)) {
            qp.postSend(SendWorkRequest.rdmaWrite(1, 0x100, 0, region.sge(0, 8)),
                    SendWorkRequest.rdmaWrite(2, 0x100, 8, region.sge(8, 8)),
                    SendWorkRequest.rdmaWrite(3, 0x100, 16, region.sge(16, 8)),
                    SendWorkRequest.rdmaWrite(4, 0x100, 24, region.sge(24, 8)));

            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(qp.failureCause()).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("completion queue overrun, capacity 2");
            assertThat(qp.terminateReason()).isEqualTo(TerminateReason.RDMAP_LOCAL_CATASTROPHIC);
            assertThat(qp.terminateReceived()).isFalse();

            // The two that fitted, in order; the third was lost, the fourth (flushed) too.
            WorkCompletion first = cq.poll();
            WorkCompletion second = cq.poll();
            assertThat(first.workRequestId()).isEqualTo(1);
            assertThat(first.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(second.workRequestId()).isEqualTo(2);
            assertThat(second.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(cq.poll()).isNull();

            // On the wire: the four Writes (written before the first completion), then the
            // Terminate: untagged, L=1, opcode 0x7, QN 2, MSN 1, MO 0; RDMAP 0x0/0x0/0x00, no headers.
            List<byte[]> ulpdus = peer.takeAllUntilClosed();
            assertThat(ulpdus).hasSize(5);
            for (int i = 0; i < 4; i++) {
                assertThat(ulpdus.get(i)[1] & 0x0F).as("RDMAP opcode of ULPDU %d: RDMA Write", i).isZero();
            }
            assertThat(Hex.encode(ulpdus.get(4)))
                    .isEqualTo("4147" + "00000000" + "00000002" + "00000001" + "00000000" + "00000000");
        }
    }
}
