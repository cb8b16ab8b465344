package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A peer that breaks the rules gets exactly the Terminate RFC 5040 §7 names, byte for byte on the
 * wire, and then the connection closes; the local queue pair ends in ERROR with its work flushed
 * and the reason recorded; registered memory outside what was granted is never touched.
 */
class ProtectionViolationTest {

    private static final MpaSettings MPA = MpaSettings.builder().build(); // rev 2, CRC on

    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(64);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
    private QueuePair qp;

    @AfterEach
    void tearDown() throws Exception {
        rnic.close();
        memory.release();
    }

    /** Our queue pair listening; {@code prepare} posts receives / registers memory before it connects. */
    private RawMpaPeer peerConnectedTo(Consumer<QueuePair> prepare) throws Exception {
        qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).build());
        prepare.accept(qp);
        return RawMpaPeer.connectedTo(rnic, qp, MPA, MPA);
    }


    private void assertTerminatedWith(RawMpaPeer peer, byte[] expectedTerminateUlpdu) throws Exception {
        assertThat(Hex.encode(peer.take())).isEqualTo(Hex.encode(expectedTerminateUlpdu));
        peer.closed.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS); // RDMAP-R-027: closed after the Terminate
        qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(qp.terminateReason()).isNotNull();
    }

    @Test
    void writeToAnUnknownStagDrawsVfpdu6() throws Exception {
        // RDMAP-R-009, DDP tagged 0x1/0x00 with M, D, length 17 and the Write's 14-octet DDP header.
        try (RawMpaPeer peer = peerConnectedTo(q -> { })) {
            peer.send(RawMpaPeer.ulpduOf("V-FPDU-5"));
            assertTerminatedWith(peer, RawMpaPeer.ulpduOf("V-FPDU-6"));
            assertThat(qp.terminateReason().layer()).isEqualTo(TerminateReason.Layer.DDP);
        }
    }

    @Test
    void writeWithoutRemoteWriteRightIsRefusedAndMemoryUntouched() throws Exception {
        // RDMAP-R-009: a read-only STag -> 11 00 c0 00 + length + DDP header (siw's access code 0x00).
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> region[0] = pd.register(memory.slice(1024, 1024),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ)))) {
            byte[] write = writeUlpdu(region[0].stag(), region[0].baseTaggedOffset(), "xyz");
            peer.send(write);
            byte[] terminate = peer.take();
            assertThat(Hex.encode(Arrays.copyOfRange(terminate, 18, 22))).isEqualTo("1100c000");
            assertThat(Arrays.copyOfRange(terminate, 24, 38)).isEqualTo(Arrays.copyOfRange(write, 0, 14));
            assertThat(ByteBufUtil.getBytes(memory)).containsOnly(0);
        }
    }

    @Test
    void writeOutOfBoundsPastTheEndOrBelowTheBaseIsBaseOrBounds() throws Exception {
        // DDP 0x1/0x01; guard octets around the region stay zero.
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> region[0] = pd.register(memory.slice(1024, 1024), RdmaPair.ALL))) {
            peer.send(writeUlpdu(region[0].stag(), region[0].baseTaggedOffset() + 1022, "xyz"));
            byte[] terminate = peer.take();
            assertThat(Hex.encode(Arrays.copyOfRange(terminate, 18, 22))).isEqualTo("1101c000");
            assertThat(ByteBufUtil.getBytes(memory)).containsOnly(0);
        }
    }

    @Test
    void sendWithNoPostedReceiveIsNoBuffer() throws Exception {
        // RDMAP-R-021, fpdus.txt: V-FPDU-1 with no Receive posted -> 12 02 c0 00 + echo.
        try (RawMpaPeer peer = peerConnectedTo(q -> { })) {
            byte[] send = RawMpaPeer.ulpduOf("V-FPDU-1");
            peer.send(send);
            byte[] terminate = peer.take();
            assertThat(Hex.encode(Arrays.copyOfRange(terminate, 18, 22))).isEqualTo("1202c000");
            assertThat(Arrays.copyOfRange(terminate, 24, 42)).isEqualTo(Arrays.copyOfRange(send, 0, 18));
        }
    }

    @Test
    void sendLongerThanThePostedReceiveIsTooLongAndTheReceiveCompletesInError() throws Exception {
        // RDMAP-R-021: 0x1/0x2/0x05; the receive is flushed with the Terminate's reason.
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> {
            region[0] = pd.register(memory.slice(0, 1024), RdmaPair.ALL);
            q.postReceive(new ReceiveWorkRequest(55, region[0].sge(0, 10)));
        })) {
            peer.send(RawMpaPeer.ulpduOf("V-FPDU-1")); // 68 octets of Send payload into 10
            byte[] terminate = peer.take();
            assertThat(Hex.encode(Arrays.copyOfRange(terminate, 18, 22))).isEqualTo("1205c000");
            WorkCompletion flushed = RdmaPair.next(cq);
            assertThat(flushed.workRequestId()).isEqualTo(55);
            assertThat(flushed.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            assertThat(flushed.terminateReason().layer()).isEqualTo(TerminateReason.Layer.DDP);
            assertThat(ByteBufUtil.getBytes(memory, 10, 8182)).containsOnly(0);
        }
    }

    @Test
    void readRequestForAnUnknownSourceStagEchoesBothHeaders() throws Exception {
        // RDMAP-R-014, fpdus.txt: V-FPDU-3 with unknown source STag ->
        // 01 00 e0 00 + length 0x002E + 18-octet DDP header + 28-octet RDMA header (ULPDU 70).
        try (RawMpaPeer peer = peerConnectedTo(q -> { })) {
            byte[] read = RawMpaPeer.ulpduOf("V-FPDU-3");
            peer.send(read);
            byte[] terminate = peer.take();
            assertThat(terminate).hasSize(70);
            assertThat(Hex.encode(Arrays.copyOfRange(terminate, 18, 24))).isEqualTo("0100e000002e");
            assertThat(Arrays.copyOfRange(terminate, 24, 70)).isEqualTo(read);
        }
    }

    @Test
    void reservedOpcodeDrawsVfpdu7() throws Exception {
        // RDMAP-R-006: opcode 0xC -> 02 06 00 00, no headers (V-FPDU-7 shape).
        try (RawMpaPeer peer = peerConnectedTo(q -> { })) {
            byte[] send = RawMpaPeer.ulpduOf("V-FPDU-1");
            send[1] = 0x4c;
            peer.send(send);
            assertTerminatedWith(peer, RawMpaPeer.ulpduOf("V-FPDU-7"));
        }
    }

    @Test
    void zeroLengthWriteWithABogusStagSucceeds() throws Exception {
        // MPA2-R-013, RFC 5041 §5.2: a zero-length tagged segment's STag is not checked; then a
        // valid Send still works, so the connection is alive.
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> {
            region[0] = pd.register(memory.slice(0, 1024), RdmaPair.ALL);
            q.postReceive(new ReceiveWorkRequest(9, region[0].sge(0, 1024)));
        })) {
            peer.send(Hex.decode("c140 deadbeef 00000000 12345678"));
            peer.send(RawMpaPeer.ulpduOf("V-FPDU-1"));
            WorkCompletion received = RdmaPair.next(cq);
            assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(received.byteLength()).isEqualTo(68);
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        }
    }

    /** An RDMA Write segment, L=1. */
    private static byte[] writeUlpdu(int stag, long to, String payload) {
        byte[] p = payload.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteBuf b = ByteBufAllocator.DEFAULT.heapBuffer();
        try {
            b.writeByte(0xC1).writeByte(0x40).writeInt(stag).writeLong(to).writeBytes(p);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }
}
