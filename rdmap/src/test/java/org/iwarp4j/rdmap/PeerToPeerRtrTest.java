package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.EnumSet;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * RFC 6581 peer-to-peer model between two RNICs: the Initiator's first FPDU is the negotiated
 * RTR, the Responder's ULP never sees a Write or Read RTR, the Responder may send first once
 * connected, and the negotiated IRD/ORD reach both queue pairs.
 */
class PeerToPeerRtrTest {

    @ParameterizedTest(name = "RTR {0}")
    @EnumSource(value = RtrType.class, names = {"WRITE", "READ"})
    void rtrOpensTheResponderAndIsNotDelivered(RtrType rtr) throws Exception {
        // MPA2-R-008, MPA2-R-009, MPA2-R-011, MPA2-R-012, MPA2-R-013, RDMAP-R-033.
        MpaSettings mpa = MpaSettings.builder().peerToPeer(true).rtrTypes(EnumSet.of(rtr)).ird(4).ord(2).build();
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
        clientMemory.setBytes(0, "p2p".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        MemoryRegion[] clientMr = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(mpa, server -> { }, client -> {
            clientMr[0] = client.settings().protectionDomain().register(clientMemory, RdmaPair.ALL);
            client.postReceive(new ReceiveWorkRequest(1, clientMr[0].sge(16, 16)));
        })) {
            assertThat(pair.client.negotiated().peerToPeer()).isTrue();
            assertThat(pair.client.negotiated().rtr()).isEqualTo(rtr);
            assertThat(pair.server.negotiated().peerToPeer()).isTrue();
            // MPA2-R-005, MPA2-R-006: Responder IRD = min(Initiator ORD 2, own 4); ORD = min(Initiator IRD 4, own 2).
            assertThat(pair.server.negotiated().ird()).isEqualTo(2);
            assertThat(pair.server.negotiated().ord()).isEqualTo(2);
            assertThat(pair.client.negotiated().ord()).isEqualTo(2);

            // The Responder speaks first: possible only because the RTR arrived.
            MemoryRegion serverMr = pair.serverPd.register(serverMemory, RdmaPair.ALL);
            serverMemory.setBytes(0, "hi!".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            pair.server.postSend(SendWorkRequest.send(5, serverMr.sge(0, 3)));
            assertThat(RdmaPair.next(pair.serverCq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            WorkCompletion received = RdmaPair.next(pair.clientCq);
            assertThat(received.workRequestId()).isEqualTo(1);
            assertThat(received.byteLength()).isEqualTo(3);
            assertThat(ByteBufUtil.getBytes(clientMemory, 16, 3)).isEqualTo("hi!".getBytes());
            // MPA2-R-012: the RTR (a zero-length Write or Read) produced no completion anywhere.
            assertThat(pair.serverCq.size()).isZero();
            assertThat(pair.clientCq.size()).isZero();
            serverMr.close();
            clientMr[0].close();
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    /**
     * The RTR octets on the wire (docs/interop.md, "what iwarp4j sends and accepts"): a zero-length
     * Write with STag 1 and TO 0, as Linux siw sends it ({@code siw_qp_mpa_rts}), not the STag 0 of
     * the RFC-derived vector V-RTR-1, because some hardware treats STag 0 specially.
     */
    @Test
    void theWriteRtrCarriesStagOne() throws Exception {
        MpaSettings mpa = MpaSettings.builder().peerToPeer(true).rtrTypes(EnumSet.of(RtrType.WRITE)).build();
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            CompletionQueue cq = rnic.createCompletionQueue(8);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(rnic.allocateProtectionDomain(), cq)
                    .mpa(mpa).wakeUpWriteAfter(java.time.Duration.ZERO).build());
            try (RawMpaPeer responder = RawMpaPeer.acceptingFrom(qp, mpa)) {
                assertThat(responder.negotiated.rtr()).isNull();
                assertThat(qp.negotiated().rtr()).isEqualTo(RtrType.WRITE);
                assertThat(responder.take()).isEqualTo(Hex.decode("c140 00000001 00000000 00000000"));
            }
        }
    }

    /**
     * The Read RTR: a zero-length Read Request whose sink and source STags are 1 (TOs and size 0),
     * QN 1, MSN 1; the peer's zero-length Read Response completes it without any completion.
     */
    @Test
    void theReadRtrCarriesStagOneAsSinkAndSource() throws Exception {
        MpaSettings mpa = MpaSettings.builder().peerToPeer(true).rtrTypes(EnumSet.of(RtrType.READ)).build();
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            CompletionQueue cq = rnic.createCompletionQueue(8);
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq)
                    .mpa(mpa).wakeUpWriteAfter(java.time.Duration.ZERO).build());
            ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(8).writeZero(8);
            try (RawMpaPeer responder = RawMpaPeer.acceptingFrom(qp, mpa);
                 MemoryRegion mr = pd.register(memory, RdmaPair.ALL)) {
                assertThat(qp.negotiated().rtr()).isEqualTo(RtrType.READ);
                assertThat(responder.take()).isEqualTo(Hex.decode("4141 00000000 00000001 00000001 00000000"
                        + " 00000001 0000000000000000 00000000 00000001 0000000000000000"));
                responder.send(Hex.decode("c142 00000001 00000000 00000000"));
                // The queue pair goes on: a Send after the answered RTR arrives, and only it completes.
                memory.setBytes(0, "abcdefgh".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                qp.postSend(SendWorkRequest.send(7, mr.sge(0, 8)));
                assertThat(responder.take()).isEqualTo(Hex.decode("4143 00000000 00000000 00000001 00000000"
                        + " 6162636465666768"));
                assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(7);
                assertThat(cq.poll()).isNull();
                assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
            } finally {
                memory.release();
            }
        }
    }

    /**
     * {@link MpaSettings.Builder#preferredRtr}: the Responder's Reply names Write and Read; the
     * default would send the Write RTR, preferring Read puts the Read RTR on the wire first.
     */
    @Test
    void aPreferredReadRtrGoesOutWhenTheReplyNamesBoth() throws Exception {
        MpaSettings both = MpaSettings.builder().peerToPeer(true).rtrTypes(EnumSet.of(RtrType.WRITE, RtrType.READ))
                .build();
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            CompletionQueue cq = rnic.createCompletionQueue(8);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(rnic.allocateProtectionDomain(), cq)
                    .mpa(both.toBuilder().preferredRtr(RtrType.READ).build())
                    .wakeUpWriteAfter(java.time.Duration.ZERO).build());
            try (RawMpaPeer responder = RawMpaPeer.acceptingFrom(qp, both)) {
                assertThat(qp.negotiated().rtr()).isEqualTo(RtrType.READ);
                assertThat(responder.take()).isEqualTo(Hex.decode("4141 00000000 00000001 00000001 00000000"
                        + " 00000001 0000000000000000 00000000 00000001 0000000000000000"));
            }
        }
    }
}
