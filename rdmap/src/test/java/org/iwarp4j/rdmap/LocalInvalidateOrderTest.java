package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Local Invalidate takes effect in send-queue order, once the work requests posted before it
 * have completed ({@link SendWorkRequest#localInvalidate}): an RDMA Read posted before it keeps its
 * Data Sink until its Read Response is placed, whether the Read is outstanding or still waiting
 * for ORD, and completes {@code SUCCESS}; then the invalidate completes and the STag is invalid. A
 * request posted after it finds the region invalid, as in queue order it is. The invalidation used
 * to happen when the request was posted: the Read's correct response then met an invalid STag,
 * the peer got a Terminate (DDP Tagged Invalid STag) and the Read failed.
 */
class LocalInvalidateOrderTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();
    private static final int SIZE = 64;
    private static final int PEER_STAG = 0x11223344;
    private static final long PEER_TO = 0x7F00_0000_1000L;

    /** The Read of the first test, large enough for direct placement. */
    private static final int BIG = ReadSinkOfAnotherQueuePairTest.SIZE;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(16);
    private final ByteBuf memory = DirectPlacementTest.filled(BIG, 0xAA);
    private final ByteBuf sendMemory = DirectPlacementTest.filled(16, 0x55);
    private final MemoryRegion sink = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
    private final MemoryRegion source = pd.register(sendMemory, EnumSet.noneOf(Access.class));

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.release();
        sendMemory.release();
    }

    /**
     * With direct placement the response is read into place and the invalidate runs right after its
     * delivery, on the same turn of the event loop: no hold of the region's placement guard is left
     * for it to wait on.
     */
    @ParameterizedTest(name = "direct placement {0}")
    @ValueSource(booleans = {false, true})
    void aReadPostedBeforeALocalInvalidateOfItsSinkCompletesFirst(boolean direct) throws Exception {
        if (direct) {
            Assumptions.assumeTrue(Transport.EPOLL.isAvailable(), "direct placement needs epoll or io_uring");
        }
        QueuePair qp = rnic.createQueuePair(ReadSinkOfAnotherQueuePairTest.settings(pd, cq, direct));
        try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
            peer.send(TerminateOnTheWireTest.write(1, 0, "")); // opens MPA's fence for our Read Request
            qp.postSend(SendWorkRequest.rdmaRead(1, PEER_STAG, PEER_TO, sink.sge(0, BIG)));
            qp.postSend(SendWorkRequest.localInvalidate(2, sink.stag()));
            qp.postSend(SendWorkRequest.send(3, source.sge(0, 16)));
            qp.postSend(SendWorkRequest.send(4, sink.sge(0, 16))); // after the invalidate: the region is gone

            long sinkTo = readRequested(peer, sink.baseTaggedOffset(), BIG);
            assertSend(peer.take(), 1);
            // The invalidate was posted before the Send just received, and waits for the Read.
            assertThat(sink.isValid()).as("the sink of the outstanding Read").isTrue();

            byte[] data = DirectPlacementTest.random(BIG, 1);
            ReadSinkOfAnotherQueuePairTest.respondInTwoParts(peer, sink.stag(), sinkTo, data, direct, memory, 0);
            assertCompletion(1, WorkCompletionOpcode.RDMA_READ, WorkCompletionStatus.SUCCESS);
            assertCompletion(2, WorkCompletionOpcode.LOCAL_INVALIDATE, WorkCompletionStatus.SUCCESS);
            assertThat(sink.isValid()).isFalse();
            assertCompletion(3, WorkCompletionOpcode.SEND, WorkCompletionStatus.SUCCESS);
            assertCompletion(4, WorkCompletionOpcode.SEND, WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
            assertThat(ByteBufUtil.getBytes(memory, 0, BIG)).isEqualTo(data);
            assertThat(DirectPlacementTest.placedDirectly(meters)).isEqualTo(direct ? 1 : 0);
            assertNoTerminate(qp, peer, 2);
        }
    }

    @Test
    void readsWaitingForOrdBeforeALocalInvalidateOfTheirSinkCompleteFirst() throws Exception {
        MpaSettings ord1 = MpaSettings.builder().ord(1).build();
        QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(ord1).build());
        try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, ord1, MPA)) {
            assertThat(qp.negotiated().ord()).isEqualTo(1);
            peer.send(TerminateOnTheWireTest.write(1, 0, ""));
            qp.postSend(SendWorkRequest.rdmaRead(1, PEER_STAG, PEER_TO, sink.sge(0, SIZE)));
            qp.postSend(SendWorkRequest.rdmaRead(2, PEER_STAG, PEER_TO + SIZE, sink.sge(SIZE, SIZE)));
            qp.postSend(SendWorkRequest.localInvalidate(3, sink.stag()));
            qp.postSend(SendWorkRequest.send(4, source.sge(0, 16)));

            long firstTo = readRequested(peer, sink.baseTaggedOffset(), SIZE);
            assertSend(peer.take(), 1); // the second Read waits for ORD; the Send behind it does not
            assertThat(sink.isValid()).as("the sink of the outstanding Read and of the waiting one").isTrue();

            byte[] first = DirectPlacementTest.random(SIZE, 2);
            peer.send(DirectPlacementTest.tagged(0x42, sink.stag(), firstTo, first));
            long secondTo = readRequested(peer, sink.baseTaggedOffset() + SIZE, SIZE);
            assertCompletion(1, WorkCompletionOpcode.RDMA_READ, WorkCompletionStatus.SUCCESS);
            assertThat(sink.isValid()).as("the sink of the Read that ORD let out just now").isTrue();

            byte[] second = DirectPlacementTest.random(SIZE, 3);
            peer.send(DirectPlacementTest.tagged(0x42, sink.stag(), secondTo, second));
            assertCompletion(2, WorkCompletionOpcode.RDMA_READ, WorkCompletionStatus.SUCCESS);
            assertCompletion(3, WorkCompletionOpcode.LOCAL_INVALIDATE, WorkCompletionStatus.SUCCESS);
            assertThat(sink.isValid()).isFalse();
            assertCompletion(4, WorkCompletionOpcode.SEND, WorkCompletionStatus.SUCCESS);
            assertThat(ByteBufUtil.getBytes(memory, 0, SIZE)).isEqualTo(first);
            assertThat(ByteBufUtil.getBytes(memory, SIZE, SIZE)).isEqualTo(second);
            assertNoTerminate(qp, peer, 2);
        }
    }

    /**
     * While a Local Invalidate waits behind a Read, the peer invalidates the same region with a Send
     * with Invalidate (allowed: the region is this queue pair's). The invalidate's turn then finds the
     * STag invalid already, which is no error (siw's {@code siw_invalidate_stag} neither): it completes
     * SUCCESS. RPC-over-RDMA's Requester posts such invalidates as fences and closes its connection
     * when one fails.
     */
    @Test
    void aLocalInvalidateOfARegionThePeerInvalidatedWhileItWaitedSucceeds() throws Exception {
        QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).build());
        ByteBuf chunkMemory = DirectPlacementTest.filled(SIZE, 0x33);
        try (RawMpaPeer peer = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
            MemoryRegion chunk = qp.register(chunkMemory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            qp.postReceive(new ReceiveWorkRequest(5, sink.sge(SIZE, 16)));
            peer.send(TerminateOnTheWireTest.write(1, 0, ""));
            qp.postSend(SendWorkRequest.rdmaRead(1, PEER_STAG, PEER_TO, sink.sge(0, SIZE)));
            qp.postSend(SendWorkRequest.localInvalidate(2, chunk.stag()));
            long sinkTo = readRequested(peer, sink.baseTaggedOffset(), SIZE);

            peer.send(org.iwarp4j.testkit.Hex.decode(
                    String.format("4144 %08x 00000000 00000001 00000000 cafebabe", chunk.stag())));
            WorkCompletion received = RdmaPair.next(cq);
            assertThat(received.workRequestId()).isEqualTo(5);
            assertThat(received.invalidatedStag()).hasValue(chunk.stag());
            assertThat(chunk.isValid()).as("invalidated by the peer").isFalse();

            peer.send(DirectPlacementTest.tagged(0x42, sink.stag(), sinkTo, DirectPlacementTest.random(SIZE, 4)));
            assertCompletion(1, WorkCompletionOpcode.RDMA_READ, WorkCompletionStatus.SUCCESS);
            assertCompletion(2, WorkCompletionOpcode.LOCAL_INVALIDATE, WorkCompletionStatus.SUCCESS);
            assertNoTerminate(qp, peer, 1);
        } finally {
            chunkMemory.release();
        }
    }

    /** The peer's next ULPDU is a Read Request for {@code size} octets into {@link #sink} at {@code sinkTo}; returns it. */
    private long readRequested(RawMpaPeer peer, long sinkTo, int size) throws InterruptedException {
        ByteBuf request = Unpooled.wrappedBuffer(peer.take());
        assertThat(request.getShort(0)).as("untagged, L=1, Read Request").isEqualTo((short) 0x4141);
        assertThat(request.getInt(18)).as("Data Sink STag").isEqualTo(sink.stag());
        assertThat(request.getLong(22)).as("Data Sink TO").isEqualTo(sinkTo);
        assertThat(request.getInt(30)).as("Read Message Size").isEqualTo(size);
        return sinkTo;
    }

    /** {@code ulpdu} is a Send of 16 octets with MSN {@code msn} (untagged, L=1, QN 0). */
    private static void assertSend(byte[] ulpdu, int msn) {
        ByteBuf send = Unpooled.wrappedBuffer(ulpdu);
        assertThat(send.getShort(0)).as("untagged, L=1, Send").isEqualTo((short) 0x4143);
        assertThat(send.getInt(6)).as("QN").isZero();
        assertThat(send.getInt(10)).as("MSN").isEqualTo(msn);
        assertThat(send.readableBytes()).isEqualTo(18 + 16);
    }

    private void assertCompletion(long id, WorkCompletionOpcode opcode, WorkCompletionStatus status)
            throws InterruptedException {
        WorkCompletion c = RdmaPair.next(cq);
        assertThat(c.workRequestId()).isEqualTo(id);
        assertThat(c.opcode()).isEqualTo(opcode);
        assertThat(c.status()).as("status of %d", id).isEqualTo(status);
    }

    /** No Terminate went out: the queue pair is in RTS and the next message the peer gets is a Send posted now. */
    private void assertNoTerminate(QueuePair qp, RawMpaPeer peer, int msn) throws InterruptedException {
        assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        assertThat(qp.terminateReason()).isNull();
        qp.postSend(SendWorkRequest.send(99, source.sge(0, 16)));
        assertCompletion(99, WorkCompletionOpcode.SEND, WorkCompletionStatus.SUCCESS);
        assertSend(peer.take(), msn);
    }
}
