package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A region registered with {@link ProtectionDomain#register} serves every connection of its
 * domain, remote access or not: a server may carve every connection's receives and RDMA Read
 * sinks (LOCAL_WRITE only) from one such region. A Read sink's STag travels to the peer in the Read
 * Request, so a peer knows it; a remote invalidation (Send with Invalidate) of it must not revoke
 * the memory the other connections are using (RFC 5040 §8.1.1 item 7, RDMAP-R-047). It is
 * refused as an STag not associated with the stream (RFC 5040 §5.3, RDMAP-R-024): Terminate RDMAP
 * Remote Protection Error "STag cannot be Invalidated" (0x0/0x1/0x09) echoing the DDP header, and
 * the region stays valid for the other connection. Only a region without remote access used to
 * be invalidated for everyone.
 */
class SharedRegionRemoteInvalidationTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();
    private static final int SIZE = 64;
    private static final int PEER_STAG = 0x11223344;
    private static final long PEER_TO = 0x7F00_0000_1000L;

    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final ByteBuf memory = DirectPlacementTest.filled(4 * SIZE, 0xAA);
    /** Every connection's receives and Read sinks: no remote access. */
    private final MemoryRegion shared = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.release();
    }

    /** A Send with Invalidate segment (untagged, L=1, opcode 0x4) of {@code stag}, QN 0, MSN 1, MO 0. */
    private static byte[] sendWithInvalidate(int stag, String payloadHex) {
        return Hex.decode(String.format("4144 %08x 00000000 00000001 00000000", stag) + payloadHex);
    }

    @Test
    void onePeerCannotInvalidateTheDomainWideReadSinkOfAllConnections() throws Exception {
        CompletionQueue firstCq = rnic.createCompletionQueue(16);
        CompletionQueue secondCq = rnic.createCompletionQueue(16);
        QueuePair first = rnic.createQueuePair(QueuePairSettings.builder(pd, firstCq).build());
        QueuePair second = rnic.createQueuePair(QueuePairSettings.builder(pd, secondCq).build());
        first.postReceive(new ReceiveWorkRequest(11, shared.sge(0, SIZE)));
        second.postReceive(new ReceiveWorkRequest(21, shared.sge(SIZE, SIZE)));
        try (RawMpaPeer firstPeer = RawMpaPeer.connectedTo(rnic, first, MPA, MPA);
             RawMpaPeer secondPeer = RawMpaPeer.connectedTo(rnic, second, MPA, MPA)) {
            // The first peer learns the region's STag from a Read Request, and answers it with a
            // Send with Invalidate of that STag.
            firstPeer.send(TerminateOnTheWireTest.write(1, 0, "")); // opens MPA's fence for our Read Request
            first.postSend(SendWorkRequest.rdmaRead(12, PEER_STAG, PEER_TO, shared.sge(2 * SIZE, SIZE)));
            int stag = Unpooled.wrappedBuffer(firstPeer.take()).getInt(18);
            assertThat(stag).as("the Read Request's Data Sink STag").isEqualTo(shared.stag());
            byte[] invalidate = sendWithInvalidate(stag, "01020304");
            firstPeer.send(invalidate);

            assertThat(Hex.encode(firstPeer.take())).as("Terminate RDMAP 0x1/0x09, M and D, the DDP header")
                    .isEqualTo(TerminateOnTheWireTest.terminate("0109c000", invalidate, 18));
            assertThat(firstPeer.takeAllUntilClosed()).as("nothing after the Terminate").isEmpty();
            first.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(first.terminateReason()).isEqualTo(TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE);
            assertThat(first.terminateReceived()).isFalse();
            java.util.Map<Long, WorkCompletion> completed = new java.util.HashMap<>();
            for (int i = 0; i < 2; i++) {
                WorkCompletion c = RdmaPair.next(firstCq);
                completed.put(c.workRequestId(), c);
            }
            assertThat(completed.get(11L).status()).as("the receive").isEqualTo(WorkCompletionStatus.FLUSHED);
            assertThat(completed.get(11L).invalidatedStag()).isEmpty();
            assertThat(completed.get(12L).status()).as("the Read").isNotEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(shared.isValid()).as("the shared region").isTrue();

            // The other connection goes on with it: a receive and a Read into the region.
            byte[] message = DirectPlacementTest.random(SIZE, 5);
            secondPeer.send(DirectPlacementTest.send(message));
            WorkCompletion received = RdmaPair.next(secondCq);
            assertThat(received.workRequestId()).isEqualTo(21);
            assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(received.byteLength()).isEqualTo(SIZE);
            assertThat(ByteBufUtil.getBytes(memory, SIZE, SIZE)).isEqualTo(message);

            second.postSend(SendWorkRequest.rdmaRead(22, PEER_STAG, PEER_TO, shared.sge(3 * SIZE, SIZE)));
            ByteBuf request = Unpooled.wrappedBuffer(secondPeer.take());
            assertThat(request.getInt(18)).isEqualTo(shared.stag());
            long sinkTo = request.getLong(22);
            byte[] data = DirectPlacementTest.random(SIZE, 6);
            secondPeer.send(DirectPlacementTest.tagged(0x42, shared.stag(), sinkTo, data));
            WorkCompletion read = RdmaPair.next(secondCq);
            assertThat(read.workRequestId()).isEqualTo(22);
            assertThat(read.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(ByteBufUtil.getBytes(memory, 3 * SIZE, SIZE)).isEqualTo(data);
            assertThat(second.state()).isEqualTo(QueuePairState.RTS);
            assertThat(second.terminateReason()).isNull();
        }
    }
}
