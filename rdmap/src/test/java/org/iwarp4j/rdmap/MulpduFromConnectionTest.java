package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.Mulpdu;
import org.iwarp4j.mpa.NegotiationMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * With MPA's defaults, an RNIC sizes its FPDUs to the connection's EMSS (RFC 5044 §4.5, MPA-R-033):
 * on epoll it reads the socket's MSS, about 64 KiB over loopback, so MULPDU is the 64768 maximum
 * (less with markers where the formula says so); on NIO, which cannot read it, the fallback EMSS 1448. A 1 MiB
 * Write and Read move every octet either way (DDP-R-028: no segment above MULPDU).
 */
class MulpduFromConnectionTest {

    private static final int MIB = 1 << 20;

    @ParameterizedTest(name = "{0}, markers {1}")
    @CsvSource({"EPOLL, false", "EPOLL, true", "NIO, false"})
    void mulpduFollowsTheTransportsKnowledgeOfTheMss(Transport transport, boolean markers) throws Exception {
        assumeTrue(transport != Transport.EPOLL || Transport.best() == Transport.EPOLL, "no native epoll here");
        MpaSettings mpa = MpaSettings.builder().markers(markers ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .build();
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(MIB).writeZero(MIB);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(2 * MIB).writeZero(2 * MIB);
        byte[] payload = new byte[MIB];
        new Random(42).nextBytes(payload);
        clientMemory.setBytes(0, payload);
        try {
            MemoryRegion[] serverMr = new MemoryRegion[1];
            List<Channel> clientChannels = new CopyOnWriteArrayList<>();
            try (RdmaPair pair = new RdmaPair(Rnic.builder().transport(transport),
                    Rnic.builder().transport(transport).channelInitializer(clientChannels::add),
                    mpa, b -> b, b -> b,
                    server -> serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                    client -> { })) {
                // Linux bounds the MSS by half the peer's window at first (32 KiB over loopback).
                int mulpdu = pair.client.negotiated().sendMulpdu();
                if (transport == Transport.EPOLL) {
                    assertThat(pair.client.negotiated().mulpduFromConnection()).isTrue();
                    assertThat(mulpdu).isGreaterThan(Mulpdu.of(MpaSettings.DEFAULT_EMSS, markers));
                    assertThat(pair.server.negotiated().sendMulpdu())
                            .isGreaterThan(Mulpdu.of(MpaSettings.DEFAULT_EMSS, markers));
                } else {
                    assertThat(pair.client.negotiated().mulpduFromConnection()).isFalse();
                    assertThat(mulpdu).isEqualTo(Mulpdu.of(MpaSettings.FALLBACK_EMSS, markers));
                    assertThat(pair.server.negotiated().sendMulpdu()).isEqualTo(mulpdu);
                }
                MemoryRegion local = pair.clientPd.register(clientMemory, RdmaPair.ALL);
                pair.client.postSend(
                        SendWorkRequest.rdmaWrite(1, serverMr[0].stag(), serverMr[0].baseTaggedOffset(),
                                local.sge(0, MIB)),
                        SendWorkRequest.rdmaRead(2, serverMr[0].stag(), serverMr[0].baseTaggedOffset(),
                                local.sge(MIB, MIB)));
                assertThat(RdmaPair.next(pair.clientCq).isSuccess()).isTrue();
                assertThat(RdmaPair.next(pair.clientCq).isSuccess()).isTrue();
                assertThat(RdmaPair.sameOctets(serverMemory, 0, clientMemory, 0, MIB)).isTrue();
                assertThat(RdmaPair.sameOctets(clientMemory, MIB, clientMemory, 0, MIB)).isTrue();
                if (transport == Transport.EPOLL) {
                    // The current MULPDU (DDP-R-001: told anew when it changes) follows the MSS Linux
                    // reports now: above EMSS 1460's, at most the loopback MSS's. How far the window
                    // has opened depends on timing (a loaded machine saw 47238 after 1 MiB), so only
                    // the bounds are certain.
                    assertThat(pair.client.negotiated().currentSendMulpdu(clientChannels.get(0)))
                            .isGreaterThan(Mulpdu.of(MpaSettings.DEFAULT_EMSS, markers))
                            .isLessThanOrEqualTo(Mulpdu.of(65483, markers));
                }
            }
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }
}
