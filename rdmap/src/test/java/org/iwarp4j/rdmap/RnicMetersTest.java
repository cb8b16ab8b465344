package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The meters of every layer, as an {@link Rnic} with a registry reports them: each moves when, and
 * only when, its event happens (RDMA Messages by opcode each way, completions by opcode and status,
 * Terminates by direction, layer and type, payload placed by buffer model, FPDUs and octets on the
 * wire, live queue pairs and memory regions).
 */
class RnicMetersTest {

    private static final MpaSettings MPA = MpaSettings.builder().emss(MpaSettings.DEFAULT_EMSS).build();
    private final MeterRegistry serverMeters = new SimpleMeterRegistry();
    private final MeterRegistry clientMeters = new SimpleMeterRegistry();
    private final ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
    private final ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);

    @AfterEach
    void release() {
        serverMemory.release();
        clientMemory.release();
    }

    private static double count(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private static double gauge(MeterRegistry registry, String name, Rnic rnic) {
        return registry.get(name).tag("rnic", rnic.name()).gauge().value();
    }

    @Test
    void writeReadAndSendMoveTheMessageCompletionPlacementAndWireMeters() throws Exception {
        // RDMAP-R-010 (Write), RDMAP-R-017 (Read), RDMAP-R-019 (Send), each observed through the meters.
        MemoryRegion[] serverMr = new MemoryRegion[1];
        // No wake-up Write (QueuePairSettings.wakeUpWriteAfter): the server is silent until its Read
        // Response, and one held up past the default second would add a zero-length Write to the count.
        try (RdmaPair pair = new RdmaPair(Rnic.builder().meterRegistry(serverMeters),
                Rnic.builder().meterRegistry(clientMeters), MPA, b -> b, b -> b.wakeUpWriteAfter(Duration.ZERO),
                server -> {
                    serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                    server.postReceive(new ReceiveWorkRequest(1, serverMr[0].sge(4096, 4096)));
                }, client -> { })) {
            MemoryRegion local = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            pair.client.postSend(
                    SendWorkRequest.rdmaWrite(10, serverMr[0].stag(), serverMr[0].baseTaggedOffset(),
                            local.sge(0, 3000)),
                    SendWorkRequest.rdmaRead(11, serverMr[0].stag(), serverMr[0].baseTaggedOffset() + 100,
                            local.sge(4096, 2000)));
            assertThat(RdmaPair.next(pair.clientCq).isSuccess()).isTrue();
            assertThat(RdmaPair.next(pair.clientCq).isSuccess()).isTrue();
            pair.client.postSend(SendWorkRequest.send(12, local.sge(0, 700)));
            assertThat(RdmaPair.next(pair.clientCq).isSuccess()).isTrue();
            assertThat(RdmaPair.next(pair.serverCq).isSuccess()).isTrue();

            // One message each, whatever its segment count (3000 octets at MULPDU 1454 are 3 segments).
            assertThat(count(clientMeters, "iwarp.rdmap.messages", "direction", "tx", "opcode", "rdma_write"))
                    .isEqualTo(1);
            assertThat(count(clientMeters, "iwarp.rdmap.messages", "direction", "tx", "opcode", "rdma_read_request"))
                    .isEqualTo(1);
            assertThat(count(clientMeters, "iwarp.rdmap.messages", "direction", "rx", "opcode", "rdma_read_response"))
                    .isEqualTo(1);
            assertThat(count(clientMeters, "iwarp.rdmap.messages", "direction", "tx", "opcode", "send")).isEqualTo(1);
            assertThat(count(serverMeters, "iwarp.rdmap.messages", "direction", "rx", "opcode", "rdma_write"))
                    .isEqualTo(1);
            assertThat(count(serverMeters, "iwarp.rdmap.messages", "direction", "rx", "opcode", "rdma_read_request"))
                    .isEqualTo(1);
            assertThat(count(serverMeters, "iwarp.rdmap.messages", "direction", "tx", "opcode", "rdma_read_response"))
                    .isEqualTo(1);
            assertThat(count(serverMeters, "iwarp.rdmap.messages", "direction", "rx", "opcode", "send")).isEqualTo(1);
            assertThat(count(serverMeters, "iwarp.rdmap.messages", "direction", "rx", "opcode", "send_with_se"))
                    .isZero();

            assertThat(count(clientMeters, "iwarp.rdmap.completions", "opcode", "rdma_write", "status", "success"))
                    .isEqualTo(1);
            assertThat(count(clientMeters, "iwarp.rdmap.completions", "opcode", "rdma_read", "status", "success"))
                    .isEqualTo(1);
            assertThat(count(clientMeters, "iwarp.rdmap.completions", "opcode", "send", "status", "success"))
                    .isEqualTo(1);
            assertThat(count(serverMeters, "iwarp.rdmap.completions", "opcode", "receive", "status", "success"))
                    .isEqualTo(1);

            // Payload only: the Write's 3000 octets tagged; the Send's 700 plus the Read Request's
            // 28-octet header, which DDP places untagged into an IRD slot (QN 1).
            assertThat(count(serverMeters, "iwarp.ddp.placed", "model", "tagged")).isEqualTo(3000);
            assertThat(count(serverMeters, "iwarp.ddp.placed", "model", "untagged")).isEqualTo(700 + 28);
            assertThat(count(clientMeters, "iwarp.ddp.placed", "model", "tagged")).isEqualTo(2000);

            // MPA through the RNIC's registry: what one end sent, the other received.
            double sentFpdus = count(clientMeters, "iwarp.mpa.fpdus", "direction", "tx");
            assertThat(sentFpdus).isGreaterThanOrEqualTo(3 + 1 + 1);
            assertThat(count(serverMeters, "iwarp.mpa.fpdus", "direction", "rx")).isEqualTo(sentFpdus);
            assertThat(count(serverMeters, "iwarp.mpa.bytes", "direction", "rx"))
                    .isEqualTo(count(clientMeters, "iwarp.mpa.bytes", "direction", "tx"));
            assertThat(count(clientMeters, "iwarp.mpa.errors", "type", "crc")).isZero();
            assertThat(clientMeters.find("iwarp.rdmap.terminates").counters()).isEmpty();
        }
    }

    /** Two RDMA Reads posted together, with the client's ORD (RFC 6581 §9.1) as given. */
    private void twoReads(int clientOrd) throws Exception {
        MemoryRegion[] serverMr = new MemoryRegion[1];
        MpaSettings clientMpa = MpaSettings.builder().emss(MpaSettings.DEFAULT_EMSS).ord(clientOrd).build();
        try (RdmaPair pair = new RdmaPair(Rnic.builder().meterRegistry(serverMeters),
                Rnic.builder().meterRegistry(clientMeters), MPA, b -> b,
                b -> b.mpa(clientMpa).wakeUpWriteAfter(Duration.ZERO),
                server -> serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                client -> { })) {
            MemoryRegion local = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            // One post: both reach the engine in the same turn of its loop, before any Read Response is read.
            pair.client.postSend(
                    SendWorkRequest.rdmaRead(20, serverMr[0].stag(), serverMr[0].baseTaggedOffset(),
                            local.sge(0, 2000)),
                    SendWorkRequest.rdmaRead(21, serverMr[0].stag(), serverMr[0].baseTaggedOffset() + 2000,
                            local.sge(2000, 2000)));
            assertThat(RdmaPair.next(pair.clientCq).isSuccess()).isTrue();
            assertThat(RdmaPair.next(pair.clientCq).isSuccess()).isTrue();
        }
    }

    @Test
    void twoReadsPostedTogetherAreOutstandingAtOnceWithinOrd() throws Exception {
        // RDMAP-R-013 (the Responder's IRD, our ORD): the Requester may have ORD Reads outstanding.
        twoReads(MpaSettings.DEFAULT_IRD_ORD);
        DistributionSummary outstanding = clientMeters.get("iwarp.rdmap.reads.outstanding").summary();
        assertThat(outstanding.count()).isEqualTo(2);
        assertThat(outstanding.max()).isEqualTo(2); // the second went out before the first's Response came back
        assertThat(count(clientMeters, "iwarp.rdmap.reads.waited.ord")).isZero();
        // The server issued no Read: it records nothing.
        assertThat(serverMeters.get("iwarp.rdmap.reads.outstanding").summary().count()).isZero();
    }

    @Test
    void aReadBeyondOrdWaitsAndIsCountedSo() throws Exception {
        twoReads(1);
        DistributionSummary outstanding = clientMeters.get("iwarp.rdmap.reads.outstanding").summary();
        assertThat(outstanding.count()).isEqualTo(2);
        assertThat(outstanding.max()).isEqualTo(1); // ORD 1: one at a time
        assertThat(count(clientMeters, "iwarp.rdmap.reads.waited.ord")).isEqualTo(1);
    }

    @Test
    void aProtectionErrorCountsOneTerminateEachWayByLayerAndType() throws Exception {
        // RDMAP-R-009: a Write to a region without Remote Write -> DDP Tagged Buffer Error Terminate.
        MemoryRegion[] serverMr = new MemoryRegion[1];
        RdmaPair pair = new RdmaPair(Rnic.builder().meterRegistry(serverMeters),
                Rnic.builder().meterRegistry(clientMeters), MPA, b -> b, b -> b, server -> serverMr[0] =
                server.settings().protectionDomain().register(serverMemory, EnumSet.of(Access.REMOTE_READ)),
                client -> { });
        try {
            MemoryRegion local = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            pair.client.postSend(SendWorkRequest.rdmaWrite(10, serverMr[0].stag(), serverMr[0].baseTaggedOffset(),
                    local.sge(0, 16)));
            pair.client.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);

            assertThat(count(serverMeters, "iwarp.rdmap.terminates", "direction", "tx", "layer", "ddp",
                    "type", "tagged_buffer_error")).isEqualTo(1);
            assertThat(count(clientMeters, "iwarp.rdmap.terminates", "direction", "rx", "layer", "ddp",
                    "type", "tagged_buffer_error")).isEqualTo(1);
            assertThat(serverMeters.find("iwarp.rdmap.terminates").counters()).hasSize(1);
            assertThat(count(serverMeters, "iwarp.rdmap.messages", "direction", "tx", "opcode", "terminate"))
                    .isEqualTo(1);
            assertThat(count(clientMeters, "iwarp.rdmap.messages", "direction", "rx", "opcode", "terminate"))
                    .isEqualTo(1);
            // The refused Write was neither received as a message nor placed.
            assertThat(count(serverMeters, "iwarp.rdmap.messages", "direction", "rx", "opcode", "rdma_write"))
                    .isZero();
            assertThat(count(serverMeters, "iwarp.ddp.placed", "model", "tagged")).isZero();
        } finally {
            pair.closeAbruptly();
        }
    }

    @Test
    void flushedWorkCountsUnderItsStatus() throws Exception {
        // RDMAP-R-035: receives still posted when the queue pair closes complete as FLUSHED.
        MemoryRegion[] serverMr = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(Rnic.builder().meterRegistry(serverMeters),
                Rnic.builder().meterRegistry(clientMeters), MPA, b -> b, b -> b, server -> {
                    serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                    server.postReceive(new ReceiveWorkRequest(1, serverMr[0].sge(0, 64)),
                            new ReceiveWorkRequest(2, serverMr[0].sge(64, 64)));
                }, client -> { })) {
            pair.client.close().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(count(serverMeters, "iwarp.rdmap.completions", "opcode", "receive", "status", "flushed"))
                    .isEqualTo(2);
            assertThat(count(serverMeters, "iwarp.rdmap.completions", "opcode", "receive", "status", "success"))
                    .isZero();
        }
    }

    @Test
    void liveQueuePairsAndMemoryRegionsAreGauges() throws Exception {
        MemoryRegion[] serverMr = new MemoryRegion[1];
        RdmaPair pair = new RdmaPair(Rnic.builder().meterRegistry(serverMeters).name("server"),
                Rnic.builder().meterRegistry(clientMeters), MPA, b -> b, b -> b, server -> serverMr[0] =
                server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL), client -> { });
        assertThat(pair.serverRnic.name()).isEqualTo("server");
        assertThat(pair.clientRnic.name()).startsWith("rnic");
        assertThat(gauge(serverMeters, "iwarp.rnic.queue.pairs", pair.serverRnic)).isEqualTo(1);
        assertThat(gauge(clientMeters, "iwarp.rnic.queue.pairs", pair.clientRnic)).isEqualTo(1);
        assertThat(gauge(serverMeters, "iwarp.rnic.memory.regions", pair.serverRnic)).isEqualTo(1);
        assertThat(gauge(clientMeters, "iwarp.rnic.memory.regions", pair.clientRnic)).isZero();

        QueuePair idle = pair.clientRnic.createQueuePair(QueuePairSettings.builder(pair.clientPd, pair.clientCq)
                .build());
        assertThat(gauge(clientMeters, "iwarp.rnic.queue.pairs", pair.clientRnic)).isEqualTo(2);
        idle.close().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(gauge(clientMeters, "iwarp.rnic.queue.pairs", pair.clientRnic)).isEqualTo(1);

        serverMr[0].close();
        serverMr[0].close(); // a second deregistration changes nothing
        assertThat(gauge(serverMeters, "iwarp.rnic.memory.regions", pair.serverRnic)).isZero();

        pair.close();
        assertThat(gauge(serverMeters, "iwarp.rnic.queue.pairs", pair.serverRnic)).isZero();
        assertThat(gauge(clientMeters, "iwarp.rnic.queue.pairs", pair.clientRnic)).isZero();
    }

    @Test
    void withoutARegistryNothingIsRegisteredAnywhere() throws Exception {
        try (RdmaPair pair = new RdmaPair(MPA, server -> { }, client -> { })) {
            assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
            assertThat(RdmapMeters.of(null)).isSameAs(RdmapMeters.NONE);
        }
    }

    @Test
    void terminateTagValuesAreLowerCaseWords() {
        assertThat(RdmapMeters.tagValue(TerminateReason.RDMAP_INVALID_STAG.errorTypeName()))
                .isEqualTo("remote_protection_error");
        assertThat(RdmapMeters.tagValue(TerminateReason.of(0x5, 0x7, 0x01).layerName())).isEqualTo("layer_0x5");
    }
}
