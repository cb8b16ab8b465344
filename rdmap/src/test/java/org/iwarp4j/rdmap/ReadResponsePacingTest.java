package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A peer that stops reading and asks, with IRD Read Requests of 52 octets each, for a whole 16 MiB
 * region each time: over Ethernet-sized FPDUs (EMSS 1448, MULPDU 1442, under MPA's
 * CONTIGUOUS_LIMIT, so every FPDU is a copy) the responses used to be segmented and copied at
 * once, IRD × 16 MiB of fresh direct memory queued in the channel for as long as the peer kept
 * the connection. Now a Read Response is made as the socket takes it (RDMAP-R-017, RDMAP-R-048):
 * the octets queued in the channel never pass its high water mark by more than one FPDU, and once
 * the peer reads, every response arrives whole and in order (RDMAP-R-016).
 */
class ReadResponsePacingTest {

    private static final int REGION = 16 << 20;
    /**
     * IRD 4, not the default 16: the test reads every response back (64 MiB through the raw
     * peer); 4 × 16 MiB is already a thousand times the bound asserted.
     */
    private static final int IRD = 4;
    private static final MpaSettings ETHERNET_FPDUS = MpaSettings.builder().emss(1448).ird(IRD).build();
    private static final MpaSettings PEER = MpaSettings.builder().build();

    private final Rnic rnic;
    private final CompletableFuture<Channel> rnicChannel = new CompletableFuture<>();
    private final QueuedOctets queued = new QueuedOctets();
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(REGION);
    private final ByteBuf receiveMemory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);

    ReadResponsePacingTest() {
        rnic = Rnic.builder().eventLoopThreads(1).channelInitializer(ch -> {
            ch.pipeline().addLast(queued); // first in the pipeline: it sees every FPDU the encoder writes
            rnicChannel.complete(ch);
        }).build();
        pd = rnic.allocateProtectionDomain();
        cq = rnic.createCompletionQueue(16);
    }

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.release();
        receiveMemory.release();
    }

    @Test
    void readResponsesToAPeerThatReadsNothingQueueNoMoreThanTheHighWaterMark() throws Exception {
        byte[] source = DirectPlacementTest.random(REGION, 5);
        memory.writeBytes(source);
        MemoryRegion region = pd.register(memory, EnumSet.of(Access.REMOTE_READ));
        MemoryRegion receive = pd.register(receiveMemory, EnumSet.of(Access.LOCAL_WRITE));
        QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(ETHERNET_FPDUS).build());
        qp.postReceive(new ReceiveWorkRequest(9, receive.sge()));
        try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, ETHERNET_FPDUS, PEER)) {
            assertThat(qp.negotiated().ird()).isEqualTo(IRD);
            assertThat(qp.negotiated().sendMulpdu()).isEqualTo(1442);
            Channel channel = rnicChannel.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            peer.limitReceiveBuffer(64 * 1024);
            peer.setAutoRead(false);
            for (int i = 0; i < IRD; i++) {
                peer.send(TerminateOnTheWireTest.readRequest(i + 1, sinkStag(i), sinkTo(i), REGION, region.stag(),
                        region.baseTaggedOffset()));
            }
            // A Send behind them: its completion says every Read Request before it was taken up.
            peer.send(Hex.decode("4143 00000000 00000000 00000001 00000000 cafe"));
            WorkCompletion received = RdmaPair.next(cq);
            assertThat(received.workRequestId()).isEqualTo(9);
            assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);

            // High water mark plus one FPDU (1448 octets and Netty's 96 per entry), with room to spare;
            // segmented at once, the four responses queued some 65 MiB.
            long bound = channel.config().getWriteBufferHighWaterMark() + 4096;
            long queuedNow = channel.eventLoop().submit(() -> pending(channel)).get(RdmaPair.WAIT_SECONDS,
                    TimeUnit.SECONDS);
            assertThat(queued.max.get()).as("octets queued in the channel at most, so far").isLessThan(bound);
            assertThat(queuedNow).as("octets queued now").isLessThan(bound);

            peer.setAutoRead(true);
            for (int i = 0; i < IRD; i++) {
                expectResponse(peer, i, source);
            }
            assertThat(queued.max.get()).as("octets queued in the channel at most, over the whole transfer")
                    .isLessThan(bound);
            // Every IRD slot came back once its response was written: a zero-length Read is answered.
            peer.send(TerminateOnTheWireTest.readRequest(IRD + 1, 0x0A0B0C0F, 0x1000, 0, 0, 0));
            assertThat(Hex.encode(peer.take())).isEqualTo("c1420a0b0c0f0000000000001000");
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
            assertThat(qp.failureCause()).isNull();
        }
    }

    @Test
    void aSendPostedWhileAReadResponseWaitsForTheSocketFollowsItWhole() throws Exception {
        // RDMAP-R-044, RDMAP-R-017: the Send is given to DDP after the Read Response, none of whose
        // segments it may come between.
        byte[] source = DirectPlacementTest.random(REGION, 6);
        memory.writeBytes(source);
        MemoryRegion region = pd.register(memory, EnumSet.of(Access.REMOTE_READ));
        MemoryRegion local = pd.register(receiveMemory, RdmaPair.ALL);
        QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(ETHERNET_FPDUS).build());
        qp.postReceive(new ReceiveWorkRequest(9, local.sge(0, 16)));
        try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, ETHERNET_FPDUS, PEER)) {
            Channel channel = rnicChannel.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            peer.limitReceiveBuffer(64 * 1024);
            peer.setAutoRead(false);
            peer.send(TerminateOnTheWireTest.readRequest(1, sinkStag(0), sinkTo(0), REGION, region.stag(),
                    region.baseTaggedOffset()));
            peer.send(Hex.decode("4143 00000000 00000000 00000001 00000000 cafe"));
            assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(9);
            // The response is under way and stuck: the channel is full, with far less than 16 MiB in it.
            assertThat(channel.eventLoop().submit(() -> !channel.isWritable() && pending(channel) < REGION)
                    .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            receiveMemory.setBytes(16, source, 0, 16);
            qp.postSend(SendWorkRequest.send(10, local.sge(16, 16)));

            peer.setAutoRead(true);
            expectResponse(peer, 0, source);
            assertThat(Hex.encode(peer.take())).isEqualTo("414300000000000000000000000100000000"
                    + Hex.encode(Arrays.copyOf(source, 16)));
            WorkCompletion send = RdmaPair.next(cq);
            assertThat(send.workRequestId()).isEqualTo(10);
            assertThat(send.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        }
    }

    /** The segments of response {@code i}, in order: its sink STag, TOs counting up, L on the last, the region's octets. */
    private static void expectResponse(RawMpaPeer peer, int i, byte[] source) throws InterruptedException {
        int offset = 0;
        while (true) {
            byte[] ulpdu = peer.take();
            int n = ulpdu.length - 14;
            boolean last = offset + n == REGION;
            assertThat(Hex.encode(Arrays.copyOf(ulpdu, 14))).as("response %d at %d", i, offset)
                    .isEqualTo(String.format("%s42%08x%016x", last ? "c1" : "81", sinkStag(i), sinkTo(i) + offset));
            assertThat(n).isPositive();
            assertThat(Arrays.equals(ulpdu, 14, ulpdu.length, source, offset, offset + n))
                    .as("response %d's octets at %d", i, offset).isTrue();
            offset += n;
            if (last) {
                return;
            }
        }
    }

    private static int sinkStag(int i) {
        return 0x0A0B0C00 + i;
    }

    private static long sinkTo(int i) {
        return (long) (i + 1) << 32;
    }

    private static long pending(Channel channel) {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    /** Records the most octets queued in the channel's outbound buffer after any write. */
    private static final class QueuedOctets extends ChannelOutboundHandlerAdapter {
        final AtomicLong max = new AtomicLong();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ctx.write(msg, promise);
            max.accumulateAndGet(pending(ctx.channel()), Math::max);
        }
    }
}
