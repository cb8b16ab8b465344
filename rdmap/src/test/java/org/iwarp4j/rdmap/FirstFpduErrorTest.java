package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hostile Initiator whose first FPDU is wrong, against our queue pair as Responder (a raw MPA
 * peer, {@link RawMpaPeer}, is the Initiator and checks the octets on the wire).
 *
 * <p>An MPA error in that FPDU (CRC, marker, ULPDU_Length) leaves the Responder unable to send
 * anything: it may send only after the Initiator's first FPDU arrived intact (RFC 5044 §7.1.2 #4,
 * MPA-R-061), and after the error MPA passes nothing more (MPA-R-074). So no Terminate goes out
 * (RFC 5040 §6.2.1: "not always possible") and the connection is closed at once (RFC 5040 §7,
 * RDMAP-R-046; MPA itself must not close for errors 2 and 3, MPA-R-075): the peer sees no octet
 * after the Reply, then the close; the queue pair is in ERROR with the reason, its work completed
 * in error, the queue pair gauge back to 0. The close time measured from the bad FPDU is printed.
 *
 * <p>A first FPDU that passes MPA but breaks a DDP rule opens the fence, so its Terminate is sent
 * (RDMAP-R-036). A Terminate that cannot leave because the peer stops reading is given up after
 * {@link QueuePairSettings.Builder#terminateCloseTimeout} and the connection closed anyway.
 */
class FirstFpduErrorTest {

    private static final MpaSettings MPA = MpaSettings.builder().build(); // rev 2, CRC on
    /** Far beyond every wait here: a close within the wait cannot have come from this timeout. */
    private static final Duration NEVER = Duration.ofMinutes(10);
    /** ULPDU of a zero-length RDMA Write (STag 0, TO 0): valid, and not delivered (RFC 5041 §5.2). */
    private static final byte[] ZERO_LENGTH_WRITE = Hex.decode("c140 00000000 00000000 00000000");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CompletableFuture<Channel> connection = new CompletableFuture<>();
    private final CompletableFuture<Void> unwritable = new CompletableFuture<>();
    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(registry)
            .channelInitializer(this::watch).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(512);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(65536).writeZero(65536);
    private final MemoryRegion region = pd.register(memory, RdmaPair.ALL);
    private QueuePair qp;

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.release();
    }

    /** Captures our end of the connection and notices when its outbound buffer backs up. */
    private void watch(Channel ch) {
        if (ch instanceof io.netty.channel.socket.SocketChannel) {
            connection.complete(ch);
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    if (!ctx.channel().isWritable()) {
                        unwritable.complete(null);
                    }
                    ctx.fireChannelWritabilityChanged();
                }
            });
        }
    }

    private RawMpaPeer connect(MpaSettings listenMpa, Duration terminateCloseTimeout) throws Exception {
        qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(listenMpa)
                .terminateCloseTimeout(terminateCloseTimeout).build());
        qp.postReceive(new ReceiveWorkRequest(1, region.sge(0, 1024)));
        RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, listenMpa, MPA);
        // Our Responder has something to say at once: MPA must hold it (MPA-R-061).
        qp.postSend(SendWorkRequest.send(2, region.sge(1024, 64)));
        return peer;
    }

    /** {@code marker} (if not null), ULPDU_Length, the ULPDU, PAD and a right CRC (RFC 5044 §4). */
    private static byte[] fpdu(byte[] marker, int ulpduLength, byte[] ulpdu) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (marker != null) {
            out.writeBytes(marker);
        }
        out.write(ulpduLength >> 8);
        out.write(ulpduLength);
        out.writeBytes(ulpdu);
        out.writeBytes(new byte[(4 - ((2 + ulpdu.length) & 3)) & 3]);
        CRC32C crc = new CRC32C();
        crc.update(out.toByteArray());
        int value = (int) crc.getValue();
        out.write(value);
        out.write(value >> 8);
        out.write(value >> 16);
        out.write(value >> 24);
        return out.toByteArray();
    }

    private double counted(String meter) {
        return registry.get(meter).counter().count();
    }

    private double terminatesSent() {
        return registry.find("iwarp.rdmap.terminates").tag("direction", "tx").counters().stream()
                .mapToDouble(c -> c.count()).sum();
    }

    /**
     * Sends {@code badFpdu} as the Initiator's first FPDU and checks the withheld-Terminate
     * outcome: nothing after the Reply, the connection closed, the queue pair failed with {@code reason}.
     */
    private void assertClosedWithoutTerminate(RawMpaPeer peer, byte[] badFpdu, TerminateReason reason)
            throws Exception {
        assertThat(registry.get("iwarp.rnic.queue.pairs").gauge().value()).isEqualTo(1);
        CompletableFuture<Long> closedAt = peer.closed.thenApply(v -> System.nanoTime());
        long sent = System.nanoTime();
        peer.sendRaw(badFpdu);
        long closeNanos = closedAt.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS) - sent;
        System.out.printf("%s: connection closed %.1f ms after the bad first FPDU%n", reason,
                closeNanos / 1e6);
        qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        // The queue pair gauge is updated on the event loop as the close completes; a task queued
        // behind that one sees the result.
        connection.get().eventLoop().submit(() -> { }).get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat(peer.octetsAfterStartupFrame()).as("octets after the MPA Reply (MPA-R-061)").isZero();
        assertThat(peer.takeAllUntilClosed()).isEmpty();
        assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(qp.terminateReason()).isEqualTo(reason);
        assertThat(qp.terminateWithheld()).isTrue();
        assertThat(counted("iwarp.rdmap.terminates.withheld")).isEqualTo(1);
        assertThat(terminatesSent()).isZero();
        assertThat(registry.get("iwarp.rnic.queue.pairs").gauge().value()).isZero();
        List<WorkCompletion> completions = new ArrayList<>();
        completions.add(RdmaPair.next(cq));
        completions.add(RdmaPair.next(cq));
        assertThat(completions).extracting(WorkCompletion::workRequestId).containsExactlyInAnyOrder(1L, 2L);
        assertThat(completions).allSatisfy(c -> {
            assertThat(c.isSuccess()).isFalse();
            assertThat(c.terminateReason()).isEqualTo(reason);
        });
        assertThat(cq.poll()).as("one completion per work request").isNull();
    }

    @Test
    void aBadCrcInTheFirstFpduClosesAtOnceWithoutATerminate() throws Exception {
        try (RawMpaPeer peer = connect(MPA, NEVER)) {
            byte[] bad = fpdu(null, ZERO_LENGTH_WRITE.length, ZERO_LENGTH_WRITE);
            bad[bad.length - 1] ^= 0x01;
            assertClosedWithoutTerminate(peer, bad, TerminateReason.LLP_CRC_ERROR);
        }
    }

    @Test
    void aUlpduLengthOverTheMaximumInTheFirstFpduClosesAtOnceWithoutATerminate() throws Exception {
        MpaSettings listen = MpaSettings.builder().maxReceiveUlpdu(1024).build();
        try (RawMpaPeer peer = connect(listen, NEVER)) {
            // Only the length field is needed for the error: 0xFFFF cannot start a valid FPDU here.
            assertClosedWithoutTerminate(peer, Hex.decode("ffff 0000"), TerminateReason.LLP_MARKER_ERROR);
        }
    }

    @Test
    void aWrongMarkerInTheFirstFpduClosesAtOnceWithoutATerminate() throws Exception {
        // We ask for markers (M=1); Full Operation's first octets are a marker with FPDUPTR 0
        // (MPA-R-064). This one points 16 octets back, under a right CRC: marker error (code 3).
        MpaSettings listen = MpaSettings.builder().markers(NegotiationMode.REQUIRE).build();
        try (RawMpaPeer peer = connect(listen, NEVER)) {
            byte[] bad = fpdu(Hex.decode("00000010"), ZERO_LENGTH_WRITE.length, ZERO_LENGTH_WRITE);
            assertClosedWithoutTerminate(peer, bad, TerminateReason.LLP_MARKER_ERROR);
        }
    }

    @Test
    void aDdpErrorInAnIntactFirstFpduIsAnsweredWithItsTerminate() throws Exception {
        // The FPDU passed MPA's checks, so the Responder may send (MPA-R-061): the Terminate for
        // the unknown STag (V-FPDU-6, RDMAP-R-036), after it the Send held so far was not sent.
        try (RawMpaPeer peer = connect(MPA, NEVER)) {
            CompletableFuture<Long> closedAt = peer.closed.thenApply(v -> System.nanoTime());
            long sent = System.nanoTime();
            peer.send(RawMpaPeer.ulpduOf("V-FPDU-5"));
            byte[] first = peer.take();
            long closeNanos = closedAt.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS) - sent;
            System.out.printf("DDP error: connection closed %.1f ms after the first FPDU%n", closeNanos / 1e6);
            List<byte[]> ulpdus = new ArrayList<>();
            ulpdus.add(first);
            ulpdus.addAll(peer.takeAllUntilClosed());
            byte[] terminate = ulpdus.get(ulpdus.size() - 1);
            assertThat(Hex.encode(terminate)).isEqualTo(Hex.encode(RawMpaPeer.ulpduOf("V-FPDU-6")));
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(qp.terminateWithheld()).isFalse();
            assertThat(qp.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
            assertThat(counted("iwarp.rdmap.terminates.withheld")).isZero();
            assertThat(counted("iwarp.rdmap.terminate.close.timeouts")).isZero();
        }
    }

    @Test
    void aTerminateThePeerNeverReadsIsGivenUpAfterTheTerminateCloseTimeout() throws Exception {
        Duration timeout = Duration.ofMillis(500);
        try (RawMpaPeer peer = connect(MPA, timeout)) {
            peer.limitReceiveBuffer(4096);
            peer.setAutoRead(false);
            peer.sendRaw(fpdu(null, ZERO_LENGTH_WRITE.length, ZERO_LENGTH_WRITE)); // opens the fence
            // 127 Sends of 64 KiB (the send queue's depth with the Send already posted): more
            // than the socket buffers hold while the peer reads nothing, so our side backs up.
            SendWorkRequest[] sends = new SendWorkRequest[127];
            for (int i = 0; i < sends.length; i++) {
                sends[i] = SendWorkRequest.send(100 + i, region.sge(0, 65536));
            }
            qp.postSend(sends);
            unwritable.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            // Behind the task that framed the Sends: from here the loop is free to read the bad FPDU.
            connection.get().eventLoop().submit(() -> { }).get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            long sent = System.nanoTime();
            byte[] bad = fpdu(null, ZERO_LENGTH_WRITE.length, ZERO_LENGTH_WRITE);
            bad[bad.length - 1] ^= 0x01;
            peer.sendRaw(bad); // our Terminate (CRC error) queues behind what the peer does not read
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            long closeNanos = System.nanoTime() - sent;
            System.out.printf("unread Terminate: connection closed %.1f ms after the bad FPDU (timeout %s)%n",
                    closeNanos / 1e6, timeout);
            assertThat(closeNanos).isGreaterThanOrEqualTo(timeout.toNanos());
            assertThat(counted("iwarp.rdmap.terminate.close.timeouts")).isEqualTo(1);
            assertThat(qp.terminateWithheld()).isFalse();
            assertThat(qp.terminateReason()).isEqualTo(TerminateReason.LLP_CRC_ERROR);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            // Our end of the TCP connection is closed; the octets already in our socket's send
            // buffer are TCP's to deliver (the peer would read them, then the FIN, if it read).
            assertThat(connection.get().closeFuture().isDone()).isTrue();
        }
    }
}
