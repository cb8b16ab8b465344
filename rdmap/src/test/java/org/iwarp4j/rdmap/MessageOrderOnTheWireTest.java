package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the RNIC does with the order of the messages on one stream, seen from a hand-driven MPA
 * peer ({@link RawMpaPeer}): inbound, a Write is placed without a completion or a receive, a Send
 * is delivered in the order sent with every earlier Write in place, and a Read Request answers
 * with what the Write before it put there; outbound, everything the RNIC sends in Full Operation
 * is an RDMAP message in an FPDU, octet for octet.
 */
@Timeout(60)
class MessageOrderOnTheWireTest {

    private static final MpaSettings MPA = MpaSettings.builder().build(); // rev 2, CRC on, markers off

    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(64);
    private final List<ByteBuf> memory = new ArrayList<>();
    private QueuePair qp;

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.forEach(ByteBuf::release);
    }

    private ByteBuf zeroed(int octets) {
        ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(octets).writeZero(octets);
        memory.add(b);
        return b;
    }

    private RawMpaPeer connect() throws Exception {
        return RawMpaPeer.connectedTo(rnic, qp, MPA, MPA);
    }

    /** A Send segment on QN 0 (RDMAP control 0x43) with the given L, MSN and MO. */
    private static byte[] send(boolean last, int msn, int mo, String payloadHex) {
        return Hex.decode(String.format("%02x43 00000000 00000000 %08x %08x", last ? 0x41 : 0x01, msn, mo) + payloadHex);
    }

    /** A completion and the first four octets of the Write target at the moment it was made. */
    private record Seen(WorkCompletion completion, byte[] target) {
    }

    @Test
    void writesTakeNoReceiveAndSendsAreDeliveredInOrderWithEarlierWritesInPlace() throws Exception {
        // RDMAP-R-030: the peer places out of order (Send 1's first half, a Write, all of Send 2, Send 1's
        // second half): Send 1 is still delivered first, then Send 2, and each finds the Write in place
        // when its completion is made. RDMAP-R-010: the Write makes no completion and takes no receive
        // (Send 1 lands in receive 1, and the next completion after Send 2 is Send 3's).
        qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA).build());
        MemoryRegion target = pd.register(zeroed(64), RdmaPair.ALL);
        MemoryRegion receives = pd.register(zeroed(64), EnumSet.of(Access.LOCAL_WRITE));
        BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
        // On the event loop, as the completion is made: what is in place at that moment.
        cq.setListener(c -> seen.add(new Seen(c, ByteBufUtil.getBytes(target.memory(), 0, 4))));
        for (int id = 1; id <= 3; id++) {
            qp.postReceive(new ReceiveWorkRequest(id, receives.sge(16L * (id - 1), 16)));
        }
        try (RawMpaPeer peer = connect()) {
            // In one TCP write: the RNIC handles them in one go, as fast as it can.
            peer.sendTogether(send(false, 1, 0, "11111111"),
                    TerminateOnTheWireTest.write(target.stag(), target.baseTaggedOffset(), "a1a2a3a4"),
                    send(true, 2, 0, "22222222"), send(true, 1, 4, "33333333"));

            Seen first = next(seen);
            assertThat(first.completion().workRequestId()).as(first.completion().toString()).isEqualTo(1);
            assertThat(first.completion().status()).as(first.completion() + " " + qp.terminateReason() + " " + qp.failureCause()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(first.completion().opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(first.completion().byteLength()).isEqualTo(8);
            assertThat(Hex.encode(first.target())).as("the Write, in place when Send 1 is delivered").isEqualTo("a1a2a3a4");
            Seen second = next(seen);
            assertThat(second.completion().workRequestId()).as(second.completion().toString()).isEqualTo(2);
            assertThat(second.completion().byteLength()).isEqualTo(4);
            assertThat(Hex.encode(second.target())).isEqualTo("a1a2a3a4");
            assertThat(Hex.encode(ByteBufUtil.getBytes(receives.memory(), 0, 8))).isEqualTo("1111111133333333");
            assertThat(Hex.encode(ByteBufUtil.getBytes(receives.memory(), 16, 4))).isEqualTo("22222222");

            // A second Write, then Send 3: the next completion is receive 3's, the Write made none.
            peer.sendTogether(TerminateOnTheWireTest.write(target.stag(), target.baseTaggedOffset(), "b1b2b3b4"),
                    send(true, 3, 0, "44"));
            Seen third = next(seen);
            assertThat(third.completion().workRequestId()).as(third.completion().toString()).isEqualTo(3);
            assertThat(third.completion().byteLength()).isEqualTo(1);
            assertThat(Hex.encode(third.target())).isEqualTo("b1b2b3b4");
            assertThat(peer.poll(0)).as("the RNIC answered nothing").isNull();
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        }
    }

    @Test
    void aReadRequestReadsWhatTheWriteBeforeItPlacedAndIsNeverDelivered() throws Exception {
        // RDMAP-R-043: a Write, then a Read Request of the same octets: the Read Response carries the
        // Write's data. A zero-length Read Request (unregistered STags) is answered with a zero-length
        // Read Response. Neither Request makes a completion or takes the posted receive: the Send
        // after them is the only completion, in receive 1.
        qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA).build());
        MemoryRegion source = pd.register(zeroed(64), RdmaPair.ALL);
        MemoryRegion receives = pd.register(zeroed(16), EnumSet.of(Access.LOCAL_WRITE));
        qp.postReceive(new ReceiveWorkRequest(1, receives.sge(0, 16)));
        try (RawMpaPeer peer = connect()) {
            long to = source.baseTaggedOffset() + 8;
            peer.sendTogether(TerminateOnTheWireTest.write(source.stag(), to, "c1c2c3c4c5"),
                    TerminateOnTheWireTest.readRequest(1, 0x00ABCD01, 0x100, 5, source.stag(), to));
            assertThat(Hex.encode(peer.take())).isEqualTo("c142" + "00abcd01" + "0000000000000100" + "c1c2c3c4c5");

            // The first response was written, so its IRD slot is free again for the second Request.
            peer.send(TerminateOnTheWireTest.readRequest(2, 0x00ABCD02, 0x200, 0, 0xDEAD0000, 0));
            assertThat(Hex.encode(peer.take())).isEqualTo("c142" + "00abcd02" + "0000000000000200");

            peer.send(send(true, 1, 0, "5555"));
            WorkCompletion c = RdmaPair.next(cq);
            assertThat(c.workRequestId()).as(c.toString()).isEqualTo(1);
            assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(c.byteLength()).isEqualTo(2);
            assertThat(cq.poll()).as("the Read Requests completed nothing").isNull();
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        }
    }

    @Test
    void everythingSentInFullOperationIsAnRdmapMessageInAnFpdu() throws Exception {
        // RDMAP-R-045: from the MPA Reply to the close, the octets the peer receives are exactly the
        // FPDUs of the ULPDUs it decoded, each a DDP segment (DV 1) of an RDMAP message (RV 1).
        // RDMAP-R-008 on the wire: a Write of 100000 octets is tagged, aimed at the STag and TO the
        // work request named, its segments contiguous with L on the last only; a zero-length Write is
        // one empty tagged segment with L.
        qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA).build());
        int size = 100_000;
        ByteBuf octets = zeroed(size);
        for (int i = 0; i < size; i++) {
            octets.setByte(i, i * 7 + 3);
        }
        MemoryRegion local = pd.register(octets, RdmaPair.ALL);
        int remoteStag = 0x12345678;
        long remoteTo = 0x0000_0100_0000_0000L;
        try (RawMpaPeer peer = connect()) {
            // The RNIC is the MPA Responder: it sends nothing before the peer's first FPDU (MPA-R-061).
            peer.send(TerminateOnTheWireTest.write(1, 0, ""));
            qp.postSend(SendWorkRequest.rdmaWrite(1, remoteStag, remoteTo, local.sge(0, size)));
            qp.postSend(SendWorkRequest.rdmaWrite(2, remoteStag, remoteTo + size, local.sge(0, 0)));
            qp.postSend(SendWorkRequest.send(3, local.sge(0, 5)));
            for (long id = 1; id <= 3; id++) {
                WorkCompletion c = RdmaPair.next(cq);
                assertThat(c.workRequestId()).as(c.toString()).isEqualTo(id);
                assertThat(c.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            }
            qp.close().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            List<byte[]> ulpdus = peer.takeAllUntilClosed();

            long fpduOctets = 0;
            for (byte[] u : ulpdus) {
                assertThat(u[0] & 0x03).as("DDP version").isEqualTo(1);
                assertThat((u[1] & 0xFF) >>> 6).as("RDMAP version").isEqualTo(1);
                int unpadded = 2 + u.length;
                fpduOctets += unpadded + (4 - unpadded % 4) % 4 + 4; // length field, ULPDU, pad, CRC
            }
            assertThat(peer.octetsAfterStartupFrame()).as("octets on the wire after the MPA Reply").isEqualTo(fpduOctets);

            // The Write's segments, then the zero-length Write, then the Send; nothing else.
            int i = 0;
            long next = remoteTo;
            ByteBuf written = ByteBufAllocator.DEFAULT.heapBuffer(size);
            try {
                while (next < remoteTo + size) {
                    byte[] u = ulpdus.get(i++);
                    ByteBuf h = io.netty.buffer.Unpooled.wrappedBuffer(u);
                    assertThat(h.getUnsignedByte(0) & 0x80).as("tagged").isEqualTo(0x80);
                    assertThat(h.getUnsignedByte(1) & 0x0F).as("opcode RDMA Write").isZero();
                    assertThat(h.getInt(2)).isEqualTo(remoteStag);
                    assertThat(h.getLong(6)).as("TO of segment %d", i).isEqualTo(next);
                    next += u.length - 14;
                    assertThat((h.getUnsignedByte(0) & 0x40) != 0).as("L of segment %d", i).isEqualTo(next == remoteTo + size);
                    written.writeBytes(u, 14, u.length - 14);
                }
                assertThat(i).as("segments of the 100000-octet Write").isGreaterThan(1);
                assertThat(ByteBufUtil.getBytes(written)).isEqualTo(ByteBufUtil.getBytes(octets));
            } finally {
                written.release();
            }
            assertThat(Hex.encode(ulpdus.get(i++))).isEqualTo(String.format("c140 %08x %016x", remoteStag, remoteTo + size)
                    .replace(" ", ""));
            assertThat(Hex.encode(ulpdus.get(i++))).isEqualTo("4143" + "00000000" + "00000000" + "00000001" + "00000000"
                    + Hex.encode(ByteBufUtil.getBytes(octets, 0, 5)));
            assertThat(ulpdus).hasSize(i);
        }
    }

    private static Seen next(BlockingQueue<Seen> seen) throws InterruptedException {
        Seen s = seen.poll(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        if (s == null) {
            throw new AssertionError("no completion within " + RdmaPair.WAIT_SECONDS + " s");
        }
        return s;
    }
}
