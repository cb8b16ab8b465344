package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.util.EnumSet;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link MemoryRegion#peerPlacedPrefix()}: the octets from a region's start that the peer's RDMA
 * Writes filled in order. A Write that starts where the prefix ends extends it; one past a gap, or
 * overlapping what was placed, does not (not even once the gap is filled); the local side's own
 * writes into the memory, and its own RDMA Writes out of a region, never count. The same on the
 * ordinary path and with the payloads read from the socket straight into the region (direct
 * placement). Each Write is followed by a Send, whose completion at the server says the Write
 * before it was placed (RFC 5040 §5.5).
 */
class PeerPlacedPrefixTest {

    private static final int K16 = 16 * 1024;
    /** Whole Writes in one FPDU each, large enough to be placed directly. */
    private static final MpaSettings LARGE_FPDUS =
            MpaSettings.builder().maxSendUlpdu(org.iwarp4j.mpa.MpaConstants.MAX_ULPDU).build();

    @ParameterizedTest(name = "direct placement {0}, {1}")
    @CsvSource({"true, EPOLL", "false, EPOLL", "true, NIO", "false, NIO", "true, IO_URING"})
    void onlyThePeersInOrderPlacementsFromTheStartCount(boolean direct, Transport transport) throws Exception {
        Assumptions.assumeTrue(transport.isAvailable(), transport + " unavailable");
        int threshold = direct ? 4096 : QueuePairSettings.NO_DIRECT_PLACEMENT;
        SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
        ByteBuf serverMemory = DirectPlacementTest.filled(4 * K16, 0xEE);
        ByteBuf receives = DirectPlacementTest.filled(64, 0);
        ByteBuf clientMemory = DirectPlacementTest.filled(4 * K16 + 1, 0x33);
        MemoryRegion[] target = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(Rnic.builder().transport(transport).meterRegistry(serverMeters),
                Rnic.builder().transport(transport), LARGE_FPDUS,
                b -> b.directPlacementThreshold(threshold), b -> b.directPlacementThreshold(threshold),
                server -> {
                    target[0] = server.settings().protectionDomain().register(serverMemory,
                            EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                    MemoryRegion r = server.settings().protectionDomain().register(receives,
                            EnumSet.of(Access.LOCAL_WRITE));
                    for (int i = 0; i < 8; i++) {
                        server.postReceive(new ReceiveWorkRequest(100 + i, r.sge(8L * i, 8)));
                    }
                }, client -> { })) {
            MemoryRegion region = target[0];
            MemoryRegion source = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            assertThat(region.peerPlacedPrefix()).as("nothing placed yet").isZero();

            serverMemory.setBytes(0, new byte[K16]);
            assertThat(region.peerPlacedPrefix()).as("after a local write").isZero();

            write(pair, region, source, K16, K16); // past a gap
            assertThat(region.peerPlacedPrefix()).as("after a Write past a gap").isZero();

            write(pair, region, source, 0, K16); // fills the gap: the prefix ends where this Write ends
            assertThat(region.peerPlacedPrefix()).as("after the in-order Write").isEqualTo(K16);

            write(pair, region, source, 2 * K16, K16); // the gap filled before counts no more
            assertThat(region.peerPlacedPrefix()).as("after a Write past the end of the earlier gap").isEqualTo(K16);

            write(pair, region, source, K16, K16); // contiguous
            assertThat(region.peerPlacedPrefix()).isEqualTo(2 * K16);

            write(pair, region, source, K16 + K16 / 2, K16); // overlaps the prefix and extends past it
            assertThat(region.peerPlacedPrefix()).as("after an overlapping Write").isEqualTo(2 * K16);

            write(pair, region, source, 2 * K16, K16 / 2); // contiguous again
            assertThat(region.peerPlacedPrefix()).isEqualTo(2 * K16 + K16 / 2);

            assertThat(source.peerPlacedPrefix()).as("the Writes' own source region").isZero();
            if (direct) {
                assertThat(DirectPlacementTest.placedDirectly(serverMeters)).as("FPDUs placed directly").isPositive();
            } else {
                assertThat(DirectPlacementTest.placedDirectly(serverMeters)).isZero();
            }
        } finally {
            serverMemory.release();
            receives.release();
            clientMemory.release();
        }
    }

    /** RDMA Writes {@code length} octets at {@code offset} of {@code region}, then a Send, and waits for the Send to arrive. */
    private static void write(RdmaPair pair, MemoryRegion region, MemoryRegion source, int offset, int length)
            throws Exception {
        pair.client.postSend(SendWorkRequest.rdmaWrite(1, region.stag(), region.baseTaggedOffset() + offset,
                source.sge(0, length)));
        assertThat(RdmaPair.next(pair.clientCq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        pair.client.postSend(SendWorkRequest.send(2, source.sge(4L * K16, 1)));
        assertThat(RdmaPair.next(pair.clientCq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(RdmaPair.next(pair.serverCq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
    }
}
