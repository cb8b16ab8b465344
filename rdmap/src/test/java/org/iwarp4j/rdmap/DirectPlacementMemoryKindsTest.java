package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rdmap.DirectPlacementTest.GUARD;
import static org.iwarp4j.rdmap.DirectPlacementTest.MPA;
import static org.iwarp4j.rdmap.DirectPlacementTest.assertUntouched;
import static org.iwarp4j.rdmap.DirectPlacementTest.filled;
import static org.iwarp4j.rdmap.DirectPlacementTest.fpdu;
import static org.iwarp4j.rdmap.DirectPlacementTest.octetsReadInPlace;
import static org.iwarp4j.rdmap.DirectPlacementTest.placedDirectly;
import static org.iwarp4j.rdmap.DirectPlacementTest.random;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.FixedRecvByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.util.EnumSet;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.PlacementRecvByteBufAllocator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Direct placement only into memory a socket read can go to: an RDMA Write and a Send whose
 * payloads are far above the threshold, into a heap region and into composite ones, take the
 * ordinary path: the octets arrive right (RFC 5040 §5.1, §5.3; RDMAP-R-009, RDMAP-R-020),
 * nothing around them is written, the Send completes with its length, and {@code
 * iwarp.mpa.fpdus.placed.directly} and {@code iwarp.mpa.bytes.placed.directly} stay 0.
 * The same Write and Send into a direct region on the same connection are then placed directly.
 *
 * <p>Two composites: one of two direct components (the Write's target spans both, the Send's lies
 * in the second; a slice of a composite reports the whole composite's NIO buffer count, so both
 * are refused as more than one piece), and one of a single direct component, whose slices are one
 * direct NIO buffer with an address each, so only the composite check refuses them. That check
 * looked one {@code unwrap()} down only, and under the leak detector a slice of a composite is a
 * leak-aware wrapper around the slice: this case was placed directly until the check followed
 * the whole chain.
 *
 * <p>The RNIC's reads are fixed at 4 KiB (its own adapt up to 256 KiB), so every FPDU here is
 * incomplete when its header is read and the advisor is asked about each: that the heap and
 * composite ones are not placed is the advisor's (or the decoder's) refusal, not a read that
 * happened to hold the whole FPDU.
 */
class DirectPlacementMemoryKindsTest {

    private static final int WRITE_LENGTH = 40000;
    private static final int SEND_LENGTH = 30000;
    /** Where each region's Send goes: after the Write's target and a guard. */
    private static final int SEND_AT = GUARD + WRITE_LENGTH + GUARD;
    private static final int REGION_LENGTH = SEND_AT + SEND_LENGTH + GUARD;

    private enum Kind { HEAP, COMPOSITE, COMPOSITE_OF_ONE, DIRECT }

    /** {@link #REGION_LENGTH} octets of 0xEE in memory of {@code kind}. */
    private static ByteBuf memory(Kind kind) {
        switch (kind) {
            case HEAP: {
                byte[] octets = new byte[REGION_LENGTH];
                java.util.Arrays.fill(octets, (byte) 0xEE);
                return ByteBufAllocator.DEFAULT.heapBuffer(REGION_LENGTH, REGION_LENGTH).writeBytes(octets);
            }
            case COMPOSITE: {
                // The component boundary cuts the Write's target in half; the Send's lies in the second.
                int first = GUARD + WRITE_LENGTH / 2;
                return ByteBufAllocator.DEFAULT.compositeDirectBuffer(2).addComponents(true, filled(first, 0xEE),
                        filled(REGION_LENGTH - first, 0xEE));
            }
            case COMPOSITE_OF_ONE:
                // One direct component: the slices are one direct NIO buffer each, and only being
                // part of a composite sets them apart from the direct region's.
                return ByteBufAllocator.DEFAULT.compositeDirectBuffer(1).addComponent(true,
                        filled(REGION_LENGTH, 0xEE));
            default:
                return filled(REGION_LENGTH, 0xEE);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"EPOLL", "NIO", "IO_URING"})
    void heapAndCompositeRegionsTakeTheOrdinaryPathAndDirectOnesDoNot(Transport transport) throws Exception {
        Assumptions.assumeTrue(transport.isAvailable(), transport + " unavailable");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Kind[] kinds = Kind.values();
        ByteBuf[] memory = new ByteBuf[kinds.length];
        for (int k = 0; k < kinds.length; k++) {
            memory[k] = memory(kinds[k]);
        }
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).transport(transport)
                .channelInitializer(ch -> ch.config().setRecvByteBufAllocator(
                        new PlacementRecvByteBufAllocator(new FixedRecvByteBufAllocator(4096))))
                .build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(16);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).directPlacementThreshold(1024)
                    .build());
            MemoryRegion[] mr = new MemoryRegion[kinds.length];
            for (int k = 0; k < kinds.length; k++) {
                mr[k] = pd.register(memory[k], EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                assertThat(mr[k].length()).isEqualTo(REGION_LENGTH);
                // Posted before the connection: MSN k + 1 takes receive k (RFC 5041 §5.3).
                qp.postReceive(new ReceiveWorkRequest(100 + k, mr[k].sge(SEND_AT, SEND_LENGTH)));
            }
            try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
                for (int k = 0; k < kinds.length; k++) {
                    byte[] written = random(WRITE_LENGTH, 30 + k);
                    byte[] sent = random(SEND_LENGTH, 40 + k);
                    ByteArrayOutputStream stream = new ByteArrayOutputStream();
                    stream.writeBytes(fpdu(DirectPlacementTest.write(mr[k].stag(), mr[k].baseTaggedOffset() + GUARD,
                            written), false));
                    stream.writeBytes(fpdu(DirectPlacementTest.send(k + 1, sent), false));
                    peer.sendRaw(stream.toByteArray());

                    // The Send completes after the Write before it on the stream was placed.
                    WorkCompletion received = RdmaPair.next(cq);
                    assertThat(received.status()).as("%s: %s", kinds[k], received)
                            .isEqualTo(WorkCompletionStatus.SUCCESS);
                    assertThat(received.workRequestId()).isEqualTo(100 + k);
                    assertThat(received.byteLength()).isEqualTo(SEND_LENGTH);
                    assertThat(ByteBufUtil.getBytes(memory[k], GUARD, WRITE_LENGTH)).as("%s: the Write", kinds[k])
                            .isEqualTo(written);
                    assertThat(ByteBufUtil.getBytes(memory[k], SEND_AT, SEND_LENGTH)).as("%s: the Send", kinds[k])
                            .isEqualTo(sent);
                    assertUntouched(memory[k], 0, GUARD, 0xEE);
                    assertUntouched(memory[k], GUARD + WRITE_LENGTH, SEND_AT, 0xEE);
                    assertUntouched(memory[k], SEND_AT + SEND_LENGTH, REGION_LENGTH, 0xEE);
                    if (kinds[k] != Kind.DIRECT) {
                        assertThat(placedDirectly(meters)).as("%s: FPDUs placed directly", kinds[k]).isZero();
                        assertThat(octetsReadInPlace(meters)).as("%s: octets read in place", kinds[k]).isZero();
                    }
                }
                // The direct region, same connection, same reads: the Write and the Send placed directly.
                assertThat(placedDirectly(meters)).as("DIRECT: FPDUs placed directly").isEqualTo(2);
                assertThat(octetsReadInPlace(meters)).as("DIRECT: octets read in place").isPositive()
                        .isLessThanOrEqualTo(WRITE_LENGTH + SEND_LENGTH);
                assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
                assertThat(peer.poll(0)).as("nothing sent back (no Terminate)").isNull();
            }
        } finally {
            for (ByteBuf m : memory) {
                m.release();
            }
        }
    }
}
