package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/**
 * Unsignalled send work requests ({@link QueuePairSettings.Builder#signalAllSends signalAllSends(false)},
 * {@link SendWorkRequest#withSignalled}): a success completes nothing, an error or a flush
 * completes anyway, and the send-queue slots of the silent successes come back with the next
 * completion (completions are in posting order, RFC 5040 §5.5 #15, RDMAP-R-031).
 */
class UnsignalledWorkRequestTest {

    private static final int SIZE = 1024;

    @Test
    void theFlagIsImmutableAndSignalledByDefault() {
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(16).writeZero(16);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            MemoryRegion mr = rnic.allocateProtectionDomain().register(memory, RdmaPair.ALL);
            SendWorkRequest write = SendWorkRequest.rdmaWrite(7, 0x100, 0, mr.sge(0, 16));
            assertThat(write.signalled()).isTrue();
            SendWorkRequest silent = write.withSignalled(false);
            assertThat(silent.signalled()).isFalse();
            assertThat(write.signalled()).as("the original is unchanged").isTrue();
            assertThat(silent.id()).isEqualTo(7);
            assertThat(silent.kind()).isEqualTo(SendWorkRequest.Kind.RDMA_WRITE);
            assertThat(silent.localSegments()).isEqualTo(write.localSegments());
            assertThat(silent.withSignalled(false)).isSameAs(silent);
            assertThat(silent.withSignalled(true).signalled()).isTrue();
            assertThat(silent.toString()).contains("unsignalled");
            assertThat(write.toString()).doesNotContain("unsignalled");
            assertThat(QueuePairSettings.builder(rnic.allocateProtectionDomain(), rnic.createCompletionQueue(1))
                    .build().signalAllSends()).as("default: every request completes").isTrue();
        } finally {
            memory.release();
        }
    }

    @Test
    void unsignalledSuccessesCompleteNothingAndTheNextCompletionGivesTheirSlotsBack() throws Exception {
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(8 * SIZE).writeZero(8 * SIZE);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(8 * SIZE);
        byte[] data = new byte[8 * SIZE];
        new Random(3).nextBytes(data);
        clientMemory.writeBytes(data);
        MemoryRegion[] target = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b,
                b -> b.sendQueueDepth(4).signalAllSends(false),
                server -> target[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                client -> { })) {
            MemoryRegion source = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            for (int round = 0; round < 2; round++) {
                // Four a round in a send queue of four: the second round fits only if the first
                // round's completion gave back all four slots, the three silent ones included.
                SendWorkRequest[] writes = new SendWorkRequest[4];
                for (int i = 0; i < 4; i++) {
                    int k = round * 4 + i;
                    writes[i] = SendWorkRequest.rdmaWrite(k, target[0].stag(), target[0].baseTaggedOffset() + k * SIZE,
                            source.sge(k * SIZE, SIZE)).withSignalled(i == 3);
                }
                pair.client.postSend(writes);
                WorkCompletion c = RdmaPair.next(pair.clientCq);
                assertThat(c.workRequestId()).as("the only completion is the signalled one").isEqualTo(round * 4 + 3);
                assertThat(c.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);
                assertThat(c.byteLength()).isEqualTo(SIZE);
                assertThat(pair.clientCq.poll()).isNull();
            }
            // A signalled zero-length Read fences the Writes (RFC 5040 §5.5 #12): all eight were placed.
            pair.client.postSend(SendWorkRequest.rdmaRead(99, target[0].stag(), target[0].baseTaggedOffset(),
                    source.sge(0, 0)));
            assertThat(RdmaPair.next(pair.clientCq).workRequestId()).isEqualTo(99);
            assertThat(RdmaPair.sameOctets(serverMemory, 0, clientMemory, 0, 8 * SIZE)).isTrue();
            assertThat(pair.clientCq.poll()).isNull();
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void withNothingSignalledTheSendQueueFillsAndPostingSaysWhy() throws Exception {
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(4 * SIZE).writeZero(4 * SIZE);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(SIZE).writeZero(SIZE);
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b,
                b -> b.sendQueueDepth(4).signalAllSends(false), server -> {
                    MemoryRegion mr = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                    for (int i = 0; i < 4; i++) {
                        server.postReceive(new ReceiveWorkRequest(50 + i, mr.sge(i * SIZE, SIZE)));
                    }
                }, client -> { })) {
            MemoryRegion source = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            for (int i = 0; i < 4; i++) {
                pair.client.postSend(SendWorkRequest.send(i, source.sge()).withSignalled(false));
            }
            // All four arrived, so all four are done at the client (handed to TCP before), silently.
            for (int i = 0; i < 4; i++) {
                assertThat(RdmaPair.next(pair.serverCq).workRequestId()).isEqualTo(50 + i);
            }
            assertThat(pair.clientCq.poll()).isNull();
            Throwable full = catchThrowable(() -> pair.client.postSend(SendWorkRequest.send(4, source.sge())));
            assertThat(full).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("send queue full (depth 4)")
                    .hasMessageContaining("signal at least one in every send queue depth");
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void aQueuePairThatSignalsAllSendsIgnoresTheFlag() throws Exception {
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(SIZE).writeZero(SIZE);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(SIZE).writeZero(SIZE);
        MemoryRegion[] target = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(),
                server -> target[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                client -> { })) {
            MemoryRegion source = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            pair.client.postSend(SendWorkRequest.rdmaWrite(1, target[0].stag(), target[0].baseTaggedOffset(),
                    source.sge()).withSignalled(false));
            WorkCompletion c = RdmaPair.next(pair.clientCq);
            assertThat(c.workRequestId()).isEqualTo(1);
            assertThat(c.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void anUnsignalledRequestThatFailsLocallyCompletesWithItsErrorAndGivesBackTheSlotsBeforeIt() throws Exception {
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(4 * SIZE).writeZero(4 * SIZE);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(SIZE).writeZero(SIZE);
        MemoryRegion[] target = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b,
                b -> b.sendQueueDepth(3).signalAllSends(false),
                server -> target[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                client -> { })) {
            MemoryRegion source = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            long to = target[0].baseTaggedOffset();
            pair.client.postSend(
                    SendWorkRequest.rdmaWrite(1, target[0].stag(), to, source.sge(0, SIZE)).withSignalled(false),
                    // beyond the end of its region: a local length error
                    SendWorkRequest.rdmaWrite(2, target[0].stag(), to, source.sge(SIZE / 2, SIZE))
                            .withSignalled(false));
            WorkCompletion failed = RdmaPair.next(pair.clientCq);
            assertThat(failed.workRequestId()).isEqualTo(2);
            assertThat(failed.status()).isEqualTo(WorkCompletionStatus.LOCAL_LENGTH_ERROR);
            assertThat(failed.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);
            // Three more fit in the queue of three only if the error completion gave back both slots.
            pair.client.postSend(
                    SendWorkRequest.rdmaWrite(3, target[0].stag(), to + SIZE, source.sge()).withSignalled(false),
                    SendWorkRequest.rdmaWrite(4, target[0].stag(), to + 2 * SIZE, source.sge()).withSignalled(false),
                    SendWorkRequest.rdmaWrite(5, target[0].stag(), to + 3 * SIZE, source.sge()));
            WorkCompletion next = RdmaPair.next(pair.clientCq);
            assertThat(next.workRequestId()).isEqualTo(5);
            assertThat(next.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(pair.clientCq.poll()).isNull();
            assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void whenTheQueuePairFailsItsUnsignalledRequestsCompleteWithTheErrorAndFlushed() throws Exception {
        // RDMAP-R-028, RDMAP-R-035: the peer refuses the first Read Request (RDMAP 0x0/0x1/0x00) and answers
        // nothing after it; the Read completes REMOTE_ACCESS_ERROR and the rest flushed, none signalled.
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(4 * SIZE).writeZero(4 * SIZE);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(4 * SIZE).writeZero(4 * SIZE);
        MemoryRegion[] target = new MemoryRegion[1];
        try {
            RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b, b -> b.signalAllSends(false),
                    server -> target[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                    client -> { });
            try {
                MemoryRegion sink = pair.clientPd.register(clientMemory, RdmaPair.ALL);
                int unknownStag = target[0].stag() ^ 0x5A5A_5A00; // another index: not registered
                SendWorkRequest[] reads = new SendWorkRequest[4];
                for (int i = 0; i < 4; i++) {
                    reads[i] = SendWorkRequest.rdmaRead(i, i == 0 ? unknownStag : target[0].stag(),
                            target[0].baseTaggedOffset() + i * SIZE, sink.sge(i * SIZE, SIZE)).withSignalled(false);
                }
                pair.client.postSend(reads);
                WorkCompletion refused = RdmaPair.next(pair.clientCq);
                assertThat(refused.workRequestId()).isEqualTo(0);
                assertThat(refused.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                assertThat(refused.status()).isEqualTo(WorkCompletionStatus.REMOTE_ACCESS_ERROR);
                assertThat(refused.terminateReason()).isEqualTo(TerminateReason.RDMAP_INVALID_STAG);
                for (int i = 1; i < 4; i++) {
                    WorkCompletion flushed = RdmaPair.next(pair.clientCq);
                    assertThat(flushed.workRequestId()).isEqualTo(i);
                    assertThat(flushed.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                    assertThat(flushed.terminateReason()).isEqualTo(TerminateReason.RDMAP_INVALID_STAG);
                }
                pair.client.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(pair.clientCq.poll()).isNull();
            } finally {
                pair.close();
            }
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void unsignalledReadsStayWithinOrdAndTheSignalledOneBehindThemCompletesThemAll() throws Exception {
        // MPA2-R-007, RDMAP-R-012, RDMAP-R-017: ORD 2, six Reads a round, five of them unsignalled,
        // two rounds. The responder's IRD is 2: one Read too many and it would Terminate. The second
        // round needs the first round's ORD slots back (and its send-queue slots, depth 6).
        int ord = 2;
        int reads = 6;
        int size = 256 * 1024;
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(reads * size);
        byte[] data = new byte[reads * size];
        new Random(11).nextBytes(data);
        serverMemory.writeBytes(data);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(reads * size).writeZero(reads * size);
        MemoryRegion[] target = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().ord(ord).build(), b -> b,
                b -> b.sendQueueDepth(reads).signalAllSends(false),
                server -> target[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                client -> { })) {
            assertThat(pair.server.negotiated().ird()).isEqualTo(ord);
            MemoryRegion sink = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            for (int round = 0; round < 2; round++) {
                clientMemory.setZero(0, reads * size);
                SendWorkRequest[] requests = new SendWorkRequest[reads];
                for (int i = 0; i < reads; i++) {
                    // Read i fetches server slice (reads - 1 - i): posting order is not address order.
                    long source = target[0].baseTaggedOffset() + (long) (reads - 1 - i) * size;
                    requests[i] = SendWorkRequest.rdmaRead(round * 100 + i, target[0].stag(), source,
                            sink.sge((long) i * size, size)).withSignalled(i == reads - 1);
                }
                pair.client.postSend(requests);
                WorkCompletion c = RdmaPair.next(pair.clientCq);
                assertThat(c.workRequestId()).isEqualTo(round * 100 + reads - 1);
                assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(c.byteLength()).isEqualTo(size);
                assertThat(pair.clientCq.poll()).isNull();
                for (int i = 0; i < reads; i++) {
                    assertThat(RdmaPair.sameOctets(clientMemory, i * size, serverMemory, (reads - 1 - i) * size,
                            size)).as("round %d, read %d", round, i).isTrue();
                }
            }
            assertThat(pair.server.state()).isEqualTo(QueuePairState.RTS);
            assertThat(pair.server.terminateReason()).isNull();
            assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void anUnsignalledLocalInvalidateCompletesNothingWhenItSucceedsAndItsErrorWhenItFails() throws Exception {
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(2 * SIZE).writeZero(2 * SIZE);
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b,
                b -> b.sendQueueDepth(2).signalAllSends(false), server -> { }, client -> { })) {
            MemoryRegion victim = pair.clientPd.register(clientMemory.slice(0, SIZE), RdmaPair.ALL);
            MemoryRegion other = pair.clientPd.register(clientMemory.slice(SIZE, SIZE), RdmaPair.ALL);
            // A queue of two: the second post fits only if the signalled completion gave back both slots.
            pair.client.postSend(SendWorkRequest.localInvalidate(1, victim.stag()).withSignalled(false),
                    SendWorkRequest.localInvalidate(2, other.stag()));
            WorkCompletion c = RdmaPair.next(pair.clientCq);
            assertThat(c.workRequestId()).as("the only completion is the signalled one").isEqualTo(2);
            assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.LOCAL_INVALIDATE);
            assertThat(c.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(victim.isValid()).as("the silent invalidate took effect").isFalse();
            assertThat(pair.clientCq.poll()).isNull();

            // Invalidating an STag that names no registered region (deregistered) is a local
            // protection error: it completes, unsignalled. (Invalidating one that is registered
            // but invalid already succeeds: LocalInvalidateOrderTest.)
            victim.close();
            pair.client.postSend(SendWorkRequest.localInvalidate(3, victim.stag()).withSignalled(false));
            WorkCompletion failed = RdmaPair.next(pair.clientCq);
            assertThat(failed.workRequestId()).isEqualTo(3);
            assertThat(failed.opcode()).isEqualTo(WorkCompletionOpcode.LOCAL_INVALIDATE);
            assertThat(failed.status()).isEqualTo(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
            assertThat(pair.clientCq.poll()).isNull();
        } finally {
            clientMemory.release();
        }
    }

    @Test
    void abortFlushesUnsignalledReadsEachWithACompletionAndASilentSuccessGivesNone() throws Exception {
        // RDMAP-R-035: the peer stops reading its connection; two Writes go out (handed to TCP: succeeded; the
        // second signalled, so that the test knows when), two unsignalled Reads stay unanswered; abort flushes
        // the Reads, each with a completion, and the silent Write gives none.
        CompletableFuture<Channel> serverChannel = new CompletableFuture<>();
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(4 * SIZE).writeZero(4 * SIZE);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(4 * SIZE).writeZero(4 * SIZE);
        MemoryRegion[] target = new MemoryRegion[1];
        RdmaPair pair = new RdmaPair(Rnic.builder().channelInitializer(serverChannel::complete), Rnic.builder(),
                MpaSettings.builder().build(), b -> b, b -> b.sendQueueDepth(4).signalAllSends(false),
                server -> target[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL),
                client -> { });
        try {
            Channel channel = serverChannel.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            channel.eventLoop().submit(() -> channel.config().setAutoRead(false))
                    .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            MemoryRegion local = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            long to = target[0].baseTaggedOffset();
            pair.client.postSend(
                    SendWorkRequest.rdmaWrite(1, target[0].stag(), to, local.sge(0, SIZE)).withSignalled(false),
                    SendWorkRequest.rdmaWrite(2, target[0].stag(), to + SIZE, local.sge(SIZE, SIZE)),
                    SendWorkRequest.rdmaRead(3, target[0].stag(), to, local.sge(2 * SIZE, SIZE)).withSignalled(false),
                    SendWorkRequest.rdmaRead(4, target[0].stag(), to, local.sge(3 * SIZE, SIZE)).withSignalled(false));
            WorkCompletion written = RdmaPair.next(pair.clientCq);
            assertThat(written.workRequestId()).as("Write 1 succeeded silently before it").isEqualTo(2);
            assertThat(written.status()).isEqualTo(WorkCompletionStatus.SUCCESS);

            pair.client.abort().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            for (long id = 3; id <= 4; id++) {
                WorkCompletion flushed = RdmaPair.next(pair.clientCq);
                assertThat(flushed.workRequestId()).as("only the Reads, which had not succeeded").isEqualTo(id);
                assertThat(flushed.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                assertThat(flushed.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            }
            assertThat(pair.clientCq.poll()).isNull();
            assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);
            channel.config().setAutoRead(true); // the server now sees the connection end
            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        } finally {
            pair.closeAbruptly();
            serverMemory.release();
            clientMemory.release();
        }
    }
}
