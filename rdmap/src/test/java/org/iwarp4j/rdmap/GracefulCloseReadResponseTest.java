package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A graceful close lets the peer's accepted RDMA Reads complete (RFC 5040 §2, Graceful
 * Termination: "all in-progress and pending RDMA Operations are allowed to Complete
 * successfully"; RDMAP-R-034's choice): the connection is closed only once the Read Responses still
 * on their way out were written, not with them in the channel's queue. The wait is bounded
 * ({@link QueuePairSettings.Builder#closeLinger}), so that a peer that stops reading cannot hold
 * the close for ever (docs/limits.md, "Read Responses to a peer that does not read").
 */
@Timeout(60)
class GracefulCloseReadResponseTest {

    private static final int REGION = 16 << 20;
    /** Small socket buffers: most of the 16 MiB response is still in the server's channel when it closes. */
    private static final int SOCKET_BUFFER = 64 * 1024;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in place", "paced"})
    void aReadResponseUnderWayWhenTheResponderClosesStillCompletesTheRead(String segments) throws Exception {
        // In place: large FPDUs, written to the channel at once. Paced: Ethernet-sized FPDUs that
        // MPA copies, made as the socket takes them (UnsentMessages).
        MpaSettings mpa = segments.equals("paced") ? MpaSettings.builder().emss(1448).build()
                : MpaSettings.builder().build();
        CompletableFuture<Channel> serverChannel = new CompletableFuture<>();
        CompletableFuture<Channel> clientChannel = new CompletableFuture<>();
        // The server's receive for the client's Send, posted before the pair connects.
        ByteBuf small = ByteBufAllocator.DEFAULT.directBuffer(16).writeZero(16);
        RdmaPair pair = new RdmaPair(
                Rnic.builder().channelInitializer(ch -> {
                    ch.config().setOption(ChannelOption.SO_SNDBUF, SOCKET_BUFFER);
                    serverChannel.complete(ch);
                }),
                Rnic.builder().channelInitializer(ch -> {
                    ch.config().setOption(ChannelOption.SO_RCVBUF, SOCKET_BUFFER);
                    clientChannel.complete(ch);
                }),
                mpa, b -> b.closeLinger(Duration.ofSeconds(RdmaPair.WAIT_SECONDS)), b -> b,
                qp -> qp.postReceive(new ReceiveWorkRequest(9, qp.register(small, EnumSet.of(Access.LOCAL_WRITE))
                        .sge())),
                qp -> { });
        ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(REGION);
        ByteBuf sink = ByteBufAllocator.DEFAULT.directBuffer(REGION).writeZero(REGION);
        ByteBuf octet = ByteBufAllocator.DEFAULT.directBuffer(16).writeZero(16);
        source.writeBytes(DirectPlacementTest.random(REGION, 34));
        try (MemoryRegion remote = pair.server.register(source, EnumSet.of(Access.REMOTE_READ));
             MemoryRegion local = pair.client.register(sink, RdmaPair.ALL);
             MemoryRegion message = pair.client.register(octet, RdmaPair.ALL)) {
            // The server closes as soon as the client's Send, posted behind its Read, arrives.
            CompletableFuture<WorkCompletion> received = new CompletableFuture<>();
            pair.serverCq.setListener(c -> {
                if (c.opcode() == WorkCompletionOpcode.RECEIVE && c.status() == WorkCompletionStatus.SUCCESS) {
                    pair.server.close();
                }
                received.complete(c);
            });
            Channel client = clientChannel.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            client.eventLoop().submit(() -> client.config().setAutoRead(false))
                    .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);

            pair.client.postSend(SendWorkRequest.rdmaRead(1, remote.stag(), remote.baseTaggedOffset(), local.sge()),
                    SendWorkRequest.send(2, message.sge(0, 1)));

            WorkCompletion send = received.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(send.status()).as(send.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            // Queued behind the close's drain on the server's loop: the close has run by now, with
            // the response still held up by a client that reads nothing.
            Channel server = serverChannel.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(server.eventLoop().submit(() -> !server.isWritable())
                    .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).as("the response is still on its way").isTrue();

            client.config().setAutoRead(true);
            WorkCompletion read = RdmaPair.next(pair.clientCq);
            assertThat(read.workRequestId()).isEqualTo(1);
            assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
            assertThat(read.status()).as(read.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(read.byteLength()).isEqualTo(REGION);
            assertThat(RdmaPair.sameOctets(sink, 0, source, 0, REGION)).isTrue();
            WorkCompletion sent = RdmaPair.next(pair.clientCq);
            assertThat(sent.workRequestId()).isEqualTo(2);
            assertThat(sent.status()).isEqualTo(WorkCompletionStatus.SUCCESS);

            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            pair.client.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pair.server.terminateReason()).isNull();
            assertThat(pair.client.terminateReason()).isNull();
            assertThat(pair.client.failureCause()).as("the client saw an ordinary close").isNull();
        } finally {
            pair.closeAbruptly();
            source.release();
            sink.release();
            small.release();
            octet.release();
        }
    }

    @Test
    void aPeerThatReadsNothingHoldsTheCloseNoLongerThanTheLinger() throws Exception {
        Duration linger = Duration.ofMillis(300);
        MpaSettings mpa = MpaSettings.builder().build();
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(8);
            ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(REGION).writeZero(REGION);
            ByteBuf small = ByteBufAllocator.DEFAULT.directBuffer(16).writeZero(16);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).closeLinger(linger).build());
            try (MemoryRegion region = pd.register(source, EnumSet.of(Access.REMOTE_READ));
                 MemoryRegion receive = pd.register(small, EnumSet.of(Access.LOCAL_WRITE))) {
                qp.postReceive(new ReceiveWorkRequest(9, receive.sge()));
                try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, mpa, mpa)) {
                    peer.limitReceiveBuffer(SOCKET_BUFFER);
                    peer.setAutoRead(false);
                    peer.send(TerminateOnTheWireTest.readRequest(1, 0x0A0B0C00, 0, REGION, region.stag(),
                            region.baseTaggedOffset()));
                    peer.send(Hex.decode("4143 00000000 00000000 00000001 00000000 cafe"));
                    assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(9);

                    long start = System.nanoTime();
                    qp.close().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                    long waited = System.nanoTime() - start;
                    // Closed by the linger's end, not at once (the response was never taken) nor never.
                    assertThat(Duration.ofNanos(waited)).isGreaterThanOrEqualTo(linger);
                    assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
                }
            } finally {
                source.release();
                small.release();
            }
        }
    }
}
