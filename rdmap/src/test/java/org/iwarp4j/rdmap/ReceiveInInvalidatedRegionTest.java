package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rdmap.DirectPlacementTest.GUARD;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A receive posted in a region that is deregistered ({@code mr.close()}) or locally invalidated
 * before the peer's Send arrives gets none of the Send: "when mr.close() ... returns, no read into
 * the memory is running and none starts" (docs/verbs.md) holds for a Send's placement as for a
 * Write's (RFC 5040 §8.1.1 #6, RDMAP-R-038), copied or read in place by direct placement, on every
 * transport. The receive completes LOCAL_PROTECTION_ERROR and the queue pair fails with a
 * Terminate DDP Local Catastrophic (0x1/0x0/0x00, no headers), as siw does when siw_check_sge
 * fails at a Send's placement. The region's memory is compared octet for octet afterwards.
 */
class ReceiveInInvalidatedRegionTest {

    private static final int LENGTH = 32 * 1024;

    @ParameterizedTest(name = "{0}, direct placement {1}, {2}")
    @CsvSource({"close, true, EPOLL", "close, false, EPOLL", "invalidate, true, EPOLL", "invalidate, false, EPOLL",
            "close, true, NIO", "close, true, IO_URING", "close, false, IO_URING"})
    void aSendIntoAReceiveWhoseRegionWentAwayPlacesNothing(String how, boolean direct, Transport transport)
            throws Exception {
        Assumptions.assumeTrue(transport.isAvailable(), transport + " unavailable");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ByteBuf memory = DirectPlacementTest.filled(LENGTH + 2 * GUARD, 0xEE);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).transport(transport).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(16);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).directPlacementThreshold(
                    direct ? 1024 : QueuePairSettings.NO_DIRECT_PLACEMENT).build());
            MemoryRegion mr = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            qp.postReceive(new ReceiveWorkRequest(5, mr.sge(GUARD, LENGTH)));
            byte[] fpdu = DirectPlacementTest.fpdu(DirectPlacementTest.send(DirectPlacementTest.random(LENGTH, 8)),
                    false);
            try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, DirectPlacementTest.MPA, DirectPlacementTest.MPA)) {
                // A zero-length Write first, so that MPA's fence is open and the Terminate may leave.
                peer.send(DirectPlacementTest.write(1, 0, new byte[0]));
                if (how.equals("close")) {
                    mr.close();
                } else {
                    qp.postSend(SendWorkRequest.localInvalidate(6, mr.stag()));
                    WorkCompletion invalidated = RdmaPair.next(cq);
                    assertThat(invalidated.workRequestId()).isEqualTo(6);
                    assertThat(invalidated.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                }
                assertThat(mr.isValid()).isFalse();

                // The Send's header and a little of its payload, so that the rest can be read in place.
                int head = 2 + 18 + 100;
                peer.sendRaw(Arrays.copyOf(fpdu, head));
                if (direct) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RdmaPair.WAIT_SECONDS);
                    while (DirectPlacementTest.placedDirectly(meters) < 1) {
                        assertThat(System.nanoTime()).as("the Send's placement started in time").isLessThan(deadline);
                        Thread.onSpinWait();
                    }
                }
                peer.sendRaw(Arrays.copyOfRange(fpdu, head, fpdu.length));

                WorkCompletion receive = RdmaPair.next(cq);
                assertThat(receive.workRequestId()).isEqualTo(5);
                assertThat(receive.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
                assertThat(receive.status()).isEqualTo(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
                assertThat(receive.terminateReason()).isEqualTo(TerminateReason.DDP_LOCAL_CATASTROPHIC);
                List<byte[]> ulpdus = peer.takeAllUntilClosed();
                assertThat(ulpdus).as("exactly one Terminate").hasSize(1);
                assertThat(Hex.encode(ulpdus.get(0)))
                        .isEqualTo("4147" + "00000000" + "00000002" + "00000001" + "00000000" + "10000000");
                qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(qp.terminateReason()).isEqualTo(TerminateReason.DDP_LOCAL_CATASTROPHIC);
                assertThat(qp.terminateReceived()).isFalse();
            }
            DirectPlacementTest.assertUntouched(memory, 0, memory.capacity(), 0xEE);
            assertThat(DirectPlacementTest.placedDirectly(meters)).isEqualTo(direct ? 1 : 0);
        } finally {
            memory.release();
        }
    }
}
