package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.WrappedByteBuf;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Tagged Offsets near 2^64, from the peer and from the local user: a Read Request whose Data Sink
 * TO + size wraps is answered with the TOs passed on modulo 2^64 (RFC 5040 §5.2.1 gives the Data
 * Source no check of the sink's fields, RDMAP-R-016; the Data Sink's DDP refuses the wrap, RFC 5041
 * §7.1), and an RDMA Write whose remote TO + length wraps completes in error locally, with the work
 * behind it carried on. Neither leaves a reference on registered memory.
 */
class TaggedOffsetWrapTest {

    /** 256 payload octets per tagged segment (270 - 14), so that a 512-octet response takes two. */
    private static final MpaSettings SMALL_FPDUS = MpaSettings.builder().maxSendUlpdu(270).build();
    private static final MpaSettings MPA = MpaSettings.builder().build();
    private static final long NEAR_WRAP = 0xFFFF_FFFF_FFFF_FF00L;

    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(16);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(2048).writeBytes(DirectPlacementTest.random(2048, 9));
    private QueuePair qp;

    @AfterEach
    void tearDown() {
        rnic.close();
        if (memory.refCnt() > 0) {
            memory.release();
        }
    }

    private RawMpaPeer connect(MpaSettings mpa, int sendQueueDepth) throws Exception {
        qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(mpa).sendQueueDepth(sendQueueDepth).build());
        return RawMpaPeer.connectedTo(rnic, qp, mpa, MPA);
    }

    @Test
    void aReadRequestWhoseSinkToWrapsIsAnsweredWithTheTosModulo2To64() throws Exception {
        // RDMAP-R-016, DDP-R-030: sink TO 2^64 - 256, 512 octets -> TO ...ff00 (256 octets, L=0),
        // then TO 0 (256 octets, L=1), the source's octets in order; no Terminate, no failure.
        MemoryRegion source = pd.register(memory, RdmaPair.ALL);
        try (RawMpaPeer peer = connect(SMALL_FPDUS, 4)) {
            peer.send(TerminateOnTheWireTest.readRequest(1, 0x0A0B0C0D, NEAR_WRAP, 512, source.stag(),
                    source.baseTaggedOffset() + 100));
            assertThat(Hex.encode(peer.take())).isEqualTo(Hex.encode(Hex.decode("8142 0a0b0c0d ffffffffffffff00"))
                    + Hex.encode(ByteBufUtil.getBytes(memory, 100, 256)));
            assertThat(Hex.encode(peer.take())).isEqualTo(Hex.encode(Hex.decode("c142 0a0b0c0d 0000000000000000"))
                    + Hex.encode(ByteBufUtil.getBytes(memory, 356, 256)));
            // The stream goes on: the next Read Request is answered, and nothing came in between.
            peer.send(TerminateOnTheWireTest.readRequest(2, 0x0A0B0C0E, 0x1000, 0, 0, 0));
            assertThat(Hex.encode(peer.take())).isEqualTo("c1420a0b0c0e0000000000001000");
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
            assertThat(qp.terminateReason()).isNull();
            assertThat(qp.failureCause()).isNull();
        }
        rnic.close();
        assertThat(memory.refCnt()).as("every slice of the source released").isEqualTo(1);
    }

    @Test
    void anRdmaWriteWhoseRemoteToWrapsCompletesInErrorAndTheSendBehindItGoesOut() throws Exception {
        // Send queue depth 2: both slots must come back for the two Sends posted after.
        MemoryRegion local = pd.register(memory, RdmaPair.ALL);
        try (RawMpaPeer peer = connect(MPA, 2)) {
            peer.send(TerminateOnTheWireTest.write(1, 0, "")); // the Initiator's first FPDU opens MPA's fence
            qp.postSend(SendWorkRequest.rdmaWrite(1, 0x11223344, NEAR_WRAP, local.sge(0, 512)),
                    SendWorkRequest.send(2, local.sge(512, 16)));
            WorkCompletion write = RdmaPair.next(cq);
            assertThat(write.workRequestId()).isEqualTo(1);
            assertThat(write.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_WRITE);
            assertThat(write.status()).isEqualTo(WorkCompletionStatus.LOCAL_LENGTH_ERROR);
            assertThat(write.byteLength()).isZero();
            WorkCompletion send = RdmaPair.next(cq);
            assertThat(send.workRequestId()).isEqualTo(2);
            assertThat(send.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(send.byteLength()).isEqualTo(16);
            // On the wire: no Write segment at all, the Send with MSN 1.
            assertThat(Hex.encode(peer.take())).isEqualTo(Hex.encode(Hex.decode(
                    "4143 00000000 00000000 00000001 00000000")) + Hex.encode(ByteBufUtil.getBytes(memory, 512, 16)));

            qp.postSend(SendWorkRequest.send(3, local.sge(0, 4)), SendWorkRequest.send(4, local.sge(4, 4)));
            assertThat(RdmaPair.next(cq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(RdmaPair.next(cq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(peer.take()[13]).as("MSN 2").isEqualTo((byte) 2);
            assertThat(peer.take()[13]).as("MSN 3").isEqualTo((byte) 3);
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        }
        rnic.close();
        assertThat(memory.refCnt()).as("no slice of the Write's payload kept").isEqualTo(1);
    }

    @Test
    void aFailureWhileGatheringCompletesTheRequestAndFailsTheQueuePairInsteadOfEscapingTheDrain() throws Exception {
        // Registered memory whose slice throws when the gather takes it (memory released under its
        // registration did, before the region's memory was checked at post: it now completes
        // LOCAL_PROTECTION_ERROR, see ResizedMemoryTest). The Send completes FATAL with that cause,
        // the Send behind it is flushed, the queue pair fails and closes: nothing is left waiting.
        RuntimeException failure = new IllegalStateException("the slice of the gather fails");
        ByteBuf failing = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
        MemoryRegion failingRegion = pd.register(failingToSlice(failing, failure), RdmaPair.ALL);
        MemoryRegion local = pd.register(memory, RdmaPair.ALL);
        try (RawMpaPeer peer = connect(MPA, 4)) {
            peer.send(TerminateOnTheWireTest.write(1, 0, ""));
            qp.postSend(SendWorkRequest.send(1, failingRegion.sge(0, 16)),
                    SendWorkRequest.send(2, local.sge(0, 16)));
            WorkCompletion first = RdmaPair.next(cq);
            assertThat(first.workRequestId()).isEqualTo(1);
            assertThat(first.status()).isEqualTo(WorkCompletionStatus.FATAL);
            assertThat(first.failureCause()).isSameAs(failure);
            WorkCompletion second = RdmaPair.next(cq);
            assertThat(second.workRequestId()).isEqualTo(2);
            assertThat(second.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(peer.takeAllUntilClosed()).as("no Terminate: not the peer's error").isEmpty();
        } finally {
            failing.release();
        }
        rnic.close();
        assertThat(memory.refCnt()).isEqualTo(1);
    }

    /** {@code memory}, whose slices' {@code retainedSlice} throws {@code failure}: registration slices it. */
    private static ByteBuf failingToSlice(ByteBuf memory, RuntimeException failure) {
        return new WrappedByteBuf(memory) {
            @Override
            public ByteBuf slice() {
                return failingToSlice(memory.slice(), failure);
            }

            @Override
            public ByteBuf retainedSlice(int index, int length) {
                throw failure;
            }
        };
    }
}
