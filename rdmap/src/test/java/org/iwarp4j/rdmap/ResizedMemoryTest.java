package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;

/**
 * Memory that its owner resizes or reallocates after registering it ({@code capacity(n)} on the
 * {@link ByteBuf} given to {@code register}): the region is a slice of that buffer, whose octets
 * follow the buffer's memory while the slice's own capacity stays what it was, so a placement
 * checked against the slice alone wrote past the buffer's new end. The registration now remembers
 * the buffer's address (or array) and capacity, and every use compares them: a peer's Write, Read
 * Response or Read Request gets a Terminate of the Local Catastrophic kind (the peer named octets
 * that were in the region; the error is this end's, RFC 5041 §7.2, RFC 5040 §7.1 #1, no headers)
 * and nothing is placed or sent; a local work request completes {@code LOCAL_PROTECTION_ERROR},
 * nothing sent, and the queue pair goes on.
 *
 * <p>The direct memory is a pooled buffer of 8 KiB, which Netty's pool shrinks in place (the memory
 * stays the buffer's), so that the octets past the new end can be looked at once the capacity is
 * given back: without the check, the peer's octets landed there.
 */
class ResizedMemoryTest {

    private static final int SIZE = 8192;
    private static final int SHRUNK = 6000;
    /** Where the peer writes or reads: inside the region, past the shrunk buffer's end. */
    private static final int BEYOND = 6500;
    private static final int LENGTH = 1500;
    private static final String TERMINATE_DDP_HEADER = "4147" + "00000000" + "00000002" + "00000001" + "00000000";

    private static ByteBuf pooledFilled() {
        byte[] octets = new byte[SIZE];
        Arrays.fill(octets, (byte) 0xEE);
        return PooledByteBufAllocator.DEFAULT.directBuffer(SIZE, SIZE).writeBytes(octets);
    }

    /** Shrinks the pooled buffer, checking that the pool kept its memory (else the test proves nothing). */
    private static void shrink(ByteBuf memory) {
        long address = memory.hasMemoryAddress() ? memory.memoryAddress() : 0;
        memory.capacity(SHRUNK);
        if (memory.hasMemoryAddress()) {
            assertThat(memory.memoryAddress()).as("shrunk in place").isEqualTo(address);
        }
    }

    @Test
    void aWriteIntoShrunkMemoryPlacesNothingPastItsEndAndTerminatesWithDdpLocalCatastrophic() throws Exception {
        writeIntoShrunkMemory(BEYOND, false);
    }

    /**
     * Direct placement: the socket reads the payload into the region unless the region's placement
     * guard refuses. A Write within the shrunk end (a Write past it is refused before, by the
     * slice Netty makes of the buffer as it is now), which was read into place.
     */
    @Test
    void aWriteIntoShrunkMemoryIsNotReadInPlace() throws Exception {
        writeIntoShrunkMemory(0, true);
    }

    private static void writeIntoShrunkMemory(int offset, boolean direct) throws Exception {
        ByteBuf memory = pooledFilled();
        try (Connection c = new Connection(memory, Access.REMOTE_WRITE,
                direct ? 1024 : QueuePairSettings.NO_DIRECT_PLACEMENT)) {
            shrink(memory);

            byte[] fpdu = DirectPlacementTest.fpdu(DirectPlacementTest.write(c.mr.stag(),
                    c.mr.baseTaggedOffset() + offset, DirectPlacementTest.random(LENGTH, 7)), false);
            // The header and a little of the payload, so that the rest may be read in place.
            int head = 2 + 14 + 100;
            c.peer.sendRaw(Arrays.copyOf(fpdu, head));
            if (direct) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RdmaPair.WAIT_SECONDS);
                while (DirectPlacementTest.placedDirectly(c.meters) < 1) {
                    assertThat(System.nanoTime()).as("the Write's placement started in time").isLessThan(deadline);
                    Thread.onSpinWait();
                }
            }
            c.peer.sendRaw(Arrays.copyOfRange(fpdu, head, fpdu.length));

            c.assertTerminated("10000000", TerminateReason.DDP_LOCAL_CATASTROPHIC); // DDP, no headers
            assertThat(DirectPlacementTest.octetsReadInPlace(c.meters)).isZero();
            memory.capacity(SIZE); // in place again: the octets past the shrunk end can be read
            DirectPlacementTest.assertUntouched(memory, 0, SIZE, 0xEE);
        } finally {
            memory.release();
        }
    }

    @Test
    void aWriteIntoHeapMemoryReallocatedByGrowingPlacesNothing() throws Exception {
        ByteBuf memory = Unpooled.buffer(64).writeBytes(filled(64));
        try (Connection c = new Connection(memory, Access.REMOTE_WRITE, QueuePairSettings.NO_DIRECT_PLACEMENT)) {
            byte[] before = memory.array();
            memory.capacity(128); // a new array, the 64 octets copied into it
            assertThat(memory.array()).isNotSameAs(before);

            c.peer.send(DirectPlacementTest.write(c.mr.stag(), c.mr.baseTaggedOffset(), new byte[16]));

            c.assertTerminated("10000000", TerminateReason.DDP_LOCAL_CATASTROPHIC);
            assertThat(ByteBufUtil.getBytes(memory, 0, 64)).as("nothing placed in the new array").isEqualTo(filled(64));
        } finally {
            memory.release();
        }
    }

    @Test
    void aReadRequestOfShrunkMemoryIsAnsweredWithRdmapLocalCatastrophicAndNoOctet() throws Exception {
        ByteBuf memory = pooledFilled();
        try (Connection c = new Connection(memory, Access.REMOTE_READ, QueuePairSettings.NO_DIRECT_PLACEMENT)) {
            shrink(memory);

            c.peer.send(TerminateOnTheWireTest.readRequest(1, 0x1234, 0, LENGTH, c.mr.stag(),
                    c.mr.baseTaggedOffset() + BEYOND));

            // RDMAP, no headers; and no Read Response before it.
            c.assertTerminated("00000000", TerminateReason.RDMAP_LOCAL_CATASTROPHIC);
        } finally {
            memory.release();
        }
    }

    @Test
    void localWorkWithShrunkMemoryCompletesLocalProtectionErrorAndSendsNothing() throws Exception {
        ByteBuf memory = pooledFilled();
        ByteBuf message = ByteBufAllocator.DEFAULT.directBuffer(4).writeInt(0x0BADCAFE);
        ByteBuf released = Unpooled.directBuffer(16).writeZero(16);
        try (Connection c = new Connection(memory, Access.LOCAL_WRITE, QueuePairSettings.NO_DIRECT_PLACEMENT)) {
            MemoryRegion good = c.pd.register(message, EnumSet.noneOf(Access.class));
            // Released under its registration: no longer as registered either (unpooled, so it shows).
            MemoryRegion gone = c.pd.register(released, EnumSet.noneOf(Access.class));
            released.release();
            shrink(memory);

            c.qp.postReceive(new ReceiveWorkRequest(1, c.mr.sge(BEYOND, LENGTH)));
            c.qp.postSend(SendWorkRequest.send(2, c.mr.sge(BEYOND, LENGTH)),
                    SendWorkRequest.rdmaRead(3, 0x1234, 0, c.mr.sge(BEYOND, LENGTH)),
                    SendWorkRequest.send(4, gone.sge()),
                    SendWorkRequest.send(5, good.sge()));

            for (int id = 1; id <= 4; id++) {
                WorkCompletion refused = RdmaPair.next(c.cq);
                assertThat(refused.workRequestId()).isEqualTo(id);
                assertThat(refused.status()).isEqualTo(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
            }
            WorkCompletion sent = RdmaPair.next(c.cq);
            assertThat(sent.workRequestId()).isEqualTo(5);
            assertThat(sent.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            // The first message on the wire is the good Send, MSN 1: nothing of the refused ones.
            assertThat(Hex.encode(c.peer.take())).isEqualTo("4143" + "00000000" + "00000000" + "00000001"
                    + "00000000" + "0badcafe");
            assertThat(c.qp.state()).isEqualTo(QueuePairState.RTS);
        } finally {
            memory.release();
            message.release();
        }
    }

    /**
     * An RNIC whose queue pair has {@code memory} registered with {@code access} and is connected to
     * a raw peer; the peer's zero-length Write has opened MPA's fence, so this end may send (a
     * Terminate too).
     */
    private static final class Connection implements AutoCloseable {
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).build();
        final ProtectionDomain pd = rnic.allocateProtectionDomain();
        final CompletionQueue cq = rnic.createCompletionQueue(16);
        final QueuePair qp;
        final MemoryRegion mr;
        final RawMpaPeer peer;

        Connection(ByteBuf memory, Access access, int directPlacementThreshold) throws Exception {
            qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq)
                    .directPlacementThreshold(directPlacementThreshold).build());
            mr = pd.register(memory, EnumSet.of(access));
            try {
                peer = RawMpaPeer.connectedTo(rnic, qp, DirectPlacementTest.MPA, DirectPlacementTest.MPA);
            } catch (Exception e) {
                rnic.close();
                throw e;
            }
            peer.send(DirectPlacementTest.write(1, 0, new byte[0]));
        }

        /** Exactly one Terminate, with {@code controlWord}, then the close; the queue pair tells why. */
        void assertTerminated(String controlWord, TerminateReason reason) throws Exception {
            List<byte[]> ulpdus = peer.takeAllUntilClosed();
            assertThat(ulpdus).as("exactly one Terminate").hasSize(1);
            assertThat(Hex.encode(ulpdus.get(0))).isEqualTo(TERMINATE_DDP_HEADER + controlWord);
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.terminateReason()).isEqualTo(reason);
            assertThat(qp.terminateReceived()).isFalse();
            assertThat(qp.failureCause()).hasMessageContaining("resized or reallocated");
        }

        @Override
        public void close() {
            peer.close();
            rnic.close();
        }
    }

    private static byte[] filled(int length) {
        byte[] octets = new byte[length];
        Arrays.fill(octets, (byte) 0xEE);
        return octets;
    }
}
