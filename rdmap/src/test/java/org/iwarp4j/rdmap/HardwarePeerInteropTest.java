package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.rdmap.HardwarePeer.PEER_STAG;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.rdmap.HardwarePeer.Profile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * iwarp4j against scripted hardware connection managers ({@link HardwarePeer}, following
 * docs/interop.md): as Initiator and as Responder it completes the MPA startup and the RTR each
 * peer wants, moves data with Send, RDMA Write and RDMA Read in both directions, every octet
 * checked on the wire and in memory, and closes in order. The peers' rejections are shown too:
 * a Chelsio-like peer Terminates a tagged message with STag 0 and a Reply naming an RTR type it
 * did not offer; an Intel-like peer resets a Request without peer-to-peer flag A.
 */
class HardwarePeerInteropTest {

    /** Peer-to-peer (flag A) with the default RTR options Write and Read: what irdma requires. */
    private static final MpaSettings P2P = MpaSettings.builder().peerToPeer(true).ird(8).ord(8).build();
    private static final MpaSettings DEFAULTS = MpaSettings.builder().ird(8).ord(8).build();
    private static final int BIG = 6000;

    /**
     * NIO: it cannot read the connection's MSS, as no transport can tell a loopback link from the
     * hardware path these peers stand for, so the conservative fallback EMSS applies (1448: one
     * segment of Ethernet with TCP timestamps) and every peer checks that no FPDU is larger than
     * its hardware takes. Over epoll MULPDU follows the socket's MSS, here loopback's 64 KiB.
     */
    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).transport(Transport.NIO).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(64);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(512).writeZero(512);
    private final MemoryRegion mr = pd.register(memory, RdmaPair.ALL);
    private Listener listener;

    @AfterEach
    void tearDown() {
        if (listener != null) {
            listener.close();
        }
        mr.close();
        rnic.close();
        memory.release();
    }

    /**
     * A queue pair with the two Receives {@link #moveData} fills already posted: a Receive must be
     * posted before the peer's Send can arrive (RFC 5040 §5.3), and posting is asynchronous.
     */
    private QueuePair queuePair(MpaSettings mpa) {
        QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(mpa).build());
        qp.postReceive(new ReceiveWorkRequest(10, mr.sge(0, 16)), new ReceiveWorkRequest(11, mr.sge(32, 16)));
        return qp;
    }

    /** Our queue pair, Initiator, connected to {@code peer}, which answers as its CM does. */
    private QueuePair initiate(HardwarePeer peer, MpaSettings mpa) throws Exception {
        QueuePair qp = queuePair(mpa);
        CompletableFuture<QueuePair> connected = qp.connect(peer.address());
        assertThat(peer.acceptAsResponder(4, 4)).as(peer.rejection).isTrue();
        connected.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        return qp;
    }

    /** Our queue pair, Responder, accepting {@code profile}'s connection. */
    private HardwarePeer respond(Profile profile, QueuePair qp, MpaSettings mpa) throws Exception {
        listener = rnic.listen(new InetSocketAddress("127.0.0.1", 0), mpa, request -> request.accept(qp));
        return HardwarePeer.connectingTo(profile, listener.localAddress(), 4, 4);
    }

    @Test
    void chelsioLikeResponder() throws Exception {
        try (HardwarePeer peer = HardwarePeer.listening(Profile.CHELSIO)) {
            QueuePair qp = initiate(peer, P2P);
            // Its Reply names Read only (send_mpa_reply); we send what the Reply names (softiwarp#20).
            assertThat(qp.negotiated().rtr()).isEqualTo(RtrType.READ);
            assertThat(peer.rtr).isEqualTo("READ");
            // Relaxed at its end: its IRD rose to our ORD 8, its ORD stayed 4 (c4iw_accept_cr).
            assertThat(qp.negotiated().ord()).isEqualTo(8);
            moveData(peer, qp, 2);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void chelsioLikeInitiator() throws Exception {
        QueuePair qp = queuePair(DEFAULTS);
        try (HardwarePeer peer = respond(Profile.CHELSIO, qp, DEFAULTS)) {
            // It Terminates unless our Reply echoes A and names its Read RTR (process_mpa_reply).
            assertThat(peer.completeAsInitiator()).as(peer.rejection).isTrue();
            qp.established().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.negotiated().peerToPeer()).isTrue();
            assertThat(peer.rtr).isEqualTo("READ");
            moveData(peer, qp, 1);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void chelsioLikePeerTerminatesATaggedMessageWithStagZero() throws Exception {
        try (HardwarePeer peer = HardwarePeer.listening(Profile.CHELSIO)) {
            QueuePair qp = initiate(peer, P2P);
            // Our own zero-length messages carry STag 1 and pass (the RTR above); a Write the ULP
            // aims at STag 0 is what the peer refuses.
            qp.postSend(SendWorkRequest.rdmaWrite(30, 0, 0, mr.sge(0, 4)));
            assertThat(peer.take()).isNull();
            assertThat(peer.rejection).startsWith("cxgb4: tagged message with STag 0: c14000000000");
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.terminateReceived()).isTrue();
        }
    }

    @Test
    void chelsioLikeInitiatorTerminatesAReplyWithoutItsRtrType() throws Exception {
        MpaSettings writeOnly = DEFAULTS.toBuilder().rtrTypes(EnumSet.of(RtrType.WRITE)).build();
        QueuePair qp = queuePair(writeOnly);
        try (HardwarePeer peer = respond(Profile.CHELSIO, qp, writeOnly)) {
            // MPA2-R-008: none offered fits, so our Reply lists what we take: Write. cxgb4 wants Read.
            assertThat(peer.completeAsInitiator()).isFalse();
            assertThat(peer.rejection).startsWith("cxgb4: RTR mismatch");
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.terminateReceived()).isTrue();
        }
    }

    @Test
    void ourWriteOnlyInitiatorMeetsAReadOnlyResponder() throws Exception {
        // We offer only the Write RTR; cxgb4's Reply names Read all the same (send_mpa_reply). We
        // cannot send it: MPA2-R-010, Terminate LLP/MPA code 7 instead of an RTR, and close.
        terminatesInsteadOfTheRtr(P2P.toBuilder().rtrTypes(EnumSet.of(RtrType.WRITE)).build(), 0x07,
                TerminateReason.LLP_NO_MATCHING_RTR);
    }

    @Test
    void ourCrcOffInitiatorTerminatesAnEnhancedReplyThatAsksForCrc() throws Exception {
        // MPA2-R-021 (RFC 6581 §9.3): crc OFF refuses the Reply's C=1 (every hardware peer sets it);
        // after an enhanced Reply that local error has no code of its own, so instead of the RTR a
        // Terminate LLP/MPA code 5 goes out, CRC'd as the peer asked (take() checks it), and we close.
        terminatesInsteadOfTheRtr(P2P.toBuilder().crc(NegotiationMode.OFF).build(), 0x05,
                TerminateReason.LLP_LOCAL_CATASTROPHIC);
    }

    /**
     * Our Initiator with {@code mpa} facing a Chelsio-like Responder (Reply: C, A, Read RTR) sends,
     * instead of the RTR, a Terminate LLP/MPA {@code code} with no headers (QN 2, MSN 1), and closes.
     */
    private void terminatesInsteadOfTheRtr(MpaSettings mpa, int code, TerminateReason reason) throws Exception {
        try (HardwarePeer peer = HardwarePeer.listening(Profile.CHELSIO)) {
            QueuePair qp = queuePair(mpa);
            qp.connect(peer.address());
            assertThat(peer.acceptAsResponder(4, 4)).isFalse();
            assertThat(peer.receivedTerminate).isNotNull();
            assertThat(Arrays.copyOf(peer.receivedTerminate, 20)).isEqualTo(ByteBuffer.allocate(20)
                    .put((byte) 0x41).put((byte) 0x47).putInt(0).putInt(2).putInt(1).putInt(0).put((byte) 0x20)
                    .put((byte) code).array());
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.terminateReason()).isEqualTo(reason);
        }
    }

    @Test
    void intelLikeResponder() throws Exception {
        try (HardwarePeer peer = HardwarePeer.listening(Profile.INTEL)) {
            QueuePair qp = initiate(peer, P2P);
            // We offered Write and Read; irdma replies Read (irdma_negotiate_mpa_v2_ird_ord).
            assertThat(qp.negotiated().rtr()).isEqualTo(RtrType.READ);
            assertThat(peer.rtr).isEqualTo("READ");
            moveData(peer, qp, 2);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void intelLikeResponderResetsARequestWithoutFlagA() throws Exception {
        try (HardwarePeer peer = HardwarePeer.listening(Profile.INTEL)) {
            QueuePair qp = queuePair(DEFAULTS);
            CompletableFuture<QueuePair> connected = qp.connect(peer.address());
            assertThat(peer.acceptAsResponder(4, 4)).isFalse();
            assertThat(peer.rejection).contains("without peer-to-peer");
            // The failure names the likely cause, as the reset alone does not.
            assertThatThrownBy(() -> connected.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasStackTraceContaining("an Intel irdma Responder does that; MpaSettings.Builder.peerToPeer(true)");
        }
    }

    @Test
    void intelLikeInitiatorWithReadRtr() throws Exception {
        QueuePair qp = queuePair(DEFAULTS);
        try (HardwarePeer peer = respond(Profile.INTEL, qp, DEFAULTS)) {
            // It offers Write and Read; our Reply names both; it takes Read and sends STags 0xabcd/0x1234.
            assertThat(peer.completeAsInitiator()).as(peer.rejection).isTrue();
            qp.established().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(peer.rtr).isEqualTo("READ");
            moveData(peer, qp, 1);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void intelLikeInitiatorWithWriteRtrOfStagZero() throws Exception {
        // irdma's Write RTR has STag 0 (irdma_sc_send_rtt); we must not check it (RFC 5041 §5.2, MPA2-R-013).
        MpaSettings writeOnly = DEFAULTS.toBuilder().rtrTypes(EnumSet.of(RtrType.WRITE)).build();
        QueuePair qp = queuePair(writeOnly);
        try (HardwarePeer peer = respond(Profile.INTEL, qp, writeOnly)) {
            assertThat(peer.completeAsInitiator()).as(peer.rejection).isTrue();
            assertThat(peer.rtr).isEqualTo("WRITE");
            qp.established().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            moveData(peer, qp, 1);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void qlogicLikeResponder() throws Exception {
        try (HardwarePeer peer = HardwarePeer.listening(Profile.QLOGIC)) {
            QueuePair qp = initiate(peer, P2P);
            // qed names every RTR type both ends share (qed_iwarp_mpa_received): Write and Read. We
            // take Write, the first of our default order, so our first Read Request has MSN 1.
            assertThat(peer.replyRtrs).containsExactly("READ", "WRITE");
            assertThat(qp.negotiated().rtr()).isEqualTo(RtrType.WRITE);
            assertThat(peer.rtr).isEqualTo("WRITE");
            // qed_iwarp_accept: its ORD down to our IRD (8 > 4: stays 4), its IRD as its ULP asked (4).
            assertThat(qp.negotiated().ord()).isEqualTo(4);
            assertThat(peer.ord).isEqualTo(4);
            moveData(peer, qp, 1);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void qlogicLikeResponderWithOurPreferredReadRtr() throws Exception {
        // Its Reply names two types; preferredRtr picks among them (RFC 6581 §9.2 leaves it to us).
        try (HardwarePeer peer = HardwarePeer.listening(Profile.QLOGIC)) {
            QueuePair qp = initiate(peer, P2P.toBuilder().preferredRtr(RtrType.READ).build());
            assertThat(qp.negotiated().rtr()).isEqualTo(RtrType.READ);
            assertThat(peer.rtr).isEqualTo("READ");
            moveData(peer, qp, 2);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void qlogicLikeResponderWithoutPeerToPeer() throws Exception {
        // Our default Request has A=0: qed answers without A (no rtr_type), client-server.
        try (HardwarePeer peer = HardwarePeer.listening(Profile.QLOGIC)) {
            QueuePair qp = initiate(peer, DEFAULTS);
            assertThat(qp.negotiated().peerToPeer()).isFalse();
            assertThat(peer.replyRtrs).isEmpty();
            assertThat(peer.rtr).isNull();
            usToPeer(peer, qp, 1);
            peerToUs(peer, qp);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void qlogicLikeInitiator() throws Exception {
        QueuePair qp = queuePair(DEFAULTS);
        try (HardwarePeer peer = respond(Profile.QLOGIC, qp, DEFAULTS)) {
            // It offers Send, Write and Read; our Reply names what we take of them: Write and Read
            // (MPA2-R-008). Its firmware's Write RTR comes with STag 0 in the emulation, unchecked.
            assertThat(peer.completeAsInitiator()).as(peer.rejection).isTrue();
            qp.established().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.negotiated().peerToPeer()).isTrue();
            assertThat(peer.rtr).isEqualTo("WRITE");
            // qed_iwarp_parse_private_data: it adopts our Reply's values crosswise.
            assertThat(peer.ird).isEqualTo(qp.negotiated().ord());
            assertThat(peer.ord).isEqualTo(qp.negotiated().ird());
            moveData(peer, qp, 1);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void qlogicLikeInitiatorWithReadRtr() throws Exception {
        MpaSettings readOnly = DEFAULTS.toBuilder().rtrTypes(EnumSet.of(RtrType.READ)).build();
        QueuePair qp = queuePair(readOnly);
        try (HardwarePeer peer = respond(Profile.QLOGIC, qp, readOnly)) {
            assertThat(peer.completeAsInitiator()).as(peer.rejection).isTrue();
            assertThat(peer.rtr).isEqualTo("READ");
            qp.established().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            moveData(peer, qp, 1);
            closeInOrder(peer, qp);
        }
    }

    /**
     * RFC 5044 §4.5: FPDUs sized to the EMSS. With the MSS unknown (NIO), a 6000-octet Send, Write
     * and Read Response are cut to FPDUs of exactly the fallback EMSS, which every hardware peer
     * takes; the peers check each FPDU against their own limit ({@link Profile#maxFpdu}).
     */
    @ParameterizedTest
    @EnumSource(value = Profile.class, names = {"CHELSIO", "INTEL", "QLOGIC"})
    void noFpduIsLargerThanTheHardwarePeerTakes(Profile profile) throws Exception {
        ByteBuf big = ByteBufAllocator.DEFAULT.directBuffer(BIG).writeZero(BIG);
        try (HardwarePeer peer = HardwarePeer.listening(profile); MemoryRegion bigMr = pd.register(big, RdmaPair.ALL)) {
            QueuePair qp = initiate(peer, P2P);
            assertThat(qp.negotiated().sendMulpdu()).isEqualTo(MpaSettings.FALLBACK_EMSS - 6);
            byte[] data = new byte[BIG];
            new java.util.Random(18).nextBytes(data);
            big.setBytes(0, data);
            qp.postSend(SendWorkRequest.send(40, bigMr.sge(0, BIG)));
            assertThat(takeMessage(peer, false, 0, BIG)).isEqualTo(data);
            qp.postSend(SendWorkRequest.rdmaWrite(41, PEER_STAG, 0x8000, bigMr.sge(0, BIG)));
            assertThat(takeMessage(peer, true, 0x8000, BIG)).isEqualTo(data);
            peer.send(peer.readRequest(PEER_STAG, 0x10000, BIG, bigMr.stag(), bigMr.baseTaggedOffset()));
            assertThat(takeMessage(peer, true, 0x10000, BIG)).isEqualTo(data);
            assertThat(peer.largestFpdu).isEqualTo(MpaSettings.FALLBACK_EMSS);
            assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(40);
            assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(41);
            closeInOrder(peer, qp);
        } finally {
            big.release();
        }
    }

    @Test
    void theSoftwareToSoftwareMulpduIsWhatHardwareRefuses() throws Exception {
        // maxSendUlpdu is the explicit opt-in for FPDUs above the MSS; a hardware peer's check catches it.
        ByteBuf big = ByteBufAllocator.DEFAULT.directBuffer(BIG).writeZero(BIG);
        try (HardwarePeer peer = HardwarePeer.listening(Profile.CHELSIO);
                MemoryRegion bigMr = pd.register(big, RdmaPair.ALL)) {
            QueuePair qp = initiate(peer, P2P.toBuilder().maxSendUlpdu(4096).build());
            assertThat(qp.negotiated().sendMulpdu()).isEqualTo(4096);
            qp.postSend(SendWorkRequest.send(40, bigMr.sge(0, BIG)));
            assertThatThrownBy(peer::take).isInstanceOf(AssertionError.class)
                    .hasMessage("FPDU of 4104 octets is above the 1448 that CHELSIO takes");
        } finally {
            big.release();
        }
    }

    /**
     * One message of {@code length} octets from us, as the DDP segments the peer takes one by one:
     * tagged ones at consecutive TOs from {@code to}, untagged ones at consecutive MOs; only the
     * last has L set (RFC 5041 §5).
     */
    private static byte[] takeMessage(HardwarePeer peer, boolean tagged, long to, int length) throws Exception {
        java.io.ByteArrayOutputStream message = new java.io.ByteArrayOutputStream();
        boolean last = false;
        while (!last) {
            byte[] segment = peer.take();
            assertThat(segment).isNotNull();
            ByteBuffer b = ByteBuffer.wrap(segment);
            assertThat((segment[0] & 0x80) != 0).isEqualTo(tagged);
            int header = tagged ? 14 : 18;
            if (tagged) {
                assertThat(b.getInt(2)).isEqualTo(PEER_STAG);
                assertThat(b.getLong(6)).isEqualTo(to + message.size());
            } else {
                assertThat(b.getInt(14)).isEqualTo(message.size()); // MO
            }
            message.write(segment, header, segment.length - header);
            last = (segment[0] & 0x40) != 0;
        }
        assertThat(message.size()).isEqualTo(length);
        return message.toByteArray();
    }

    @Test
    void chelsioLikeResponderWithoutPeerToPeer() throws Exception {
        try (HardwarePeer peer = HardwarePeer.listening(Profile.CHELSIO_NO_P2P)) {
            QueuePair qp = initiate(peer, DEFAULTS);
            assertThat(qp.negotiated().peerToPeer()).isFalse();
            assertThat(peer.rtr).isNull();
            // Client-server model: the Initiator's first FPDU opens the Responder (RFC 5044 §7.1.2).
            usToPeer(peer, qp, 1);
            peerToUs(peer, qp);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void chelsioLikeInitiatorWithoutPeerToPeer() throws Exception {
        QueuePair qp = queuePair(DEFAULTS);
        try (HardwarePeer peer = respond(Profile.CHELSIO_NO_P2P, qp, DEFAULTS)) {
            assertThat(peer.completeAsInitiator()).as(peer.rejection).isTrue();
            qp.established().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.negotiated().peerToPeer()).isFalse();
            peerToUs(peer, qp);
            usToPeer(peer, qp, 1);
            closeInOrder(peer, qp);
        }
    }

    @Test
    void ourPeerToPeerRequestToAResponderWithoutIt() throws Exception {
        // MPA2-R-010: we asked for peer-to-peer, the Reply has A=0 (cxgb4 with peer2peer=0):
        // we Terminate with LLP/MPA code 7 (RFC 6581 §8) and close. Users reaching such a peer
        // leave peerToPeer off (docs/interop.md).
        try (HardwarePeer peer = HardwarePeer.listening(Profile.CHELSIO_NO_P2P)) {
            QueuePair qp = queuePair(P2P);
            qp.connect(peer.address());
            assertThat(peer.acceptAsResponder(4, 4)).isTrue();
            byte[] terminate = peer.take();
            assertThat(terminate).isNotNull();
            assertThat(Arrays.copyOf(terminate, 20)).isEqualTo(ByteBuffer.allocate(20).put((byte) 0x41)
                    .put((byte) 0x47).putInt(0).putInt(2).putInt(1).putInt(0).put((byte) 0x20).put((byte) 0x07)
                    .array());
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.terminateReason()).isEqualTo(TerminateReason.LLP_NO_MATCHING_RTR);
        }
    }

    /**
     * Send, Write and Read from the peer to us, then from us to the peer, each checked on the wire
     * and in memory. {@code ourReadMsn}: the MSN of our first RDMA Read (2 after our Read RTR).
     */
    private void moveData(HardwarePeer peer, QueuePair qp, int ourReadMsn) throws Exception {
        peerToUs(peer, qp);
        usToPeer(peer, qp, ourReadMsn);
    }

    /** Send, Write and Read from the peer to us: the Receives 10 and 11 fill, our memory is read. */
    private void peerToUs(HardwarePeer peer, QueuePair qp) throws Exception {
        long base = mr.baseTaggedOffset();
        // Peer -> us: a Send into the first posted Receive.
        byte[] hello = ascii("hello from peer!");
        peer.send(peer.sendMessage(hello));
        WorkCompletion received = RdmaPair.next(cq);
        assertThat(received.workRequestId()).isEqualTo(10);
        assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(16);
        assertThat(ByteBufUtil.getBytes(memory, 0, 16)).isEqualTo(hello);

        // Peer -> us: an RDMA Write, then a Send behind it (RFC 5040 §5.5: placed before it completes).
        byte[] written = ascii("written by peer");
        peer.send(HardwarePeer.tagged(0, mr.stag(), base + 64, written));
        peer.send(peer.sendMessage(ascii("fence")));
        assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(11);
        assertThat(ByteBufUtil.getBytes(memory, 64, written.length)).isEqualTo(written);

        // Peer reads from us: our Read Response carries its sink STag and TO.
        byte[] pattern = ascii("0123456789abcdef");
        memory.setBytes(128, pattern);
        peer.send(peer.readRequest(PEER_STAG, 0x1000, 16, mr.stag(), base + 128));
        assertThat(peer.take()).isEqualTo(HardwarePeer.tagged(2, PEER_STAG, 0x1000, pattern));
        assertThat(cq.poll()).isNull();
    }

    /** Send, Write and Read from us to the peer; {@code ourReadMsn}: the MSN of our Read Request. */
    private void usToPeer(HardwarePeer peer, QueuePair qp, int ourReadMsn) throws Exception {
        long base = mr.baseTaggedOffset();
        // Us -> peer: a Send (QN 0, MSN 1).
        byte[] ours = ascii("from us!");
        memory.setBytes(192, ours);
        qp.postSend(SendWorkRequest.send(20, mr.sge(192, 8)));
        assertThat(peer.take()).isEqualTo(ByteBuffer.allocate(26).put((byte) 0x41).put((byte) 0x43).putInt(0)
                .putInt(0).putInt(1).putInt(0).put(ours).array());
        assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(20);

        // Us -> peer: an RDMA Write to its buffer.
        qp.postSend(SendWorkRequest.rdmaWrite(21, PEER_STAG, 0x2000, mr.sge(192, 8)));
        assertThat(peer.take()).isEqualTo(HardwarePeer.tagged(0, PEER_STAG, 0x2000, ours));
        assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(21);

        // Us -> peer: an RDMA Read from its buffer into ours.
        qp.postSend(SendWorkRequest.rdmaRead(22, PEER_STAG, 0x3000, mr.sge(256, 8)));
        assertThat(peer.take()).isEqualTo(ByteBuffer.allocate(46).put((byte) 0x41).put((byte) 0x41).putInt(0)
                .putInt(1).putInt(ourReadMsn).putInt(0).putInt(mr.stag()).putLong(base + 256).putInt(8)
                .putInt(PEER_STAG).putLong(0x3000).array());
        byte[] theirs = ascii("peer mem");
        peer.send(HardwarePeer.tagged(2, mr.stag(), base + 256, theirs));
        WorkCompletion read = RdmaPair.next(cq);
        assertThat(read.workRequestId()).isEqualTo(22);
        assertThat(read.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(ByteBufUtil.getBytes(memory, 256, 8)).isEqualTo(theirs);
        assertThat(cq.poll()).isNull();
    }

    /** Our orderly close: the peer sees our FIN and no Terminate, closes too; nothing was refused. */
    private void closeInOrder(HardwarePeer peer, QueuePair qp) throws Exception {
        CompletableFuture<QueuePair> closed = qp.close();
        peer.expectOrderlyClose();
        closed.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(qp.terminateReceived()).isFalse();
        assertThat(peer.rejection).isNull();
        // A wake-up Write, if the peer was slow enough to get one, carried STag 1 like every
        // zero-length tagged message of ours.
        for (byte[] write : peer.zeroLengthWrites) {
            assertThat(ByteBuffer.wrap(write).getInt(2)).isEqualTo(1);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
