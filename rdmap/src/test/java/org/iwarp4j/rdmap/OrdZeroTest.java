package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A connection that negotiates ORD 0 (RFC 6581 §9.1: the Responder's IRD was 0, or the Initiator
 * asked for ORD 0) may have no RDMA Read outstanding, ever. A Read posted on it must not wait for
 * ORD forever: completions are in order, so the work behind it and an orderly close would wait
 * with it. Posted once the connection is up it is refused (as siw's post fails); posted before,
 * it completes at once with LOCAL_PROTECTION_ERROR and the queue pair goes on. Our RNIC is the
 * Initiator, a hand-driven MPA Responder ({@link RawMpaPeer}) shows what reached the wire.
 */
class OrdZeroTest {

    /** A test's part: {@code qp} not yet connected, with a region and its completion queue. */
    @FunctionalInterface
    private interface Body {
        void run(QueuePair qp, MemoryRegion mr, CompletionQueue cq, MpaSettings peerMpa) throws Exception;
    }

    /**
     * Runs {@code body} with a fresh queue pair set up for one of the two ways to ORD 0: the peer
     * replies IRD 0 ({@code peerMpa}), or this end asks for ORD 0.
     */
    private static void withOrdZero(boolean peerIrdZero, Body body) throws Exception {
        MpaSettings ours = peerIrdZero ? MpaSettings.builder().build() : MpaSettings.builder().ord(0).build();
        MpaSettings peers = peerIrdZero ? MpaSettings.builder().ird(0).build() : MpaSettings.builder().build();
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(8);
            MemoryRegion mr = pd.register(memory, RdmaPair.ALL);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(ours)
                    .wakeUpWriteAfter(Duration.ZERO).build());
            body.run(qp, mr, cq, peers);
        } finally {
            memory.release();
        }
    }

    @ParameterizedTest(name = "peer IRD 0: {0}")
    @ValueSource(booleans = {true, false})
    void aReadPostedBeforeTheConnectionCompletesInErrorAndTheWriteBehindItGoesOut(boolean peerIrdZero)
            throws Exception {
        withOrdZero(peerIrdZero, (qp, mr, cq, peerMpa) -> {
            qp.postSend(SendWorkRequest.rdmaRead(1, 0x100, 0, mr.sge(0, 16)),
                    SendWorkRequest.rdmaWrite(2, 0x100, 0, mr.sge(16, 16)));
            try (RawMpaPeer peer = RawMpaPeer.acceptingFrom(qp, peerMpa)) {
                assertThat(qp.negotiated().ord()).isZero();
                WorkCompletion read = RdmaPair.next(cq);
                assertThat(read.workRequestId()).isEqualTo(1);
                assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                assertThat(read.status()).isEqualTo(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
                WorkCompletion write = RdmaPair.next(cq);
                assertThat(write.workRequestId()).isEqualTo(2);
                assertThat(write.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(qp.state()).as("a local error of the request: the queue pair goes on")
                        .isEqualTo(QueuePairState.RTS);

                qp.close().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                List<byte[]> ulpdus = peer.takeAllUntilClosed();
                assertThat(ulpdus).as("the Write alone: no Read Request was sent").hasSize(1);
                assertThat(ulpdus.get(0)[1] & 0x0F).as("RDMAP opcode: RDMA Write").isZero();
            }
        });
    }

    @ParameterizedTest(name = "peer IRD 0: {0}")
    @ValueSource(booleans = {true, false})
    void aReadPostedOnTheConnectionIsRefused(boolean peerIrdZero) throws Exception {
        withOrdZero(peerIrdZero, (qp, mr, cq, peerMpa) -> {
            try (RawMpaPeer peer = RawMpaPeer.acceptingFrom(qp, peerMpa)) {
                assertThatIllegalStateException().isThrownBy(() -> qp.postSend(
                        SendWorkRequest.rdmaWrite(1, 0x100, 0, mr.sge(16, 16)),
                        SendWorkRequest.rdmaRead(2, 0x100, 0, mr.sge(0, 16))))
                        .withMessageContaining("ORD 0");
                // None of that call was posted; the queue pair serves the next post.
                qp.postSend(SendWorkRequest.rdmaWrite(3, 0x100, 0, mr.sge(16, 16)));
                WorkCompletion write = RdmaPair.next(cq);
                assertThat(write.workRequestId()).isEqualTo(3);
                assertThat(write.status()).isEqualTo(WorkCompletionStatus.SUCCESS);

                qp.close().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(peer.takeAllUntilClosed()).hasSize(1);
                assertThat(cq.poll()).isNull();
            }
        });
    }
}
