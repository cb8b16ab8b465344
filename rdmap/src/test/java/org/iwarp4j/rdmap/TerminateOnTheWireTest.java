package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The protection and protocol violations {@link ProtectionViolationTest} does not cover, each
 * checked on the wire octet for octet: the Terminate's DDP header (untagged, QN 2, MSN 1, MO 0),
 * its Layer/EType/Code control word with the HdrCt bits, the DDP Segment Length and the echoed
 * headers; and on the RNIC side the reason, the completions and the state. A hand-driven MPA peer
 * ({@link RawMpaPeer}) plays the offender.
 */
class TerminateOnTheWireTest {

    private static final MpaSettings MPA = MpaSettings.builder().build(); // rev 2, CRC on, markers off
    /** DDP header of every Terminate this stack sends: untagged, L=1, RDMAP opcode 0x7, QN 2, MSN 1, MO 0. */
    private static final String TERMINATE_DDP_HEADER = "4147 00000000 00000002 00000001 00000000";

    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(64);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
    private final List<ByteBuf> extraMemory = new ArrayList<>();
    private QueuePair qp;

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.release();
        extraMemory.forEach(ByteBuf::release);
    }

    private RawMpaPeer peerConnectedTo(Consumer<QueuePair> prepare) throws Exception {
        return peerConnectedTo(MPA, prepare);
    }

    /** Our queue pair listening with {@code mpa}; {@code prepare} runs before the peer connects. */
    private RawMpaPeer peerConnectedTo(MpaSettings mpa, Consumer<QueuePair> prepare) throws Exception {
        qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(mpa).build());
        prepare.accept(qp);
        return RawMpaPeer.connectedTo(rnic, qp, mpa, MPA);
    }

    // ------------------------------------------------------------------ segments a peer sends


    /** An RDMA Write segment (tagged, L=1, opcode 0x0). */
    static byte[] write(int stag, long to, String payloadHex) {
        return Hex.decode(String.format("c140 %08x %016x", stag, to) + payloadHex);
    }

    /** An RDMA Read Request (untagged, L=1, QN 1, opcode 0x1). */
    static byte[] readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return Hex.decode(String.format("4141 00000000 00000001 %08x 00000000 %08x %016x %08x %08x %016x", msn,
                sinkStag, sinkTo, size, sourceStag, sourceTo));
    }

    /** A Send-type segment on QN 0 with RDMAP control {@code control} and RsvdULP word {@code stag}. */
    private static byte[] send(int control, int stag, int msn, String payloadHex) {
        return Hex.decode(String.format("41%02x %08x 00000000 %08x 00000000", control, stag, msn) + payloadHex);
    }

    // ------------------------------------------------------------------ expectations

    /** The Terminate ULPDU: our DDP header, {@code control}, and if {@code echoed > 0} the length and echo. */
    static String terminate(String control, byte[] offending, int echoed) {
        String hex = TERMINATE_DDP_HEADER + control;
        if (echoed > 0) {
            hex += String.format("%04x", offending.length) + Hex.encode(Arrays.copyOf(offending, echoed));
        }
        return Hex.encode(Hex.decode(hex));
    }

    /** The RNIC sent exactly {@code expected}, then nothing more, closed, and failed its queue pair with {@code reason}. */
    private void assertTerminated(RawMpaPeer peer, String expected, TerminateReason reason) throws Exception {
        assertThat(Hex.encode(peer.take())).isEqualTo(expected);
        assertThat(peer.takeAllUntilClosed()).as("RDMAP-R-027, RDMAP-R-045, RDMAP-R-046: nothing after the Terminate").isEmpty();
        qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(qp.terminateReason()).isEqualTo(reason);
    }

    private MemoryRegion register(ByteBuf slice, Access... access) {
        return pd.register(slice, access.length == 0 ? RdmaPair.ALL : EnumSet.of(access[0], access));
    }

    // ------------------------------------------------------------------ tagged buffer checks (Write)

    @Test
    void writeToAnStagOfAnotherProtectionDomainIsNotAssociated() throws Exception {
        // RDMAP-R-038, DDP-R-051: 11 02 c0 00, length 17, the 14-octet tagged header; nothing placed.
        ProtectionDomain other = rnic.allocateProtectionDomain();
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> region[0] = other.register(memory.slice(0, 1024), RdmaPair.ALL))) {
            byte[] w = write(region[0].stag(), region[0].baseTaggedOffset(), "616263");
            peer.send(w);
            assertTerminated(peer, terminate("1102c000", w, 14), TerminateReason.DDP_TAGGED_STAG_NOT_ASSOCIATED);
            assertThat(ByteBufUtil.getBytes(memory)).containsOnly(0);
            assertThat(region[0].isValid()).as("a refused access does not harm the region").isTrue();
        }
    }

    @Test
    void writeBelowTheRegionBaseIsBaseOrBounds() throws Exception {
        // DDP-R-048 check 3, RDMAP-R-009: TO one below the base -> 11 01 c0 00 + echo; the octet below is untouched.
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> region[0] = register(memory.slice(1024, 1024)))) {
            byte[] w = write(region[0].stag(), region[0].baseTaggedOffset() - 1, "616263");
            peer.send(w);
            assertTerminated(peer, terminate("1101c000", w, 14), TerminateReason.DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION);
            assertThat(ByteBufUtil.getBytes(memory)).containsOnly(0);
        }
    }

    @Test
    void writeWhoseToPlusLengthWrapsIsToWrap() throws Exception {
        // DDP-R-048 check 5, RDMAP-R-009: TO 2^64 - 2 with 3 octets wraps -> 11 03 c0 00 (DDP TO wrap).
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> region[0] = register(memory.slice(0, 1024)))) {
            byte[] w = write(region[0].stag(), 0xFFFF_FFFF_FFFF_FFFEL, "616263");
            peer.send(w);
            assertTerminated(peer, terminate("1103c000", w, 14), TerminateReason.DDP_TAGGED_TO_WRAP);
            assertThat(ByteBufUtil.getBytes(memory)).containsOnly(0);
        }
    }

    @Test
    void writeToAnStagInvalidatedByLocalInvalidateIsInvalidStag() throws Exception {
        // DDP-R-053, DDP-R-054, RDMAP-R-038: after a local invalidate the STag fails as 11 00 c0 00.
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> region[0] = register(memory.slice(0, 1024)))) {
            qp.postSend(SendWorkRequest.localInvalidate(4, region[0].stag()));
            WorkCompletion invalidated = RdmaPair.next(cq);
            assertThat(invalidated.workRequestId()).isEqualTo(4);
            assertThat(invalidated.opcode()).isEqualTo(WorkCompletionOpcode.LOCAL_INVALIDATE);
            assertThat(invalidated.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(region[0].isValid()).isFalse();

            byte[] w = write(region[0].stag(), region[0].baseTaggedOffset(), "616263");
            peer.send(w);
            assertTerminated(peer, terminate("1100c000", w, 14), TerminateReason.DDP_TAGGED_INVALID_STAG);
            assertThat(ByteBufUtil.getBytes(memory)).containsOnly(0);
        }
    }

    @Test
    void sendWithInvalidateOfOurStagInvalidatesItAndALaterWriteFails() throws Exception {
        // RDMAP-R-023: the receive completion names the invalidated STag; the Write after it -> 11 00 c0 00.
        MemoryRegion[] region = new MemoryRegion[2];
        try (RawMpaPeer peer = peerConnectedTo(q -> {
            region[0] = q.register(memory.slice(0, 1024), RdmaPair.ALL); // bound to this queue pair
            region[1] = register(memory.slice(2048, 1024));
            q.postReceive(new ReceiveWorkRequest(21, region[1].sge(0, 16)));
        })) {
            int stag = region[0].stag();
            peer.send(send(0x44, stag, 1, "01020304"));
            WorkCompletion received = RdmaPair.next(cq);
            assertThat(received.workRequestId()).isEqualTo(21);
            assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(received.byteLength()).isEqualTo(4);
            assertThat(received.invalidatedStag()).hasValue(stag);
            assertThat(region[0].isValid()).isFalse();
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);

            byte[] w = write(stag, region[0].baseTaggedOffset(), "616263");
            peer.send(w);
            assertTerminated(peer, terminate("1100c000", w, 14), TerminateReason.DDP_TAGGED_INVALID_STAG);
            assertThat(ByteBufUtil.getBytes(memory, 0, 1024)).containsOnly(0);
        }
    }

    @Test
    void sendWithInvalidateOfAnUnknownStagCannotInvalidate() throws Exception {
        // RDMAP-R-024, TerminateCause.INVALIDATE_STAG_INVALID: 02 09 c0 00 + length 22 + 18-octet DDP header.
        // Every posted receive completes exactly once, the one the Send filled first (RFC 5040 §6.2.1).
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> {
            region[0] = register(memory.slice(0, 1024));
            q.postReceive(new ReceiveWorkRequest(31, region[0].sge(0, 16)),
                    new ReceiveWorkRequest(32, region[0].sge(16, 16)));
        })) {
            byte[] s = send(0x44, 0xDEAD_BE00, 1, "01020304");
            peer.send(s);
            assertTerminated(peer, terminate("0209c000", s, 18), TerminateReason.RDMAP_OPERATION_CANNOT_INVALIDATE);
            assertReceivesFlushed(TerminateReason.RDMAP_OPERATION_CANNOT_INVALIDATE, 31, 32);
        }
    }

    @Test
    void sendWithInvalidateOfAnotherDomainsStagIsProtectionErrorAndTheStagStaysValid() throws Exception {
        // RDMAP-R-024, RDMAP-R-038: 01 09 c0 00 with M, D and the DDP header only (not a Read Request).
        ProtectionDomain other = rnic.allocateProtectionDomain();
        MemoryRegion[] region = new MemoryRegion[2];
        try (RawMpaPeer peer = peerConnectedTo(q -> {
            region[0] = register(memory.slice(0, 1024));
            region[1] = other.register(memory.slice(2048, 1024), RdmaPair.ALL);
            q.postReceive(new ReceiveWorkRequest(41, region[0].sge(0, 16)));
        })) {
            byte[] s = send(0x44, region[1].stag(), 1, "");
            peer.send(s);
            assertTerminated(peer, terminate("0109c000", s, 18),
                    TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE);
            assertThat(region[1].isValid()).isTrue();
            assertReceivesFlushed(TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE, 41);
        }
    }

    @Test
    void sendWithInvalidateOfARegionSharedByTheDomainCannotInvalidateIt() throws Exception {
        // RDMAP-R-047, RDMAP-R-024: a PD-wide region with remote access is shared on every stream of
        // its domain, so a peer may not invalidate it: 01 09 c0 00, and the region stays valid.
        MemoryRegion[] region = new MemoryRegion[2];
        try (RawMpaPeer peer = peerConnectedTo(q -> {
            region[0] = register(memory.slice(0, 1024)); // ProtectionDomain.register: every QP of pd
            region[1] = register(memory.slice(2048, 1024), Access.LOCAL_WRITE);
            q.postReceive(new ReceiveWorkRequest(51, region[1].sge(0, 16)));
        })) {
            byte[] s = send(0x44, region[0].stag(), 1, "");
            peer.send(s);
            assertTerminated(peer, terminate("0109c000", s, 18),
                    TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE);
            assertThat(region[0].isValid()).isTrue();
            assertReceivesFlushed(TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE, 51);
        }
    }

    @Test
    void aRegionBoundToOneQueuePairIsOutOfReachOfAnotherConnectionInTheSameDomain() throws Exception {
        // RDMAP-R-047 (RFC 5040 §8.1.1 item 7), DDP-R-051: two connections share pd; the region is
        // bound to the first. The second connection's peer can neither invalidate it (01 09) nor
        // write into it (11 02), and the first connection's peer still writes into it afterwards.
        QueuePair first = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA).build());
        MemoryRegion bound = first.register(memory.slice(0, 1024), RdmaPair.ALL);
        MemoryRegion receiveBuffer = register(memory.slice(2048, 1024), Access.LOCAL_WRITE);
        first.postReceive(new ReceiveWorkRequest(71, receiveBuffer.sge(512, 16)));
        try (RawMpaPeer firstPeer = RawMpaPeer.connectedTo(rnic, first, MPA, MPA)) {
            try (RawMpaPeer secondPeer = peerConnectedTo(q ->
                    q.postReceive(new ReceiveWorkRequest(61, receiveBuffer.sge(0, 16))))) {
                byte[] s = send(0x44, bound.stag(), 1, "");
                secondPeer.send(s);
                assertTerminated(secondPeer, terminate("0109c000", s, 18),
                        TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE);
                assertReceivesFlushed(TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE, 61);
            }
            assertThat(bound.isValid()).isTrue();
            assertThat(bound.queuePair()).containsSame(first);

            try (RawMpaPeer thirdPeer = peerConnectedTo(q -> { })) {
                byte[] w = write(bound.stag(), bound.baseTaggedOffset(), "616263");
                thirdPeer.send(w);
                assertTerminated(thirdPeer, terminate("1102c000", w, 14),
                        TerminateReason.DDP_TAGGED_STAG_NOT_ASSOCIATED);
            }
            assertThat(ByteBufUtil.getBytes(memory, 0, 3)).containsOnly(0);

            // The connection the region belongs to is unaffected: its peer's Write lands, as the
            // Send behind it on the same stream proves by completing after it (RFC 5040 §5.5).
            firstPeer.send(write(bound.stag(), bound.baseTaggedOffset(), "616263"));
            firstPeer.send(send(0x43, 0, 1, "01"));
            WorkCompletion received = RdmaPair.next(cq);
            assertThat(received.workRequestId()).isEqualTo(71);
            assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(memory.toString(0, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("abc");
            assertThat(first.state()).isEqualTo(QueuePairState.RTS);
        }
    }

    private void assertReceivesFlushed(TerminateReason reason, long... ids) throws InterruptedException {
        for (long id : ids) {
            WorkCompletion c = RdmaPair.next(cq);
            assertThat(c.workRequestId()).isEqualTo(id);
            assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(c.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            assertThat(c.terminateReason()).isEqualTo(reason);
        }
        assertThat(cq.poll()).as("one completion per receive").isNull();
    }

    // ------------------------------------------------------------------ Read Requests

    @Test
    void readRequestForAnotherDomainsStagIsNotAssociated() throws Exception {
        // RDMAP-R-014, RDMAP-R-038: 01 03 e0 00 + length 0x002e + DDP header + Read Request header.
        ProtectionDomain other = rnic.allocateProtectionDomain();
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> region[0] = other.register(memory.slice(0, 1024), RdmaPair.ALL))) {
            byte[] r = readRequest(1, 0x01020304, 0x10000, 16, region[0].stag(), region[0].baseTaggedOffset());
            peer.send(r);
            assertTerminated(peer, terminate("0103e000", r, 46), TerminateReason.RDMAP_STAG_NOT_ASSOCIATED);
        }
    }

    @Test
    void readRequestForARegionWithoutRemoteReadIsAccessRightsViolation() throws Exception {
        // RDMAP-R-014: 01 02 e0 00 + both headers.
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> region[0] = register(memory.slice(0, 1024), Access.LOCAL_WRITE,
                Access.REMOTE_WRITE))) {
            byte[] r = readRequest(1, 0x01020304, 0x10000, 16, region[0].stag(), region[0].baseTaggedOffset());
            peer.send(r);
            assertTerminated(peer, terminate("0102e000", r, 46), TerminateReason.RDMAP_ACCESS_RIGHTS_VIOLATION);
        }
    }

    @Test
    void readRequestsBeyondIrdDrawExactlyOneNoBufferTerminate() throws Exception {
        // RDMAP-R-013, RDMAP-R-048, MPA2-R-007, RDMAP-R-025: IRD 2. The peer stops reading, asks for 8 MiB (the
        // response backs up in TCP, so its QN-1 slot stays taken), a zero-length Read, then a third
        // Read without waiting. The third finds no QN-1 buffer: 12 02 c0 00 + length 46 + its DDP
        // header: DDP's answer to an untagged message without a buffer, the code RDMAP-R-013's row names
        // (siw sends 0x0/0x2/0x07 here; RFC 5040 names none). Exactly one Terminate, after both responses.
        int size = 8 << 20;
        ByteBuf big = ByteBufAllocator.DEFAULT.directBuffer(size).writeZero(size);
        extraMemory.add(big);
        MemoryRegion[] region = new MemoryRegion[2];
        try (RawMpaPeer peer = peerConnectedTo(MPA.toBuilder().ird(2).build(), q -> {
            region[0] = pd.register(big, EnumSet.of(Access.REMOTE_READ));
            region[1] = register(memory.slice(0, 64));
            q.postReceive(new ReceiveWorkRequest(71, region[1].sge()));
        })) {
            assertThat(qp.negotiated().ird()).isEqualTo(2);
            peer.limitReceiveBuffer(64 * 1024);
            peer.setAutoRead(false);
            peer.send(readRequest(1, 0x0A0B0C0D, 0x10000, size, region[0].stag(), region[0].baseTaggedOffset()));
            peer.send(readRequest(2, 0x0A0B0C0E, 0x20000, 0, 0, 0));
            byte[] third = readRequest(3, 0x0A0B0C0F, 0x30000, 0, 0, 0);
            peer.send(third);
            // The RNIC found the error while the first response was still stuck: its receive is flushed.
            WorkCompletion flushed = RdmaPair.next(cq);
            assertThat(flushed.workRequestId()).isEqualTo(71);
            assertThat(flushed.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            assertThat(flushed.terminateReason()).isEqualTo(TerminateReason.DDP_UNTAGGED_NO_BUFFER);
            peer.setAutoRead(true);
            List<byte[]> all = peer.takeAllUntilClosed();

            List<byte[]> terminates = new ArrayList<>();
            long responseOctets = 0;
            int zeroLengthResponses = 0;
            for (byte[] ulpdu : all) {
                if (ulpdu[0] == 0x41 && ulpdu[1] == 0x47) {
                    terminates.add(ulpdu);
                } else {
                    assertThat(terminates).as("RDMAP-R-027: nothing after the Terminate").isEmpty();
                    assertThat(ulpdu[1] & 0x0F).as("Read Response").isEqualTo(0x2);
                    responseOctets += ulpdu.length - 14;
                    if (ulpdu.length == 14) {
                        zeroLengthResponses++;
                    }
                }
            }
            assertThat(terminates).hasSize(1);
            assertThat(Hex.encode(terminates.get(0))).isEqualTo(terminate("1202c000", third, 18));
            assertThat(responseOctets).isEqualTo(size);
            assertThat(zeroLengthResponses).isEqualTo(1);
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(qp.terminateReason()).isEqualTo(TerminateReason.DDP_UNTAGGED_NO_BUFFER);
        }
    }

    @Test
    void zeroLengthReadRequestsAreAnsweredWithoutAnyStagCheck() throws Exception {
        // RDMAP-R-015, DDP-R-031: V-RTR-2 -> exactly V-RTR-3; with bogus STags/TOs -> a zero-length
        // response to the sink STag/TO as given; no Terminate, the stream stays usable.
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> {
            region[0] = register(memory.slice(0, 1024));
            q.postReceive(new ReceiveWorkRequest(51, region[0].sge(0, 1024)));
        })) {
            peer.send(RawMpaPeer.ulpduOf("V-RTR-2"));
            assertThat(Hex.encode(peer.take())).isEqualTo(Hex.encode(RawMpaPeer.ulpduOf("V-RTR-3")));
            peer.send(readRequest(2, 0xDEADBEEF, 0x0123_4567_89AB_CDEFL, 0, 0xCAFEBABE, 0xFFFF_FFFF_FFFF_FFFFL));
            assertThat(Hex.encode(peer.take())).isEqualTo("c142deadbeef0123456789abcdef");
            peer.send(RawMpaPeer.ulpduOf("V-FPDU-1"));
            WorkCompletion received = RdmaPair.next(cq);
            assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(received.byteLength()).isEqualTo(68);
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
            assertThat(qp.terminateReason()).isNull();
            assertThat(peer.poll(100)).as("no Terminate").isNull();
        }
    }

    // ------------------------------------------------------------------ RDMAP / DDP header checks

    @Test
    void unsolicitedReadResponseIsUnexpectedOpcode() throws Exception {
        // RDMAP-R-018, TerminateCause.UNSOLICITED_READ_RESPONSE: 02 06 00 00, no headers (= V-FPDU-7).
        try (RawMpaPeer peer = peerConnectedTo(q -> { })) {
            peer.send(RawMpaPeer.ulpduOf("V-FPDU-4"));
            assertTerminated(peer, Hex.encode(RawMpaPeer.ulpduOf("V-FPDU-7")), TerminateReason.RDMAP_UNEXPECTED_OPCODE);
        }
    }

    @Test
    void ddpVersion2IsInvalidDdpVersionWithoutEcho() throws Exception {
        // DDP-R-017, fpdus.txt: V-FPDU-1 with DV = 2 -> 12 06 00 00, no headers.
        try (RawMpaPeer peer = peerConnectedTo(q -> { })) {
            byte[] s = RawMpaPeer.ulpduOf("V-FPDU-1");
            s[0] = 0x42;
            peer.send(s);
            assertTerminated(peer, terminate("12060000", s, 0), TerminateReason.DDP_UNTAGGED_INVALID_VERSION);
        }
    }

    @Test
    void rdmapVersion2IsInvalidRdmapVersionWithoutEcho() throws Exception {
        // RDMAP-R-003, fpdus.txt: V-FPDU-1 with RV = 2 (octet 0x83) -> 02 05 00 00.
        try (RawMpaPeer peer = peerConnectedTo(q -> { })) {
            byte[] s = RawMpaPeer.ulpduOf("V-FPDU-1");
            s[1] = (byte) 0x83;
            peer.send(s);
            assertTerminated(peer, terminate("02050000", s, 0), TerminateReason.RDMAP_INVALID_VERSION);
        }
    }

    // ------------------------------------------------------------------ a Terminate received

    @Test
    void siwsCrcErrorTerminateWithLayerAndTypeSwappedIsNamedAsSuch() throws Exception {
        // Linux 6.1 siw on x86 writes LLP / MPA / CRC error with the Layer and EType nibbles swapped
        // (iwarp.h bit fields): 02 02 00 00, an RDMAP Remote Operation code Fig. 9 does not define. The
        // reason is kept as sent and its description says what siw meant.
        try (RawMpaPeer peer = peerConnectedTo(q -> { })) {
            peer.send(RawMpaPeer.ulpduOf("V-RTR-1"));
            byte[] terminate = {0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0x02, 0x02, 0x00, 0x00};
            peer.send(terminate);
            assertThat(peer.takeAllUntilClosed()).as("RDMAP-R-028: no Terminate in answer").isEmpty();
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            TerminateReason reason = qp.terminateReason();
            assertThat(reason).isEqualTo(TerminateReason.of(0x0, 0x2, 0x02));
            assertThat(reason.siwSwappedReading()).isSameAs(TerminateReason.LLP_CRC_ERROR);
            assertThat(reason.toString()).endsWith("(not defined by RFC 5040/5041/5044/6581; looks like siw's swapped"
                    + " layer/type: LLP CRC error)");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"V-FPDU-6, REMOTE_ACCESS_ERROR, 1, 1, 0", "V-FPDU-7, REMOTE_OPERATION_ERROR, 0, 2, 6"})
    void aTerminateFromThePeerFailsTheOutstandingReadFlushesReceivesAndCloses(String vector,
            WorkCompletionStatus readStatus, int layer, int etype, int code) throws Exception {
        // RDMAP-R-028, RDMAP-R-035: the outstanding Read completes in error with the decoded reason,
        // posted receives are flushed, the queue pair is in ERROR and the connection closed; no
        // Terminate is sent back.
        TerminateReason reason = TerminateReason.of(layer, etype, code);
        MemoryRegion[] region = new MemoryRegion[1];
        try (RawMpaPeer peer = peerConnectedTo(q -> {
            region[0] = register(memory.slice(0, 4096));
            q.postReceive(new ReceiveWorkRequest(61, region[0].sge(0, 1024)),
                    new ReceiveWorkRequest(62, region[0].sge(1024, 1024)));
        })) {
            peer.send(RawMpaPeer.ulpduOf("V-RTR-1")); // MPA: the Responder sends no FPDU before the Initiator's first
            qp.postSend(SendWorkRequest.rdmaRead(60, 0x11223344, 0x7F00_0000_1000L, region[0].sge(2048, 512)));
            byte[] request = peer.take();
            assertThat(Arrays.copyOfRange(request, 0, 2)).as("untagged, L=1, Read Request")
                    .isEqualTo(new byte[] {0x41, 0x41});
            assertThat(request).hasSize(46);

            peer.send(RawMpaPeer.ulpduOf(vector));
            Map<Long, WorkCompletion> byId = new HashMap<>();
            for (int i = 0; i < 3; i++) {
                WorkCompletion c = RdmaPair.next(cq);
                assertThat(byId.put(c.workRequestId(), c)).as("once: " + c).isNull();
            }
            WorkCompletion read = byId.get(60L);
            assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
            assertThat(read.status()).isEqualTo(readStatus);
            assertThat(read.terminateReason()).isEqualTo(reason);
            for (long id : new long[] {61, 62}) {
                assertThat(byId.get(id).status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                assertThat(byId.get(id).terminateReason()).isEqualTo(reason);
            }
            assertThat(peer.takeAllUntilClosed()).as("RDMAP-R-028: no Terminate in answer").isEmpty();
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(qp.terminateReason()).isEqualTo(reason);
            assertThat(ByteBufUtil.getBytes(memory, 2048, 512)).containsOnly(0);
        }
    }
}
