package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rdmap.DirectPlacementTest.GUARD;
import static org.iwarp4j.rdmap.DirectPlacementTest.assertIsMpaCrcErrorTerminate;
import static org.iwarp4j.rdmap.DirectPlacementTest.badCrcAfterPlacement;

import org.iwarp4j.rdmap.DirectPlacementTest.BadUlpdu;
import org.iwarp4j.rdmap.DirectPlacementTest.Outcome;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The requester's side of an RDMA Read whose Read Response FPDU fails MPA's CRC check after its
 * payload was read straight into the Read's sink (direct placement): the Read Response is placed
 * but never delivered (RFC 5044 §8, MPA-R-074), so the Read does not complete successfully
 * (RDMAP-R-019: a Read completes once its Response is delivered); the requester sends the
 * Terminate for the LLP error (RDMAP-R-037: Layer LLP, MPA, CRC error, no headers) and closes
 * (RDMAP-R-046); the Read completes in error with that reason and the posted receive is flushed
 * (RFC 5040 §6.2.1, RDMAP-R-035); and no octet outside the sink the Read named is written
 * (the region around it is registered too). All of it octet for octet as on the ordinary path
 * (copy after the CRC check), which writes nothing at all into the sink.
 */
class ReadResponseCrcErrorTest {

    private static final int LENGTH = 40000;
    private static final int SOURCE_STAG = 0x00005150;
    private static final long SOURCE_TO = 0x1000L;

    /** Posts Read 7 into the 40000 octets at {@link DirectPlacementTest#GUARD}, then answers it with {@code payload}. */
    private static final BadUlpdu READ_RESPONSE = (qp, mr, peer, payload) -> {
        long sinkTo = mr.baseTaggedOffset() + GUARD;
        qp.postSend(SendWorkRequest.rdmaRead(7, SOURCE_STAG, SOURCE_TO, mr.sge(GUARD, LENGTH)));
        // RFC 5040 §4.4, §5.2.1 (RDMAP-R-011): untagged, L=1, DV 1, RV 1 opcode 0x1, QN 1, MSN 1,
        // MO 0, then the sink STag and TO, the size, the source STag and TO.
        assertThat(Hex.encode(peer.take())).as("the Read Request").isEqualTo(Hex.encode(Hex.decode(String.format(
                "4141 00000000 00000001 00000001 00000000 %08x %016x %08x %08x %016x", mr.stag(), sinkTo, LENGTH,
                SOURCE_STAG, SOURCE_TO))));
        // The Read Response (RFC 5040 §4.5, RDMAP-R-016): tagged, L=1, RV 1 opcode 0x2, the sink STag and TO.
        return DirectPlacementTest.tagged(0x42, mr.stag(), sinkTo, payload);
    };

    @ParameterizedTest(name = "{0}")
    @CsvSource({"EPOLL", "NIO", "IO_URING"})
    void aReadResponseWithABadCrcAfterPlacementFailsTheReadAsOnTheOrdinaryPath(Transport transport)
            throws Exception {
        Assumptions.assumeTrue(transport.isAvailable(), transport + " unavailable");
        Outcome ordinary = badCrcAfterPlacement(false, transport, READ_RESPONSE);
        Outcome placed = badCrcAfterPlacement(true, transport, READ_RESPONSE);
        assertThat(ordinary.placedDirectly()).isZero();
        assertThat(placed.placedDirectly()).as("the Read Response was placed directly").isEqualTo(1);
        assertIsMpaCrcErrorTerminate(placed.terminate());
        assertThat(placed.terminate()).as("the Terminate's octets").isEqualTo(ordinary.terminate());
        // The Read fails with the Terminate's reason (FATAL: the error was the LLP's, not a refusal
        // by the peer) and no octets; then the posted receive is flushed.
        assertThat(placed.completions()).isEqualTo(ordinary.completions()).containsExactly(
                "7 RDMA_READ FATAL 0 " + TerminateReason.LLP_CRC_ERROR,
                "5 RECEIVE FLUSHED 0 " + TerminateReason.LLP_CRC_ERROR);
    }
}
