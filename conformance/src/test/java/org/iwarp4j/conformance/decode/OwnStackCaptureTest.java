package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.pcap.PcapWriteHandler;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Our own RNICs, recorded with Netty's PcapWriteHandler at the head of the client's pipeline, with
 * markers and CRC required and, in one case, the RFC 6581 peer-to-peer model with a Read RTR:
 * the decoder must find every FPDU (markers removed, CRCs good) and not one violation.
 */
class OwnStackCaptureTest {

    @ParameterizedTest(name = "peer-to-peer {0}")
    @CsvSource({"false", "true"})
    void ourTrafficWithMarkersAndCrcIsClean(boolean peerToPeer) throws Exception {
        MpaSettings.Builder settings = MpaSettings.builder().markers(NegotiationMode.REQUIRE)
                .crc(NegotiationMode.REQUIRE).emss(1460);
        if (peerToPeer) {
            settings.peerToPeer(true).rtrTypes(EnumSet.of(RtrType.READ));
        }
        MpaSettings mpa = settings.build();
        ByteArrayOutputStream capture = new ByteArrayOutputStream();
        ByteBuf serverMemory = Unpooled.directBuffer(16384).writeZero(16384);
        ByteBuf memory = Unpooled.directBuffer(16384).writeZero(16384);
        try (Rnic server = Rnic.builder().build();
             Rnic client = Rnic.builder().channelInitializer(ch -> ch.pipeline().addLast(new PcapWriteHandler(capture)))
                     .build()) {
            ProtectionDomain serverPd = server.allocateProtectionDomain();
            MemoryRegion target = serverPd.register(serverMemory,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            CompletionQueue serverCq = server.createCompletionQueue(64);
            QueuePair serverQp = server.createQueuePair(QueuePairSettings.builder(serverPd, serverCq).mpa(mpa).build());
            serverQp.postReceive(new ReceiveWorkRequest(1, target.sge(12288, 4096)));
            Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), mpa,
                    request -> request.accept(serverQp));
            ProtectionDomain pd = client.allocateProtectionDomain();
            MemoryRegion local = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            CompletionQueue cq = client.createCompletionQueue(64);
            // No wake-up Write: the server is silent until its Read Response (or RTR answer), and one
            // held up past the default second would add a zero-length Write to the count below.
            QueuePair qp = client.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(mpa)
                    .wakeUpWriteAfter(Duration.ZERO).build());
            qp.connect(listener.localAddress()).get(10, TimeUnit.SECONDS);

            qp.postSend(SendWorkRequest.rdmaWrite(10, target.stag(), target.baseTaggedOffset(), local.sge(0, 5000)));
            qp.postSend(SendWorkRequest.rdmaRead(11, target.stag(), target.baseTaggedOffset(),
                    local.sge(8192, 3000)));
            assertThat(poll(cq).isSuccess()).isTrue();
            assertThat(poll(cq).isSuccess()).isTrue();
            qp.postSend(SendWorkRequest.send(12, local.sge(0, 777)));
            assertThat(poll(cq).isSuccess()).isTrue();
            assertThat(poll(serverCq).isSuccess()).isTrue();
        } finally {
            serverMemory.release();
            memory.release();
        }
        byte[] pcap;
        synchronized (capture) {
            pcap = capture.toByteArray();
        }
        // Kept for a look with iwarp decode or tshark.
        java.nio.file.Path file = java.nio.file.Files.createDirectories(java.nio.file.Path.of("target", "own-stack"))
                .resolve("markers-crc" + (peerToPeer ? "-p2p" : "") + ".pcap");
        java.nio.file.Files.write(file, pcap);
        DecodeReport r = CaptureDecoder.decode(file, DecodeOptions.DEFAULT);
        assertThat(r.violations()).isEmpty();
        assertThat(r.connections()).singleElement().satisfies(c -> assertThat(c.negotiated())
                .startsWith("rev 2, CRC on, markers I>R on R>I on"));
        List<String> lines = r.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());
        // MULPDU of EMSS 1460 with markers: 1442 octets, so the 5000-octet Write takes 4 segments.
        assertThat(lines.stream().filter(l -> l.startsWith("Write STag ")).count()).isEqualTo(4);
        assertThat(lines.stream().filter(l -> l.startsWith("Read Response STag ") && !l.contains(" len 0 ")).count())
                .isEqualTo(3);
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("Send QN 0 MSN 1 MO 0 len 777 L"));
        if (peerToPeer) {
            assertThat(lines.get(0)).contains(" A RTR [READ]");
            assertThat(lines.get(2)).startsWith("Read Request QN 1 MSN 1 MO 0 len 28 L").contains(" size 0 ");
        }
        // Markers were there and removed: some FPDU reports the ones inside it.
        assertThat(r.units()).anySatisfy(u -> assertThat(u.layers().get("mpa")).containsKey("markers"));
    }

    private static WorkCompletion poll(CompletionQueue cq) throws InterruptedException {
        WorkCompletion c = cq.poll(10, TimeUnit.SECONDS);
        assertThat(c).as("a completion within 10 s").isNotNull();
        return c;
    }
}
