package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link QueuePair#register} binds a region to one queue pair's peer, but promises that local work
 * requests of any queue pair of the domain may use it: an RDMA Read posted on another queue pair
 * of the domain may take it as its Data Sink. The Read Response is placed there (its segments are
 * compared with the outstanding Read first, RDMAP-R-018, so the peer reaches nothing but the sink
 * the Read named), the Read completes {@code SUCCESS}, and no Terminate goes to the peer. It used
 * to be placed as if the peer had named the STag itself: DDP Tagged "STag not associated with the
 * stream" (0x1/0x1/0x02) for a correct response, the Read {@code FATAL}. With direct placement on,
 * the response is read into place too.
 */
class ReadSinkOfAnotherQueuePairTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();
    /** Octets of the Read: its response's second half arrives after the first ({@link #respondInTwoParts}). */
    static final int SIZE = 40000;
    /** The sink starts at this octet of the region. */
    private static final int SINK = 1024;
    private static final int PEER_STAG = 0x11223344;
    private static final long PEER_TO = 0x7F00_0000_1000L;

    /** A queue pair that places payloads of 1024 octets and more directly with {@code direct}, else never. */
    static QueuePairSettings settings(ProtectionDomain pd, CompletionQueue cq, boolean direct) {
        return QueuePairSettings.builder(pd, cq).directPlacementThreshold(
                direct ? 1024 : QueuePairSettings.NO_DIRECT_PLACEMENT).build();
    }

    /**
     * Answers a Read with one Read Response segment (L = 1) of {@code payload} at {@code stag} /
     * {@code to}, sent in two parts. With {@code direct}, the second part is sent once the first
     * half of the payload is in {@code memory} from {@code index}: the socket reads the rest
     * straight into place.
     */
    static void respondInTwoParts(RawMpaPeer peer, int stag, long to, byte[] payload, boolean direct, ByteBuf memory,
                                  int index) {
        byte[] fpdu = DirectPlacementTest.fpdu(DirectPlacementTest.tagged(0x42, stag, to, payload), false);
        int half = payload.length / 2;
        int firstPart = 2 + 14 + half;
        peer.sendRaw(Arrays.copyOf(fpdu, firstPart));
        if (direct) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RdmaPair.WAIT_SECONDS);
            ByteBuf expected = Unpooled.wrappedBuffer(payload);
            while (!RdmaPair.sameOctets(memory, index, expected, 0, half)) {
                assertThat(System.nanoTime()).as("first half placed in time").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
        peer.sendRaw(Arrays.copyOfRange(fpdu, firstPart, fpdu.length));
    }

    @ParameterizedTest(name = "direct placement {0}")
    @ValueSource(booleans = {false, true})
    void aReadIntoARegionRegisteredWithAnotherQueuePairOfTheDomainSucceeds(boolean direct) throws Exception {
        if (direct) {
            Assumptions.assumeTrue(Transport.EPOLL.isAvailable(), "direct placement needs epoll or io_uring");
        }
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ByteBuf memory = DirectPlacementTest.filled(SINK + SIZE + SINK, 0xAA);
        ByteBuf sendMemory = DirectPlacementTest.filled(16, 0x55);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).build()) { // epoll where available
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(16);
            QueuePair reader = rnic.createQueuePair(settings(pd, cq, direct));
            QueuePair owner = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).build());
            MemoryRegion sink = owner.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion source = pd.register(sendMemory, EnumSet.noneOf(Access.class));
            try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, reader, MPA, MPA)) {
                peer.send(TerminateOnTheWireTest.write(1, 0, "")); // opens MPA's fence for our Read Request
                reader.postSend(SendWorkRequest.rdmaRead(60, PEER_STAG, PEER_TO, sink.sge(SINK, SIZE)));
                ByteBuf request = Unpooled.wrappedBuffer(peer.take());
                assertThat(request.getShort(0)).as("untagged, L=1, Read Request").isEqualTo((short) 0x4141);
                assertThat(request.getInt(18)).as("Data Sink STag").isEqualTo(sink.stag());
                long sinkTo = request.getLong(22);
                assertThat(sinkTo).isEqualTo(sink.baseTaggedOffset() + SINK);

                byte[] payload = DirectPlacementTest.random(SIZE, 7);
                respondInTwoParts(peer, sink.stag(), sinkTo, payload, direct, memory, SINK);

                WorkCompletion read = RdmaPair.next(cq);
                assertThat(read.workRequestId()).isEqualTo(60);
                assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                assertThat(read.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(read.byteLength()).isEqualTo(SIZE);
                assertThat(ByteBufUtil.getBytes(memory, SINK, SIZE)).as("the sink").isEqualTo(payload);
                DirectPlacementTest.assertUntouched(memory, 0, SINK, 0xAA);
                DirectPlacementTest.assertUntouched(memory, SINK + SIZE, memory.capacity(), 0xAA);
                assertThat(DirectPlacementTest.placedDirectly(meters)).as("read into place").isEqualTo(direct ? 1 : 0);

                // No Terminate: the next message the peer gets is a Send posted now, and the queue
                // pair is still in RTS.
                reader.postSend(SendWorkRequest.send(61, source.sge(0, 16)));
                WorkCompletion sent = RdmaPair.next(cq);
                assertThat(sent.workRequestId()).isEqualTo(61);
                assertThat(sent.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                ByteBuf next = Unpooled.wrappedBuffer(peer.take());
                assertThat(next.getShort(0)).as("untagged, L=1, Send").isEqualTo((short) 0x4143);
                assertThat(next.getInt(6)).as("QN 0").isZero();
                assertThat(reader.state()).isEqualTo(QueuePairState.RTS);
                assertThat(reader.terminateReason()).isNull();
                assertThat(sink.isValid()).isTrue();
            }
        } finally {
            memory.release();
            sendMemory.release();
        }
    }
}
