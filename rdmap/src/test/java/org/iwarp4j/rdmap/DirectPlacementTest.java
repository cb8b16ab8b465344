package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * Direct placement end to end over loopback TCP: RDMA Write, RDMA Read Response and Send payloads
 * are read from the socket straight into registered memory (counted by {@code
 * iwarp.mpa.fpdus.placed.directly}), with the octets, completions and the memory around them the
 * same as on the ordinary path, and with fewer octets of receive buffers allocated (the ordinary
 * path needs a receive buffer for every octet before copying it). An FPDU whose CRC
 * fails after its payload was placed is never delivered: no completion for it, and the Terminate
 * and the flushed completions are octet for octet those of the ordinary path (RFC 5040 §7, RFC 5044
 * §8: LLP / MPA / CRC error).
 */
class DirectPlacementTest {

    /** Octets of the Write and the Read: half a MiB, as PARANOID leak tracking makes every buffer costly. */
    private static final int BIG = 1 << 19;
    static final int GUARD = 4096;
    static final MpaSettings MPA = MpaSettings.builder().build(); // rev 2, CRC on, MULPDU from the MSS
    /** FPDUs of the largest size on any transport (NIO cannot read the MSS and would send 1454-octet ones). */
    private static final MpaSettings LARGE_FPDUS = MpaSettings.builder().maxSendUlpdu(org.iwarp4j.mpa.MpaConstants.MAX_ULPDU).build();

    /** Octets of buffers asked for through a channel's allocator (receive buffers and everything else). */
    private static final class CountingAllocator extends AbstractByteBufAllocator {
        final AtomicLong allocated = new AtomicLong();

        CountingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            allocated.addAndGet(initialCapacity);
            return ByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            allocated.addAndGet(initialCapacity);
            return ByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return true;
        }
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static ByteBuf filled(int length, int value) {
        // One write of a filled array: under the PARANOID leak detector every call on a buffer
        // records a stack trace, so a megabyte written octet by octet took seconds.
        byte[] octets = new byte[length];
        java.util.Arrays.fill(octets, (byte) value);
        return ByteBufAllocator.DEFAULT.directBuffer(length, length).writeBytes(octets);
    }

    static void assertUntouched(ByteBuf memory, int from, int to, int value) {
        byte[] octets = ByteBufUtil.getBytes(memory, from, to - from);
        for (int i = 0; i < octets.length; i++) {
            if (octets[i] != (byte) value) {
                throw new AssertionError("octet " + (from + i) + " outside the target was written");
            }
        }
    }

    static double placedDirectly(SimpleMeterRegistry registry) {
        return registry.find("iwarp.mpa.fpdus.placed.directly").counters().stream().mapToDouble(c -> c.count())
                .sum();
    }

    static double octetsReadInPlace(SimpleMeterRegistry registry) {
        return registry.find("iwarp.mpa.bytes.placed.directly").counters().stream().mapToDouble(c -> c.count())
                .sum();
    }

    /**
     * Write 512 KiB into the server, Send 128 KiB to it, Read 512 KiB from it: with direct placement on,
     * both sides place FPDUs directly and their sockets read octets straight into place; turned off,
     * no octet is read in place and the receiving side allocates at least as many octets of buffers
     * as it receives. The octets, the completions and the untouched memory around the targets are the
     * same either way.
     */
    @ParameterizedTest(name = "direct placement {0}, {1}")
    @org.junit.jupiter.params.provider.CsvSource({"true, EPOLL", "false, EPOLL", "true, NIO", "true, IO_URING",
            "false, IO_URING"})
    void writeSendAndReadLandInPlaceWithOneCopy(boolean direct, Transport transport) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(transport.isAvailable(), transport + " unavailable");
        int threshold = direct ? 4096 : QueuePairSettings.NO_DIRECT_PLACEMENT;
        SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
        CountingAllocator serverAlloc = new CountingAllocator();
        CountingAllocator clientAlloc = new CountingAllocator();
        int sendLength = 128 * 1024;
        ByteBuf serverMemory = filled(BIG + sendLength + 2 * GUARD, 0xEE);
        ByteBuf clientMemory = filled(2 * BIG + sendLength + GUARD, 0xEE);
        byte[] written = random(BIG, 1);
        byte[] sent = random(sendLength, 2);
        byte[] readBack = random(BIG, 3);
        clientMemory.setBytes(0, written);
        clientMemory.setBytes(2 * BIG, sent);
        MemoryRegion[] serverMr = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(
                Rnic.builder().transport(transport).meterRegistry(serverMeters)
                        .channelInitializer(ch -> ch.config().setAllocator(serverAlloc)),
                Rnic.builder().transport(transport).meterRegistry(clientMeters)
                        .channelInitializer(ch -> ch.config().setAllocator(clientAlloc)),
                LARGE_FPDUS, b -> b.directPlacementThreshold(threshold), b -> b.directPlacementThreshold(threshold),
                server -> {
                    serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                    server.postReceive(new ReceiveWorkRequest(9, serverMr[0].sge(GUARD + BIG, sendLength)));
                }, client -> { })) {
            MemoryRegion smr = serverMr[0];
            MemoryRegion cmr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
            long serverBefore = serverAlloc.allocated.get();

            pair.client.postSend(SendWorkRequest.rdmaWrite(1, smr.stag(), smr.baseTaggedOffset() + GUARD,
                    cmr.sge(0, BIG)));
            assertThat(RdmaPair.next(pair.clientCq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            pair.client.postSend(SendWorkRequest.send(2, cmr.sge(2 * BIG, sendLength)));
            assertThat(RdmaPair.next(pair.clientCq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            WorkCompletion received = RdmaPair.next(pair.serverCq);
            assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(received.workRequestId()).isEqualTo(9);
            assertThat(received.byteLength()).isEqualTo(sendLength);
            long serverAllocated = serverAlloc.allocated.get() - serverBefore;

            // The Write's completion says it left, not that it was placed: the Send after it was
            // completed, so the Write (earlier on the same stream) was placed before.
            assertThat(ByteBufUtil.getBytes(serverMemory, GUARD, BIG)).isEqualTo(written);
            assertThat(ByteBufUtil.getBytes(serverMemory, GUARD + BIG, sendLength)).isEqualTo(sent);
            assertUntouched(serverMemory, 0, GUARD, 0xEE);
            assertUntouched(serverMemory, GUARD + BIG + sendLength, serverMemory.capacity(), 0xEE);

            serverMemory.setBytes(GUARD, readBack);
            long clientBefore = clientAlloc.allocated.get();
            pair.client.postSend(SendWorkRequest.rdmaRead(3, smr.stag(), smr.baseTaggedOffset() + GUARD,
                    cmr.sge(BIG, BIG)));
            WorkCompletion read = RdmaPair.next(pair.clientCq);
            assertThat(read.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(read.byteLength()).isEqualTo(BIG);
            long clientAllocated = clientAlloc.allocated.get() - clientBefore;
            assertThat(ByteBufUtil.getBytes(clientMemory, BIG, BIG)).isEqualTo(readBack);
            assertUntouched(clientMemory, 2 * BIG + sendLength, clientMemory.capacity(), 0xEE);

            int receivedOctets = BIG + sendLength;
            if (direct) {
                assertThat(placedDirectly(serverMeters)).as("server FPDUs placed directly").isPositive();
                assertThat(placedDirectly(clientMeters)).as("client FPDUs placed directly").isPositive();
                // Every ordinary read that ends inside a large FPDU has the rest of its payload read
                // into place. How many FPDUs an ordinary read takes whole depends on the backlog in
                // the socket (with one, the decoder reads on in ordinary reads: mpa's
                // DirectPlacementTest pins both cases), so only the presence is asserted here.
                // io_uring never reads in place (its receive returns on a later turn of the event
                // loop, after a deregistration that could not wait for it): the decoder copies.
                if (transport == Transport.IO_URING) {
                    assertThat(octetsReadInPlace(serverMeters) + octetsReadInPlace(clientMeters))
                            .as("octets io_uring read in place").isZero();
                } else {
                    assertThat(octetsReadInPlace(serverMeters)).as("octets the server's socket reads put in place")
                            .isPositive();
                    assertThat(octetsReadInPlace(clientMeters)).as("octets the client's socket reads put in place")
                            .isPositive();
                }
                assertThat(serverAllocated + octetsReadInPlace(serverMeters))
                        .as("octets of read buffers the server allocated, plus those read in place")
                        .isGreaterThanOrEqualTo(receivedOctets);
            } else {
                assertThat(placedDirectly(serverMeters) + placedDirectly(clientMeters)).isZero();
                assertThat(octetsReadInPlace(serverMeters) + octetsReadInPlace(clientMeters)).isZero();
                assertThat(serverAllocated).isGreaterThanOrEqualTo(receivedOctets);
                assertThat(clientAllocated).isGreaterThanOrEqualTo(BIG);
            }
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    /** ULPDU_Length, the ULPDU, the pad and a CRC; {@code badCrc} flips one bit of it. */
    static byte[] fpdu(byte[] ulpdu, boolean badCrc) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(ulpdu.length >> 8);
        out.write(ulpdu.length);
        out.writeBytes(ulpdu);
        out.writeBytes(new byte[(4 - ((2 + ulpdu.length) & 3)) & 3]);
        CRC32C crc = new CRC32C();
        crc.update(out.toByteArray());
        int value = (int) crc.getValue() ^ (badCrc ? 0x100 : 0);
        out.write(value);
        out.write(value >> 8);
        out.write(value >> 16);
        out.write(value >> 24);
        return out.toByteArray();
    }

    /** An RDMA Write segment (RFC 5040 §4.3, RFC 5041 §4.3): control T, L, DV 1; RDMAP RV 1, opcode 0. */
    static byte[] write(int stag, long to, byte[] payload) {
        return tagged(0x40, stag, to, payload);
    }

    /** A tagged segment: control T, L, DV 1; then {@code rdmapControl}, the STag, the TO and the payload. */
    static byte[] tagged(int rdmapControl, int stag, long to, byte[] payload) {
        ByteBuf b = ByteBufAllocator.DEFAULT.heapBuffer();
        try {
            b.writeByte(0xC1).writeByte(rdmapControl).writeInt(stag).writeLong(to).writeBytes(payload);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** A Send segment: control L, DV 1; RDMAP RV 1, opcode 3; QN 0, MSN 1, MO 0. */
    static byte[] send(byte[] payload) {
        return send(1, payload);
    }

    /** A Send segment as {@link #send(byte[])}, with MSN {@code msn}. */
    static byte[] send(int msn, byte[] payload) {
        ByteBuf b = ByteBufAllocator.DEFAULT.heapBuffer();
        try {
            b.writeByte(0x41).writeByte(0x43).writeInt(0).writeInt(0).writeInt(msn).writeInt(0).writeBytes(payload);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** What one run of the bad-CRC scenario showed. */
    record Outcome(byte[] terminate, List<String> completions, double placedDirectly) {
    }

    /** The ULPDU of the bad-CRC scenario's FPDU, whose payload belongs at {@code mr}'s octet {@link #GUARD}. */
    @FunctionalInterface
    interface BadUlpdu {
        /** May post work and exchange ULPDUs with {@code peer} first (MPA's fence is open by then). */
        byte[] make(QueuePair qp, MemoryRegion mr, RawMpaPeer peer, byte[] payload) throws Exception;
    }

    /**
     * A queue pair with receive 5 posted at {@code [GUARD, GUARD + 40000)} of its region gets
     * {@code bad}'s ULPDU in an FPDU whose CRC has one bit flipped: exactly one Terminate, then the
     * close; the region outside {@code [GUARD, GUARD + 40000)} is untouched, and inside it either
     * untouched or (placed directly) the payload.
     */
    static Outcome badCrcAfterPlacement(boolean direct, Transport transport, BadUlpdu bad) throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        int length = 40000;
        ByteBuf memory = filled(length + 2 * GUARD, 0xEE);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).transport(transport).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(16);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).directPlacementThreshold(
                    direct ? 1024 : QueuePairSettings.NO_DIRECT_PLACEMENT).build());
            MemoryRegion mr = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            qp.postReceive(new ReceiveWorkRequest(5, mr.sge(GUARD, length)));
            byte[] payload = random(length, 4);
            Outcome outcome;
            try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
                // A zero-length Write first, so that MPA's fence is open and the Terminate may leave.
                peer.send(write(1, 0, new byte[0]));
                peer.sendRaw(fpdu(bad.make(qp, mr, peer, payload), true));
                List<byte[]> ulpdus = peer.takeAllUntilClosed();
                assertThat(ulpdus).as("exactly one Terminate").hasSize(1);
                qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                List<String> completions = new ArrayList<>();
                for (WorkCompletion c; (c = cq.poll()) != null; ) {
                    completions.add(c.workRequestId() + " " + c.opcode() + " " + c.status() + " " + c.byteLength()
                            + " " + c.terminateReason());
                }
                assertThat(qp.terminateReason()).isEqualTo(TerminateReason.LLP_CRC_ERROR);
                assertThat(qp.terminateReceived()).isFalse();
                outcome = new Outcome(ulpdus.get(0), completions, placedDirectly(meters));
            }
            // Placed but not delivered is allowed; nothing around the target was written.
            assertUntouched(memory, 0, GUARD, 0xEE);
            assertUntouched(memory, GUARD + length, memory.capacity(), 0xEE);
            if (outcome.placedDirectly() > 0) {
                assertThat(ByteBufUtil.getBytes(memory, GUARD, length)).isEqualTo(payload);
            } else {
                assertUntouched(memory, GUARD, GUARD + length, 0xEE);
            }
            return outcome;
        } finally {
            memory.release();
        }
    }

    @ParameterizedTest(name = "tagged {0}, {1}")
    @org.junit.jupiter.params.provider.CsvSource({"true, EPOLL", "false, EPOLL", "true, IO_URING", "false, IO_URING"})
    void aBadCrcAfterPlacementEndsExactlyAsOnTheOrdinaryPath(boolean tagged, Transport transport) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(transport.isAvailable(), transport + " unavailable");
        BadUlpdu bad = (qp, mr, peer, payload) -> tagged ? write(mr.stag(), mr.baseTaggedOffset() + GUARD, payload)
                : send(payload);
        Outcome ordinary = badCrcAfterPlacement(false, transport, bad);
        Outcome placed = badCrcAfterPlacement(true, transport, bad);
        assertThat(ordinary.placedDirectly()).isZero();
        assertThat(placed.placedDirectly()).as("the bad FPDU was placed directly").isEqualTo(1);
        assertThat(placed.terminate()).as("the Terminate's octets").isEqualTo(ordinary.terminate());
        assertIsMpaCrcErrorTerminate(placed.terminate());
        // The posted receive is flushed, never completed with data: nothing was delivered.
        assertThat(placed.completions()).isEqualTo(ordinary.completions())
                .containsExactly("5 RECEIVE FLUSHED 0 " + TerminateReason.LLP_CRC_ERROR);
    }

    /**
     * {@code terminate} (a ULPDU as it came off the wire) is the Terminate for an MPA CRC error,
     * pinned from the RFCs rather than from this stack's constants: RFC 5040 §5.4 and RDMAP-R-025
     * (untagged, L=1, DV 1, RDMAP RV 1 opcode 0x7, QN 2, MSN 1, MO 0), Fig. 9 (Layer 0x2 = LLP),
     * RFC 5044 §8 (for MPA: Error Type 0x0, code 2 "Received MPA CRC does not match"), Fig. 10 and
     * RDMAP-R-026 / RDMAP-R-037 (an LLP error includes neither the DDP Segment Length and DDP
     * header nor the RDMA header: M, D and R clear), RDMAP-R-040 (Reserved 0): 18 + 4 octets.
     */
    static void assertIsMpaCrcErrorTerminate(byte[] terminate) {
        assertThat(terminate).as("Terminate ULPDU: DDP header and control word only").hasSize(22);
        assertThat(terminate[0] & 0xFF).as("DDP control: untagged, L=1, DV 1").isEqualTo(0x41);
        assertThat(terminate[1] & 0xFF).as("RDMAP control: RV 1, opcode Terminate").isEqualTo(0x47);
        ByteBuf t = io.netty.buffer.Unpooled.wrappedBuffer(terminate);
        assertThat(t.getInt(2)).as("RsvdULP").isZero();
        assertThat(t.getInt(6)).as("QN").isEqualTo(2);
        assertThat(t.getInt(10)).as("MSN").isEqualTo(1);
        assertThat(t.getInt(14)).as("MO").isZero();
        int control = t.getInt(18);
        assertThat(control >>> 28).as("Layer: LLP").isEqualTo(0x2);
        assertThat(control >>> 24 & 0xF).as("Error Type: MPA").isEqualTo(0x0);
        assertThat(control >>> 16 & 0xFF).as("Error Code: CRC error").isEqualTo(0x02);
        assertThat(control & 0x8000).as("M: DDP Segment Length valid").isZero();
        assertThat(control & 0x4000).as("D: DDP header included").isZero();
        assertThat(control & 0x2000).as("R: RDMAP header included").isZero();
        assertThat(control & 0x1FFF).as("Reserved").isZero();
        assertThat(org.iwarp4j.testkit.Hex.encode(terminate)).as("the whole Terminate")
                .isEqualTo("4147" + "00000000" + "00000002" + "00000001" + "00000000" + "20020000");
    }

    /**
     * The target region is deregistered while its Write is being placed: the octets already placed
     * stay (placed, never delivered), no octet after that reaches the memory, and the Write fails at
     * its delivery exactly as on the ordinary path: Terminate DDP tagged buffer error, invalid STag.
     * On io_uring too, where the decoder copies each read into place under the region's guard.
     */
    @ParameterizedTest(name = "direct placement {0}, {1}")
    @org.junit.jupiter.params.provider.CsvSource({"true, EPOLL", "false, EPOLL", "true, IO_URING", "false, IO_URING"})
    void aRegionDeregisteredWhilePlacingGetsNothingMore(boolean direct, Transport transport) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(transport.isAvailable(), transport + " unavailable");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        int length = 40000;
        int half = 20000;
        ByteBuf memory = filled(length + 2 * GUARD, 0xEE);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).transport(transport).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(16);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).directPlacementThreshold(
                    direct ? 1024 : QueuePairSettings.NO_DIRECT_PLACEMENT).build());
            MemoryRegion mr = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            byte[] payload = random(length, 6);
            byte[] fpdu = fpdu(write(mr.stag(), mr.baseTaggedOffset() + GUARD, payload), false);
            try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
                peer.send(write(1, 0, new byte[0])); // opens MPA's fence for the Terminate
                int firstPart = 2 + 14 + half;
                peer.sendRaw(java.util.Arrays.copyOf(fpdu, firstPart));
                if (direct) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RdmaPair.WAIT_SECONDS);
                    ByteBuf expected = io.netty.buffer.Unpooled.wrappedBuffer(payload);
                    while (!RdmaPair.sameOctets(memory, GUARD, expected, 0, half)) {
                        assertThat(System.nanoTime()).as("first half placed in time").isLessThan(deadline);
                        Thread.onSpinWait();
                    }
                }
                mr.close();
                peer.sendRaw(java.util.Arrays.copyOfRange(fpdu, firstPart, fpdu.length));
                List<byte[]> ulpdus = peer.takeAllUntilClosed();
                assertThat(ulpdus).as("exactly one Terminate").hasSize(1);
                qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(qp.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
            }
            assertUntouched(memory, 0, GUARD, 0xEE);
            assertUntouched(memory, GUARD + half, memory.capacity(), 0xEE);
            if (!direct) {
                assertUntouched(memory, GUARD, GUARD + half, 0xEE);
            }
            assertThat(placedDirectly(meters)).isEqualTo(direct ? 1 : 0);
        } finally {
            memory.release();
        }
    }

    @Test
    void theThresholdIsASettingThatMustBePositive() {
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(1);
            assertThat(QueuePairSettings.builder(pd, cq).build().directPlacementThreshold())
                    .isEqualTo(QueuePairSettings.DEFAULT_DIRECT_PLACEMENT_THRESHOLD);
            String property = QueuePairSettings.DIRECT_PLACEMENT_THRESHOLD_PROPERTY;
            System.setProperty(property, "65536");
            try {
                assertThat(QueuePairSettings.builder(pd, cq).build().directPlacementThreshold()).isEqualTo(65536);
                System.setProperty(property, "-3");
                assertThat(QueuePairSettings.builder(pd, cq).build().directPlacementThreshold()).as("not positive")
                        .isEqualTo(QueuePairSettings.DEFAULT_DIRECT_PLACEMENT_THRESHOLD);
            } finally {
                System.clearProperty(property);
            }
            assertThat(QueuePairSettings.builder(pd, cq).directPlacementThreshold(1).build()
                    .directPlacementThreshold()).isEqualTo(1);
            org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                    .isThrownBy(() -> QueuePairSettings.builder(pd, cq).directPlacementThreshold(0));
        }
    }
}
