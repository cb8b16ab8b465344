package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RDMAP-R-029 (RFC 5040 §5.4, §7.1): a Terminate that is itself invalid is reported to the local
 * ULP only. It ends the queue pair as a valid one does (received, the connection closed), and
 * nothing at all is sent back: no Terminate of ours in answer to it (RDMAP-R-028's project rule),
 * checked on the octets that reach the hand-driven peer ({@link RawMpaPeer}). The reason reported
 * is what the peer wrote where a Terminate's control word is (MO 0), else RDMAP Remote Operation
 * Unspecified; the failure cause says what was wrong with it. Our queue pair is the Responder, so
 * before the peer's first FPDU it has sent nothing in Full Operation (MPA-R-061).
 */
class InvalidTerminateTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            // DDP header (untagged, L=1, opcode 0x7; QN, MSN, MO), octets after the control word,
            // the reason expected. The control word is always DDP / untagged / no buffer, 12 01 00 00.
            "100 octets: longer than any Terminate,  4147 00000000 00000002 00000001 00000000, 96, 1, 2, 1",
            "MSN 2,                                   4147 00000000 00000002 00000002 00000000, 0, 1, 2, 1",
            "MO 8,                                    4147 00000000 00000002 00000001 00000008, 0, 0, 2, 255",
            "on QN 0,                                 4147 00000000 00000000 00000001 00000000, 0, 1, 2, 1"})
    void anInvalidTerminateIsReportedLocallyAndNotAnswered(String what, String ddpHeader, int padding, int layer,
                                                           int etype, int code) throws Exception {
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(4);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA).build());
            qp.postReceive(new ReceiveWorkRequest(7, pd.register(memory, RdmaPair.ALL).sge(0, 64)));
            try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
                peer.send(Hex.decode(ddpHeader + "12010000" + "00".repeat(padding)));

                assertThat(peer.takeAllUntilClosed()).as("RDMAP-R-029: no Terminate in answer").isEmpty();
                assertThat(peer.octetsAfterStartupFrame()).as("octets our RNIC sent in Full Operation").isZero();
                qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
                assertThat(qp.terminateReceived()).isTrue();
                TerminateReason reason = TerminateReason.of(layer, etype, code);
                assertThat(qp.terminateReason()).isEqualTo(reason);
                assertThat(qp.failureCause()).hasMessageStartingWith("invalid Terminate from the peer, not answered");
                WorkCompletion flushed = RdmaPair.next(cq);
                assertThat(flushed.workRequestId()).isEqualTo(7);
                assertThat(flushed.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                assertThat(flushed.terminateReason()).isEqualTo(reason);
            }
        } finally {
            memory.release();
        }
    }
}
