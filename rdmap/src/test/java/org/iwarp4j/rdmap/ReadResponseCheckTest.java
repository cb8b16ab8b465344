package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Read Response must answer the outstanding Read exactly (RDMAP-R-018's comparison with the
 * request, RDMAP-R-016, RDMAP-R-019): each non-empty segment at the next expected TO, no octet
 * beyond the Read Message Size, L set when, and only when, all of it has come. A hand-driven peer
 * answers a 4096-octet Read into a sink filled with 0xAA: a lone zero-length segment with L = 1, a
 * segment in the sink at the wrong TO, one past the requested range, one with L set early. Each
 * draws a Terminate DDP Tagged Base or Bounds (0x1/0x1/0x01, as siw's {@code siw_rresp_check_ntoh})
 * echoing the segment's DDP header, the Read fails with that reason, and nothing of the refused
 * segment reaches the sink; with direct placement on, its payload is not read into place either.
 */
class ReadResponseCheckTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();
    private static final int SIZE = 4096;
    /** The sink starts at this octet of the region; the region goes on after the sink. */
    private static final int SINK = 1024;
    private static final int PEER_STAG = 0x11223344;
    private static final long PEER_TO = 0x7F00_0000_1000L;
    /**
     * Octets of a segment the peer sends before the refused one: below the direct placement
     * threshold (1024), so only the refused segment could ever be placed directly.
     */
    private static final int ACCEPTED = 1000;

    /** A Read Response segment: control T, L as given, DV 1; RDMAP RV 1, opcode 2. */
    private static byte[] readResponse(boolean last, int stag, long to, int length, int fill) {
        byte[] payload = new byte[length];
        Arrays.fill(payload, (byte) fill);
        byte[] segment = DirectPlacementTest.tagged(0x42, stag, to, payload);
        segment[0] = (byte) (last ? 0xC1 : 0x81);
        return segment;
    }

    /** What the peer does after it read our Read Request for {@code SIZE} octets at {@code stag}/{@code to}. */
    @FunctionalInterface
    private interface Answer {
        /** The segments before the refused one (sent whole), then the refused one. */
        byte[][] segments(int stag, long to);
    }

    /**
     * Connects a queue pair to a raw peer, posts the Read, lets {@code answer} respond, and checks
     * the Terminate, the Read's completion and the sink: {@code placed} octets of 0x11 from its
     * start (accepted segments), 0xAA in the rest of the region.
     */
    private static void refused(boolean direct, Answer answer, int placed) throws Exception {
        if (direct) {
            Assumptions.assumeTrue(Transport.EPOLL.isAvailable(), "direct placement needs epoll or io_uring");
        }
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ByteBuf memory = DirectPlacementTest.filled(SINK + 2 * SIZE, 0xAA);
        Rnic.Builder builder = Rnic.builder().eventLoopThreads(1).meterRegistry(meters);
        try (Rnic rnic = (direct ? builder.transport(Transport.EPOLL) : builder).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(16);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).directPlacementThreshold(
                    direct ? 1024 : QueuePairSettings.NO_DIRECT_PLACEMENT).build());
            MemoryRegion sink = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
                peer.send(TerminateOnTheWireTest.write(1, 0, "")); // opens MPA's fence for our Read Request
                qp.postSend(SendWorkRequest.rdmaRead(60, PEER_STAG, PEER_TO, sink.sge(SINK, SIZE)));
                ByteBuf request = io.netty.buffer.Unpooled.wrappedBuffer(peer.take());
                assertThat(request.getShort(0)).as("untagged, L=1, Read Request").isEqualTo((short) 0x4141);
                int sinkStag = request.getInt(18);
                long sinkTo = request.getLong(22);
                assertThat(sinkStag).isEqualTo(sink.stag());
                assertThat(sinkTo).isEqualTo(sink.baseTaggedOffset() + SINK);
                assertThat(request.getInt(30)).as("Read Message Size").isEqualTo(SIZE);

                byte[][] segments = answer.segments(sinkStag, sinkTo);
                for (int i = 0; i < segments.length - 1; i++) {
                    peer.send(segments[i]);
                }
                byte[] bad = segments[segments.length - 1];
                // In two parts, so that direct placement is asked while the payload is still on its way.
                byte[] fpdu = DirectPlacementTest.fpdu(bad, false);
                int firstPart = Math.min(fpdu.length, 2 + 14 + 64);
                peer.sendRaw(Arrays.copyOf(fpdu, firstPart));
                if (firstPart < fpdu.length) { // a short FPDU went whole: the RNIC may have closed already
                    peer.sendRaw(Arrays.copyOfRange(fpdu, firstPart, fpdu.length));
                }

                assertThat(Hex.encode(peer.take())).isEqualTo(TerminateOnTheWireTest.terminate("1101c000", bad, 14));
                assertThat(peer.takeAllUntilClosed()).as("RDMAP-R-027: nothing after the Terminate").isEmpty();
                WorkCompletion read = RdmaPair.next(cq);
                assertThat(read.workRequestId()).isEqualTo(60);
                assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
                assertThat(read.status()).isEqualTo(WorkCompletionStatus.FATAL);
                assertThat(read.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION);
                assertThat(read.byteLength()).isZero();
                qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
                assertThat(qp.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION);
                assertThat(qp.terminateReceived()).isFalse();
            }
            byte[] expected = new byte[memory.capacity()];
            Arrays.fill(expected, (byte) 0xAA);
            Arrays.fill(expected, SINK, SINK + placed, (byte) 0x11);
            assertThat(ByteBufUtil.getBytes(memory, 0, memory.capacity())).as("the region").isEqualTo(expected);
            assertThat(DirectPlacementTest.placedDirectly(meters)).as("no refused payload read into place").isZero();
        } finally {
            memory.release();
        }
    }

    @ParameterizedTest(name = "direct placement {0}")
    @ValueSource(booleans = {false, true})
    void aLoneZeroLengthSegmentWithLastSetDoesNotCompleteTheRead(boolean direct) throws Exception {
        // The attack: SUCCESS with 4096 octets and nothing placed, stale 0xAA taken for the data.
        refused(direct, (stag, to) -> new byte[][] {readResponse(true, stag, to, 0, 0)}, 0);
    }

    @ParameterizedTest(name = "direct placement {0}")
    @ValueSource(booleans = {false, true})
    void aSegmentInsideTheSinkButAtTheWrongToIsRefused(boolean direct) throws Exception {
        // In the request's range and the region, but 2048 octets on from the next expected TO (the sink's start).
        refused(direct, (stag, to) -> new byte[][] {readResponse(false, stag, to + 2048, 2048, 0x11)}, 0);
    }

    @ParameterizedTest(name = "direct placement {0}")
    @ValueSource(booleans = {false, true})
    void aSegmentPastTheRequestedRangeIsRefused(boolean direct) throws Exception {
        // ACCEPTED octets placed, then 3196 at the right TO: 100 past the Read, still inside the region.
        refused(direct, (stag, to) -> new byte[][] {readResponse(false, stag, to, ACCEPTED, 0x11),
            readResponse(true, stag, to + ACCEPTED, SIZE - ACCEPTED + 100, 0x11)}, ACCEPTED);
    }

    @ParameterizedTest(name = "direct placement {0}")
    @ValueSource(booleans = {false, true})
    void aLastSegmentBeforeTheReadMessageSizeIsRefused(boolean direct) throws Exception {
        // L = 1 on the second segment, at the right TO, with 1000 + 2048 of the 4096 octets.
        refused(direct, (stag, to) -> new byte[][] {readResponse(false, stag, to, ACCEPTED, 0x11),
            readResponse(true, stag, to + ACCEPTED, 2048, 0x11)}, ACCEPTED);
    }

    @Test
    void aResponseInTwoSegmentsAtTheExpectedTosCompletesTheRead() throws Exception {
        // The ordinary case: 2048 + 2048 octets, L on the second; SUCCESS with 4096, all placed.
        ByteBuf memory = DirectPlacementTest.filled(SINK + 2 * SIZE, 0xAA);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(16);
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).build());
            MemoryRegion sink = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
                peer.send(TerminateOnTheWireTest.write(1, 0, ""));
                qp.postSend(SendWorkRequest.rdmaRead(61, PEER_STAG, PEER_TO, sink.sge(SINK, SIZE)));
                ByteBuf request = io.netty.buffer.Unpooled.wrappedBuffer(peer.take());
                long to = request.getLong(22);
                peer.send(readResponse(false, sink.stag(), to, 2048, 0x11));
                peer.send(readResponse(true, sink.stag(), to + 2048, 2048, 0x22));
                WorkCompletion read = RdmaPair.next(cq);
                assertThat(read.workRequestId()).isEqualTo(61);
                assertThat(read.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(read.byteLength()).isEqualTo(SIZE);
                assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
                assertThat(qp.terminateReason()).isNull();
            }
            byte[] expected = new byte[memory.capacity()];
            Arrays.fill(expected, (byte) 0xAA);
            Arrays.fill(expected, SINK, SINK + 2048, (byte) 0x11);
            Arrays.fill(expected, SINK + 2048, SINK + SIZE, (byte) 0x22);
            assertThat(ByteBufUtil.getBytes(memory, 0, memory.capacity())).isEqualTo(expected);
        } finally {
            memory.release();
        }
    }
}
