package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.EnumSet;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.RtrType;
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
}
