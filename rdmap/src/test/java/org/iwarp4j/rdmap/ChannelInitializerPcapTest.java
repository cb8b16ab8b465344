package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.pcap.PcapWriteHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Tshark;
import org.junit.jupiter.api.Test;

/**
 * {@link Rnic.Builder#channelInitializer}: a handler it adds sits at the head of every connection's
 * pipeline and sees the TCP stream itself. With Netty's PcapWriteHandler there, the capture is
 * real iWARP that Wireshark decodes layer by layer: the MPA startup frames, every FPDU with a good
 * CRC32c, and the DDP/RDMAP headers of an RDMA Write, Read Request, Read Response and Send.
 */
class ChannelInitializerPcapTest {

    @Test
    void theInitializerRunsOncePerConnectionBeforeTheIwarpHandlers() throws Exception {
        List<String> firstHandlers = new CopyOnWriteArrayList<>();
        List<Channel> clientChannels = new CopyOnWriteArrayList<>();
        try (RdmaPair pair = new RdmaPair(Rnic.builder().channelInitializer(ch -> firstHandlers.add(
                        ch.pipeline().names().toString())),
                Rnic.builder().channelInitializer(clientChannels::add),
                MpaSettings.builder().build(), b -> b, b -> b, server -> { }, client -> { })) {
            assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
            assertThat(firstHandlers).as("the server's pipeline when the initializer ran").hasSize(1);
            assertThat(firstHandlers.get(0)).doesNotContain("MpaStartupHandler").doesNotContain("QueuePairEngine");
            assertThat(clientChannels).hasSize(1);
        }
    }

    /**
     * {@link Rnic.Builder#capture}: the recorder is given each connection before the channel
     * initializer, on both ends, so a recorder and an application's initializer can be set together.
     */
    @Test
    void theCaptureRecorderRunsBeforeTheInitializerOnEveryConnection() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        try (RdmaPair pair = new RdmaPair(
                Rnic.builder().capture(ch -> order.add("server capture"))
                        .channelInitializer(ch -> order.add("server initializer")),
                Rnic.builder().capture(ch -> {
                    ch.pipeline().addFirst("recorder", new io.netty.channel.ChannelInboundHandlerAdapter());
                    order.add("client capture");
                }).channelInitializer(ch -> order.add("client initializer, first " + ch.pipeline().names().get(0))),
                MpaSettings.builder().build(), b -> b, b -> b, server -> { }, client -> { })) {
            assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
            assertThat(order).containsSubsequence("client capture", "client initializer, first recorder")
                    .containsSubsequence("server capture", "server initializer").hasSize(4);
        }
    }

    @Test
    void aPcapWriteHandlerAtTheHeadRecordsTrafficThatTsharkDecodesAsMpaDdpRdmap() throws Exception {
        assumeTrue(Tshark.available(), "tshark is not installed (scripts/install-test-deps.sh installs it)");
        ByteArrayOutputStream capture = new ByteArrayOutputStream();
        MeterRegistry clientMeters = new SimpleMeterRegistry();
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
        MemoryRegion[] serverMr = new MemoryRegion[1];
        try {
            try (RdmaPair pair = new RdmaPair(Rnic.builder(), Rnic.builder().meterRegistry(clientMeters)
                    .channelInitializer(ch -> ch.pipeline().addLast(new PcapWriteHandler(capture))),
                    // no wake-up Write: a server held up past its second would add a fourth Write
                    MpaSettings.builder().emss(MpaSettings.DEFAULT_EMSS).build(), b -> b,
                    b -> b.wakeUpWriteAfter(Duration.ZERO), server -> {
                        serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                        server.postReceive(new ReceiveWorkRequest(1, serverMr[0].sge(4096, 4096)));
                    }, client -> { })) {
                MemoryRegion local = pair.clientPd.register(clientMemory, RdmaPair.ALL);
                pair.client.postSend(
                        SendWorkRequest.rdmaWrite(10, serverMr[0].stag(), serverMr[0].baseTaggedOffset(),
                                local.sge(0, 3000)),
                        SendWorkRequest.rdmaRead(11, serverMr[0].stag(), serverMr[0].baseTaggedOffset(),
                                local.sge(4096, 2000)));
                RdmaPair.next(pair.clientCq);
                RdmaPair.next(pair.clientCq);
                pair.client.postSend(SendWorkRequest.send(12, local.sge(0, 700)));
                RdmaPair.next(pair.clientCq);
                RdmaPair.next(pair.serverCq);
            } // closing the RNICs ends their event loops: the capture is complete
            Path pcap = Files.createDirectories(Path.of("target", "pcap-hook")).resolve("rnic-client.pcap");
            synchronized (capture) {
                Files.write(pcap, capture.toByteArray());
            }
            String verbose = Tshark.read(pcap, "-V");
            assertThat(verbose).contains("ID Req frame").contains("ID Rep frame")
                    .doesNotContain("Bad CRC32").doesNotContain("Malformed");
            // Every FPDU this end sent or received, per the MPA meters, decoded with a good CRC.
            double fpdus = clientMeters.get("iwarp.mpa.fpdus").tag("direction", "tx").counter().count()
                    + clientMeters.get("iwarp.mpa.fpdus").tag("direction", "rx").counter().count();
            assertThat(Tshark.count(verbose, "(Good CRC32)")).isEqualTo((int) fpdus);
            // DDP and RDMAP headers, one line per DDP segment: 3 Write and 2 Read Response segments
            // (MULPDU 1454), one Read Request, one Send.
            String fields = Tshark.read(pcap, "-Y", "iwarp_rdma", "-T", "fields", "-E", "occurrence=a",
                    "-E", "aggregator=,", "-e", "iwarp_rdma.opcode");
            List<String> opcodes = new ArrayList<>();
            for (String line : fields.split("\\R")) {
                opcodes.addAll(Arrays.asList(line.trim().split(",")));
            }
            opcodes.removeIf(String::isEmpty);
            assertThat(opcodes).filteredOn("0x00"::equals).hasSize(3);
            assertThat(opcodes).filteredOn("0x01"::equals).hasSize(1);
            assertThat(opcodes).filteredOn("0x02"::equals).hasSize(2);
            assertThat(opcodes).filteredOn("0x03"::equals).hasSize(1);
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }
}
