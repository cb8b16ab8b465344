package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.iwarp4j.mpa.RtrType;
import org.junit.jupiter.api.Test;

/**
 * Captures written by the test, clean and then broken on purpose one rule at a time: each broken
 * one must give exactly the expected requirement IDs, so every check is shown to fire and to stay
 * quiet otherwise.
 */
class SyntheticCapturesTest {

    private static final byte[] NONE = new byte[0];

    /** What a synthetic iWARP connection is made of. */
    static final class Peer {
        final SyntheticCapture capture = new SyntheticCapture();
        final SyntheticCapture.Conn conn;
        MpaWire.Sender toResponder;
        MpaWire.Sender toInitiator;

        Peer(int serverPort) {
            conn = capture.connect(40000, serverPort);
        }

        /** Request and Reply; {@code reqFlags}/{@code repFlags}: M 0x80, C 0x40, R 0x20, S 0x10. */
        Peer startup(int reqFlags, byte[] reqPd, int repFlags, byte[] repPd) {
            return startup(2, reqFlags, reqPd, 2, repFlags, repPd);
        }

        Peer startup(int reqRev, int reqFlags, byte[] reqPd, int repRev, int repFlags, byte[] repPd) {
            byte[] request = MpaWire.startup(true, reqFlags, reqRev, reqPd);
            byte[] reply = MpaWire.startup(false, repFlags, repRev, repPd);
            conn.send(true, request);
            conn.send(false, reply);
            toResponder = new MpaWire.Sender(request.length, (repFlags & 0x80) != 0);
            toInitiator = new MpaWire.Sender(reply.length, (reqFlags & 0x80) != 0);
            return this;
        }

        Peer i(byte[] ulpdu) {
            conn.send(true, toResponder.fpdu(ulpdu));
            return this;
        }

        Peer r(byte[] ulpdu) {
            conn.send(false, toInitiator.fpdu(ulpdu));
            return this;
        }

        DecodeReport decode() throws Exception {
            return CaptureDecoder.decode(capture.pcap(false), DecodeOptions.DEFAULT);
        }
    }

    private static byte[] ird(int ird, int ord) {
        return MpaWire.enhanced(false, Set.of(), ird, ord, NONE);
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + 1);
        }
        return b;
    }

    private static List<String> ids(DecodeReport r) {
        return r.violations().stream().map(Violation::requirementId).collect(Collectors.toList());
    }

    /** rping's pattern, both ways, with CRC: Send, Read Request/Response, Write, Send. */
    private static Peer rping(boolean markers, int rounds) {
        int m = markers ? 0x80 : 0;
        Peer p = new Peer(7174).startup(0x50 | m, ird(4, 4), 0x50 | m, ird(4, 4));
        for (int k = 1; k <= rounds; k++) {
            p.i(MpaWire.send(k, bytes(16)));
            p.r(MpaWire.readRequest(k, 0x1000, 0x7000_0000L, 1000, 0x2000, 0x9000));
            p.i(MpaWire.readResponse(0x1000, 0x7000_0000L, bytes(600), false));
            p.i(MpaWire.readResponse(0x1000, 0x7000_0000L + 600, bytes(400), true));
            p.r(MpaWire.send(2 * k - 1, bytes(17)));
            p.r(MpaWire.write(0x3000, 0x100, bytes(333)));
            p.r(MpaWire.send(2 * k, bytes(16)));
        }
        return p;
    }

    @Test
    void aCleanConnectionWithMarkersAndCrcHasNoViolation() throws Exception {
        DecodeReport r = rping(true, 5).decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).isEmpty();
        assertThat(r.connections()).singleElement().satisfies(c -> assertThat(c.negotiated())
                .isEqualTo("rev 2, CRC on, markers I>R on R>I on, Initiator ORD 4, Responder ORD 4"));
        assertThat(r.units()).hasSize(2 + 5 * 7);
        assertThat(r.units().get(4).summary()).isEqualTo("Read Response STag 0x00001000 TO 0x70000000 len 600");
        // Markers were really there to be removed: the first FPDU of each direction starts with one.
        assertThat(r.units().get(2).layers().get("mpa").get("markers").toString()).startsWith("[24:0x00000000");
    }

    @Test
    void theSameConnectionAsPcapngSllOutOfOrderAndRetransmittedDecodesTheSame() throws Exception {
        Peer p = rping(false, 3);
        DecodeReport reference = p.decode();
        assertThat(reference.violations()).isEmpty();
        List<String> expected = reference.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());

        assertThat(summaries(CaptureDecoder.decode(p.capture.pcapng(), DecodeOptions.DEFAULT))).isEqualTo(expected);
        assertThat(summaries(CaptureDecoder.decode(p.capture.pcap(true), DecodeOptions.DEFAULT))).isEqualTo(expected);
        assertThat(summaries(CaptureDecoder.decode(p.capture.pcap(0), DecodeOptions.DEFAULT))).isEqualTo(expected);

        // Swap two data segments of one direction and send one twice: TCP reassembly puts them back.
        List<SyntheticCapture.Segment> s = p.capture.segments;
        int a = indexOfData(s, true, 3);
        int b = indexOfData(s, true, 4);
        Collections.swap(s, a, b);
        s.add(b + 1, s.get(a));
        DecodeReport reordered = p.decode();
        assertThat(reordered.violations()).isEmpty();
        assertThat(reordered.notes()).extracting(Note::text)
                .containsExactly("TCP: 1 segments retransmitted (octets kept once), 1 out of order (put in place)");
        assertThat(reordered.notes().get(0).direction()).isEqualTo("I>R");
        assertThat(summaries(reordered)).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * pcapng's obsolete Packet Block (type 2) is a frame as the Enhanced Packet Block is: skipped, it
     * lost its packet and put the frame numbers out of step with Wireshark's.
     */
    @Test
    void obsoletePacketBlocksAreFramesToo() throws Exception {
        Peer p = rping(false, 2);
        DecodeReport reference = p.decode();
        byte[] file = p.capture.pcapng();
        ByteBuffer b = ByteBuffer.wrap(file); // big-endian, as SyntheticCapture writes it
        int blocks = 0;
        for (int pos = 28 + 20; pos < file.length; pos += b.getInt(pos + 4)) {
            if (blocks++ % 2 == 0) {
                b.putInt(pos, 2); // an interface ID of 0 in 32 bits reads as ID 0 and no drops in 2 x 16
            }
        }
        DecodeReport r = CaptureDecoder.decode(file, DecodeOptions.DEFAULT);
        assertThat(r.frames()).isEqualTo(reference.frames());
        assertThat(r.units()).extracting(u -> u.frame() + " " + u.summary())
                .isEqualTo(reference.units().stream().map(u -> u.frame() + " " + u.summary()).toList());
        assertThat(r.violations()).isEmpty();
    }

    private static List<String> summaries(DecodeReport r) {
        return r.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());
    }

    /** The index of the n-th (from 0) segment with data from one side. */
    private static int indexOfData(List<SyntheticCapture.Segment> s, boolean fromClient, int n) {
        int seen = 0;
        for (int i = 0; i < s.size(); i++) {
            if (s.get(i).fromClient() == fromClient && s.get(i).payload().length > 0 && seen++ == n) {
                return i;
            }
        }
        throw new AssertionError("no segment " + n);
    }

    @Test
    void badCrc() throws Exception {
        Peer p = rping(false, 2);
        int i = indexOfData(p.capture.segments, true, 2); // the first Read Response (600 octets)
        SyntheticCapture.Segment s = p.capture.segments.get(i);
        byte[] bad = s.payload().clone();
        bad[25] ^= 0x40;
        p.capture.segments.set(i, new SyntheticCapture.Segment(s.clientPort(), s.serverPort(), s.fromClient(),
                s.sequence(), s.flags(), s.mss(), bad));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("MPA-R-030");
        assertThat(r.exitStatus()).isEqualTo(1);
    }

    @Test
    void skippedMsn() throws Exception {
        Peer p = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        p.i(MpaWire.send(1, bytes(8))).r(MpaWire.send(1, bytes(8))).i(MpaWire.send(3, bytes(8)));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("DDP-R-025");
        assertThat(r.violations().get(0).detail()).isEqualTo("QN 0 MSN 3 where 2 was next");
    }

    @Test
    void rtrOfTheWrongType() throws Exception {
        byte[] offer = MpaWire.enhanced(true, EnumSet.of(RtrType.WRITE, RtrType.READ), 4, 4, NONE);
        byte[] answer = MpaWire.enhanced(true, EnumSet.of(RtrType.READ), 4, 4, NONE);
        Peer p = new Peer(7174).startup(0x50, offer, 0x50, answer);
        p.i(MpaWire.write(1, 0, NONE)).r(MpaWire.send(1, bytes(4)));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("MPA2-R-009");
        assertThat(r.violations().get(0).detail()).isEqualTo("RTR of type WRITE, the Reply allows [READ]");

        Peer right = new Peer(7174).startup(0x50, offer, 0x50, answer);
        right.i(MpaWire.readRequest(1, 1, 0, 0, 1, 0)).r(MpaWire.readResponse(1, 0, NONE, true))
                .r(MpaWire.send(1, bytes(4)));
        assertThat(right.decode().violations()).isEmpty();
    }

    @Test
    void markerOutOfPlace() throws Exception {
        Peer p = new Peer(7174).startup(0x80, NONE, 0x80, NONE); // markers both ways, no CRC
        p.i(MpaWire.send(1, bytes(1000)));
        int i = indexOfData(p.capture.segments, true, 1);
        SyntheticCapture.Segment s = p.capture.segments.get(i);
        byte[] bad = s.payload().clone();
        // The second marker stands 512 octets after the first, at offset 512 of this FPDU's octets; its
        // FPDUPTR (octets 2-3) should be 508: make it 500.
        assertThat(bad[512 + 3] & 0xff).isEqualTo(508 & 0xff);
        bad[512 + 3] = (byte) 500;
        p.capture.segments.set(i, new SyntheticCapture.Segment(s.clientPort(), s.serverPort(), s.fromClient(),
                s.sequence(), s.flags(), s.mss(), bad));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("MPA-R-017");
        assertThat(r.violations().get(0).detail()).isEqualTo("marker at offset 532 has FPDUPTR 500, the FPDU's"
                + " ULPDU_Length is 508 octets back");
    }

    /**
     * MPA-R-046: the Reply sets M (the Responder wants markers), the Initiator sends none. Decoding
     * follows what was sent, so the one choice is one violation, not a framing error per FPDU.
     */
    @Test
    void markersNotSentThoughAsked() throws Exception {
        Peer p = new Peer(7174).startup(0x40, NONE, 0xc0, NONE);
        p.toResponder = new MpaWire.Sender(20, false);
        p.i(MpaWire.send(1, bytes(700))).r(MpaWire.send(1, bytes(8))).i(MpaWire.send(2, bytes(700)));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("MPA-R-046");
        assertThat(r.violations().get(0).detail()).isEqualTo("the receiver's startup frame set M, but the FPDUs"
                + " arrive without markers");
        assertThat(summaries(r).subList(2, 5)).extracting(x -> x.substring(0, 16)).containsExactly(
                "Send QN 0 MSN 1 ", "Send QN 0 MSN 1 ", "Send QN 0 MSN 2 ");
    }

    /** An NFSv3 client (RPC-over-RDMA, port 20049) that sends a second Call before the first Reply. */
    @Test
    void creditsExceeded() throws Exception {
        Peer p = new Peer(20049).startup(0x50, ird(0, 0), 0x50, ird(0, 0));
        p.i(MpaWire.send(1, rpcCall(0x100, 1)));
        p.r(MpaWire.send(1, rpcReply(0x100, 1)));      // grants 1 credit
        p.i(MpaWire.send(2, rpcCall(0x101, 1)));
        p.i(MpaWire.send(3, rpcCall(0x102, 1)));      // 2 outstanding, 1 granted
        p.r(MpaWire.send(2, rpcReply(0x101, 8)));
        p.r(MpaWire.send(3, rpcReply(0x102, 8)));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("RPC-R-003");
        assertThat(r.violations().get(0).detail()).isEqualTo("2 Calls outstanding, the peer granted 1");
        assertThat(summaries(r).get(2)).isEqualTo("Send QN 0 MSN 1 MO 0 len 68 L | RDMA_MSG xid 0x00000100 cr 32"
                + " | CALL NFSv3 GETATTR");
        assertThat(summaries(r).get(3)).isEqualTo("Send QN 0 MSN 1 MO 0 len 52 L | RDMA_MSG xid 0x00000100 cr 1"
                + " | REPLY to NFSv3 GETATTR (frame 5) SUCCESS");
    }

    /** RDMA_MSG, no chunks, an NFSv3 GETATTR Call with AUTH_NONE and a 32-octet argument. */
    private static byte[] rpcCall(int xid, int procedure) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(68);
        b.putInt(xid).putInt(1).putInt(32).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(xid).putInt(0).putInt(2).putInt(100003).putInt(3).putInt(procedure).putInt(0).putInt(0).putInt(0)
                .putInt(0);
        return b.array();
    }

    /**
     * An RPC-over-RDMA Call in a Send of two segments; the capture lost the first. The second (MO 34,
     * L) is the middle of the message, not a transport header: it is not decoded as one, and a note
     * says why (RFC 5041 §5.3: MO is the segment's place in the message).
     */
    @Test
    void aSendWhoseStartIsLostIsNotDecodedAsRpcOverRdma() throws Exception {
        Peer p = new Peer(20049).startup(0x50, ird(0, 0), 0x50, ird(0, 0));
        byte[] call = rpcCall(0x100, 1);
        p.i(MpaWire.untagged(3, false, 0, 0, 1, 0, java.util.Arrays.copyOf(call, 34)));
        p.i(MpaWire.untagged(3, true, 0, 0, 1, 34, java.util.Arrays.copyOfRange(call, 34, call.length)));
        p.capture.segments.remove(indexOfData(p.capture.segments, true, 1));
        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).extracting(Note::text).hasSize(2).contains("the Send of MSN 1 is not decoded as"
                + " RPC-over-RDMA: the segments here do not hold it whole from MO 0 (its start lost in a gap or"
                + " before a mid-stream capture, or MOs out of sequence)");
        assertThat(summaries(r).get(2)).isEqualTo("Send QN 0 MSN 1 MO 34 len 34 L");
    }

    /**
     * A Send without L (DDP-R-013) and then the next message: the octets of the unfinished one are not
     * put in front of the next, which is decoded on its own.
     */
    @Test
    void aSendLeftUnfinishedDoesNotSpillIntoTheNext() throws Exception {
        Peer p = new Peer(20049).startup(0x50, ird(0, 0), 0x50, ird(0, 0));
        p.i(MpaWire.untagged(3, false, 0, 0, 1, 0, bytes(20)));
        p.i(MpaWire.send(2, rpcCall(0x100, 1)));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("DDP-R-013");
        assertThat(summaries(r).get(3)).isEqualTo("Send QN 0 MSN 2 MO 0 len 68 L | RDMA_MSG xid 0x00000100 cr 32"
                + " | CALL NFSv3 GETATTR");
    }

    private static byte[] rpcReply(int xid, int credits) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(52);
        b.putInt(xid).putInt(1).putInt(credits).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(xid).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0);
        return b.array();
    }

    /**
     * Linux siw 6.1 on x86 sends its MPA CRC error (LLP / MPA / 0x02) with Layer and EType swapped
     * (iwarp.h bit fields): control octets 02 02 00 00. The decoder names siw's reading.
     */
    @Test
    void siwsSwappedTerminateIsNamed() throws Exception {
        Peer p = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        p.i(MpaWire.send(1, bytes(8))).r(MpaWire.terminate(0x02, 0x02, 0x00, 0x00));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("RDMAP-R-026");
        assertThat(r.violations().get(0).detail()).isEqualTo("Terminate control 02 02: 0x0/0x2/0x02 RDMAP Remote"
                + " Operation Error: Error Code 0x02 (not defined by RFC 5040/5041/5044/6581; looks like siw's swapped"
                + " layer/type: LLP CRC error)");
        assertThat(summaries(r).get(3)).isEqualTo("Terminate QN 2 MSN 1 MO 0 len 4 L 0x0/0x2/0x02 RDMAP Remote"
                + " Operation Error: Error Code 0x02 (not defined by RFC 5040/5041/5044/6581; looks like siw's swapped"
                + " layer/type: LLP CRC error)");
        assertThat(r.units().get(3).layers().get("terminate").get("siwSwappedReading"))
                .isEqualTo(org.iwarp4j.rdmap.TerminateReason.LLP_CRC_ERROR.toString());
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text()).contains("iwarp.h")
                .endsWith("read that way this Terminate is 0x2/0x0/0x02 LLP MPA: Received MPA CRC does not match the"
                        + " calculated value for the FPDU"));

        // A well-formed Terminate (LLP CRC error, 20 02 00 00) is no violation; a Send after it is.
        Peer q = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        q.i(MpaWire.send(1, bytes(8))).r(MpaWire.terminate(0x20, 0x02, 0x00, 0x00)).r(MpaWire.send(1, bytes(4)));
        assertThat(ids(q.decode())).containsExactly("RDMAP-R-027");
    }

    @Test
    void startupOrderAndNegotiation() throws Exception {
        // The Responder speaks first; the Reply does not echo A and its ORD exceeds the Initiator's IRD.
        byte[] offer = MpaWire.enhanced(true, EnumSet.of(RtrType.SEND), 2, 2, NONE);
        byte[] answer = MpaWire.enhanced(false, Set.of(), 2, 5, NONE);
        Peer p = new Peer(7174).startup(0x50, offer, 0x50, answer);
        p.r(MpaWire.send(1, bytes(4))).i(MpaWire.send(1, NONE));
        assertThat(ids(p.decode())).containsExactlyInAnyOrder("MPA2-R-005", "MPA2-R-008", "MPA-R-061");
    }

    @Test
    void aWrongReplyKeyIsQuotedWithItsControlOctetsEscaped() throws Exception {
        Peer p = new Peer(7174);
        p.conn.send(true, MpaWire.startup(true, 0x40, 2, NONE));
        byte[] reply = MpaWire.startup(false, 0x40, 2, NONE);
        // "MPA ID " then a screen clear (ESC [2J), C1 CSI and "Fram": 16 octets in place of the key
        byte[] key = "MPA ID \u001b[2J\u009bFram".getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(key, 0, reply, 0, key.length);
        p.conn.send(false, reply);
        DecodeReport r = p.decode();
        assertThat(r.violations()).singleElement().extracting(Violation::detail)
                .isEqualTo("the Responder's first octets are \"MPA ID \\x1b[2J\\x9bFram\", not the Reply key");
    }

    @Test
    void readRequestsBeyondOrdAndAMismatchedResponse() throws Exception {
        Peer p = new Peer(7174).startup(0x50, ird(1, 1), 0x50, ird(1, 1));
        p.i(MpaWire.send(1, bytes(4))).r(MpaWire.send(1, bytes(4)));
        p.i(MpaWire.readRequest(1, 0x10, 0, 8, 0x20, 0)).i(MpaWire.readRequest(2, 0x11, 0, 8, 0x21, 0));
        p.r(MpaWire.readResponse(0x10, 0, bytes(8), true)).r(MpaWire.readResponse(0x99, 0, bytes(8), true));
        assertThat(ids(p.decode())).containsExactly("RDMAP-R-012", "RDMAP-R-016");
    }

    @Test
    void aReadResponseMayComeBetweenTheSegmentsOfAWriteButTwoWritesMayNotInterleave() throws Exception {
        Peer p = new Peer(7174).startup(0x40, ird(4, 4), 0x40, ird(4, 4));
        p.i(MpaWire.send(1, NONE)).r(MpaWire.readRequest(1, 0x10, 0, 8, 0x20, 0));
        p.i(MpaWire.tagged(0, false, 0x30, 0, bytes(8))).i(MpaWire.readResponse(0x10, 0, bytes(8), true))
                .i(MpaWire.tagged(0, true, 0x30, 8, bytes(8)));
        assertThat(p.decode().violations()).isEmpty();

        Peer q = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        q.i(MpaWire.send(1, NONE)).i(MpaWire.tagged(0, false, 0x30, 0, bytes(8)))
                .i(MpaWire.tagged(0, true, 0x31, 0, bytes(8)));
        assertThat(ids(q.decode())).containsExactly("DDP-R-030");
    }

    @Test
    void aMissingLastBitAndAGap() throws Exception {
        Peer p = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        p.i(MpaWire.untagged(3, false, 0, 0, 1, 0, bytes(8))).i(MpaWire.send(2, bytes(8)));
        assertThat(ids(p.decode())).containsExactly("DDP-R-013");

        Peer q = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        List<byte[]> sends = new ArrayList<>();
        for (int k = 1; k <= 6; k++) {
            sends.add(MpaWire.send(k, bytes(100 + k)));
        }
        for (byte[] s : sends) {
            q.i(s);
        }
        q.capture.segments.remove(indexOfData(q.capture.segments, true, 3)); // the third Send is lost
        DecodeReport r = q.decode();
        assertThat(r.violations()).isEmpty(); // MSN 4 after 2 is the capture's doing, not the peer's
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text())
                .startsWith("128 octets missing from the capture at stream offset ").contains("decoding resumes"));
        assertThat(summaries(r).subList(2, 7)).extracting(x -> x.substring(0, 16)).containsExactly(
                "Send QN 0 MSN 1 ", "Send QN 0 MSN 2 ", "Send QN 0 MSN 4 ", "Send QN 0 MSN 5 ", "Send QN 0 MSN 6 ");
    }

    /**
     * A Reply whose transport header is turned down (rdma_vers 2, RPC-R-039) still ends its Call:
     * the next Call is one outstanding, within the one credit granted before a Reply (RPC-R-003).
     */
    @Test
    void aReplyWithARejectedHeaderAnswersItsCall() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(1, 32, new Nfs4Wire.Chunks(), Nfs4Wire.call(1, 3, 0, NONE))));
        byte[] reply = Nfs4Wire.rdmaMsg(1, 1, new Nfs4Wire.Chunks(), Nfs4Wire.reply(1, NONE));
        reply[7] = 2; // rdma_vers
        p.r(MpaWire.send(1, reply));
        p.i(MpaWire.send(2, Nfs4Wire.rdmaMsg(2, 32, new Nfs4Wire.Chunks(), Nfs4Wire.call(2, 3, 0, NONE))));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("RPC-R-039");
        assertThat(summaries(r)).last().asString().endsWith("| CALL NFSv3 NULL");
    }

    /**
     * The server's backward CB_NULL has XID 0x20, and so has a forward Call from the client whose
     * header is turned down (rdma_vers 2, RPC-R-039): that Call does not end the backward one, whose
     * Reply then names it (it used to answer no Call, with a note saying so).
     */
    @Test
    void aRejectedHeaderFromTheClientDoesNotEndABackwardCall() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x1f, 32, new Nfs4Wire.Chunks(), Nfs4Wire.call(0x1f, 3, 0, NONE))));
        p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x1f, 8, new Nfs4Wire.Chunks(), Nfs4Wire.reply(0x1f, NONE))));
        p.r(MpaWire.send(2, Nfs4Wire.rdmaMsg(0x20, 2, new Nfs4Wire.Chunks(),
                Nfs4CompoundCaptureTest.callbackCall(0x20, 0, NONE))));
        byte[] call = Nfs4Wire.rdmaMsg(0x20, 32, new Nfs4Wire.Chunks(), Nfs4Wire.call(0x20, 3, 0, NONE));
        call[7] = 2; // rdma_vers
        p.i(MpaWire.send(2, call));
        p.i(MpaWire.send(3, Nfs4Wire.rdmaMsg(0x20, 16, new Nfs4Wire.Chunks(), Nfs4Wire.reply(0x20, NONE))));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("RPC-R-039");
        assertThat(r.notes()).isEmpty();
        assertThat(summaries(r).get(4)).endsWith("| CALL NFSv4 callback CB_NULL");
        assertThat(summaries(r)).last().asString().endsWith("| REPLY to NFSv4 callback CB_NULL (frame "
                + r.units().get(4).frame() + ") SUCCESS");
    }

    /**
     * A Send of 24 octets from the server, shorter than the minimal transport header (RPC-R-058): its
     * rdma_xid is not trusted, so it does not end the Call of that XID, which the next Reply answers.
     */
    @Test
    void aMessageShorterThanTheMinimalHeaderEndsNoCall() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(1, 32, new Nfs4Wire.Chunks(), Nfs4Wire.call(1, 3, 0, NONE))));
        byte[] reply = Nfs4Wire.rdmaMsg(1, 8, new Nfs4Wire.Chunks(), Nfs4Wire.reply(1, NONE));
        p.r(MpaWire.send(1, java.util.Arrays.copyOf(reply, 24)));
        p.r(MpaWire.send(2, reply));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("RPC-R-036");
        assertThat(r.notes()).isEmpty();
        assertThat(summaries(r)).last().asString().endsWith("| REPLY to NFSv3 NULL (frame "
                + r.units().get(2).frame() + ") SUCCESS");
    }

    /**
     * The first half of a 60 KB FPDU is lost, its second half captured, then 120 KB lost: the search
     * for the next FPDU meets the second gap after a fragment, past the two ULPDUs' worth it looks
     * at. Its window used to count the lost octets too, so it gave up there and the rest of the
     * direction was not decoded (MPA-R-010). Each gap gets its note (the second had none), and
     * their octets add up to what the connection misses.
     */
    @Test
    void decodingResumesAfterAGapThatFollowsAFragment() throws Exception {
        Peer p = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        p.i(MpaWire.send(1, new byte[60_000]));
        p.conn.sendSegmented(true, p.toResponder.fpdu(MpaWire.send(2, new byte[60_000])), 30_000);
        for (int k = 3; k <= 5; k++) {
            p.i(MpaWire.send(k, new byte[60_000]));
        }
        p.i(MpaWire.send(6, bytes(16))).i(MpaWire.send(7, bytes(16)));
        List<SyntheticCapture.Segment> s = p.capture.segments;
        s.subList(indexOfData(s, true, 4), indexOfData(s, true, 7)).clear(); // Sends 3 to 5: gap 2
        s.remove(indexOfData(s, true, 2)); // the first half of Send 2: gap 1

        DecodeReport r = p.decode();
        assertThat(ids(r)).containsOnly("MPA-R-005"); // SHOULD: 60 KB ULPDUs for an MSS of 1460
        int fpdu = 2 + 18 + 60_000 + 4; // no pad, CRC
        long send2 = 20 + fpdu; // after the Request and Send 1
        long send5 = send2 + 3L * fpdu;
        String resumes = "; decoding resumes at offset " + send5 + " (frame ";
        assertThat(r.notes()).extracting(Note::text).satisfiesExactly(
                t -> assertThat(t).startsWith("30000 octets missing from the capture at stream offset " + send2
                        + " (before frame ").contains(resumes),
                t -> assertThat(t).startsWith((fpdu - 30_000 - 30_000 + 2L * fpdu) + " octets missing from the"
                        + " capture at stream offset " + (send2 + 60_000) + " (before frame ").contains(resumes));
        assertThat(r.connections().get(0).missingOctets()).isEqualTo(send5 - send2 - 30_000);
        assertThat(summaries(r)).endsWith("Send QN 0 MSN 5 MO 0 len 60000 L", "Send QN 0 MSN 6 MO 0 len 16 L",
                "Send QN 0 MSN 7 MO 0 len 16 L");
    }

    /** A Send of 8 octets from the Initiator, then 200 octets that are not FPDUs (a framing error). */
    private static Peer aSendThenNotFpdus() {
        Peer p = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        p.i(MpaWire.send(1, bytes(8)));
        byte[] notFpdus = new byte[200];
        notFpdus[1] = 1; // ULPDU_Length 1: shorter than any DDP header
        p.conn.send(true, notFpdus);
        return p;
    }

    /** After a framing error with no FPDU after it, a note says why the rest of the direction has no units. */
    @Test
    void aFramingErrorWithNothingAfterItIsNoted() throws Exception {
        DecodeReport r = aSendThenNotFpdus().decode();
        assertThat(ids(r)).containsExactly("MPA-R-010");
        assertThat(r.notes()).extracting(Note::text).containsExactly("no FPDU found after the framing error at offset "
                + r.violations().get(0).detail().replaceAll(".* from offset ", "")
                + "; the rest of this direction is not decoded");
    }

    /**
     * A framing error, then a lost FPDU: the search for the next FPDU passes the gap, and the gap
     * gets its note besides the framing error's (it had none).
     */
    @Test
    void aGapPassedAfterAFramingErrorIsNoted() throws Exception {
        Peer p = aSendThenNotFpdus();
        p.i(MpaWire.send(2, bytes(8))).i(MpaWire.send(3, bytes(8)));
        p.capture.segments.remove(indexOfData(p.capture.segments, true, 3)); // Send 2, 32 octets
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("MPA-R-010");
        long garbage = 20 + 32; // after the Request and Send 1
        long send3 = garbage + 200 + 32;
        assertThat(r.notes()).extracting(Note::text).containsExactlyInAnyOrder(
                "FPDUs found again at offset " + send3,
                "32 octets missing from the capture at stream offset " + (garbage + 200) + " (before frame 7);"
                        + " decoding resumes at offset " + send3 + " (frame 7)");
        assertThat(summaries(r)).endsWith("Send QN 0 MSN 1 MO 0 len 8 L", "Send QN 0 MSN 3 MO 0 len 8 L");
    }

    /**
     * The Initiator's Read Request is lost; the Responder's Read Response was captured before the
     * Initiator's next segment. The gap counts from the last octet captured before it, so the
     * Response is judged knowing that a Request may be missing (RDMAP-R-016 not held against it).
     */
    @Test
    void aGapCountsFromTheLastOctetBeforeIt() throws Exception {
        Peer p = new Peer(7174).startup(0x40, ird(4, 4), 0x40, ird(4, 4));
        p.i(MpaWire.send(1, bytes(8)));
        p.i(MpaWire.readRequest(1, 0x10, 0, 8, 0x20, 0));
        p.r(MpaWire.readResponse(0x10, 0, bytes(8), true));
        p.i(MpaWire.send(2, bytes(8)));
        p.capture.segments.remove(indexOfData(p.capture.segments, true, 2)); // the Read Request
        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text())
                .startsWith("52 octets missing from the capture at stream offset "));
    }

    /**
     * ORD 1, and the Response to the first Read Request is lost: the second Request is not two
     * outstanding (RDMAP-R-012), since the capture, not the peer, lost the answer.
     */
    @Test
    void aLostReadResponseDoesNotCountAgainstTheOrd() throws Exception {
        Peer p = new Peer(7174).startup(0x50, ird(1, 1), 0x50, ird(1, 1));
        p.i(MpaWire.send(1, bytes(8))).r(MpaWire.send(1, bytes(8)));
        p.i(MpaWire.readRequest(1, 0x10, 0, 8, 0x20, 0));
        p.r(MpaWire.readResponse(0x10, 0, bytes(8), true));
        p.i(MpaWire.readRequest(2, 0x11, 0, 8, 0x21, 0));
        p.r(MpaWire.readResponse(0x11, 0, bytes(8), true));
        p.capture.segments.remove(indexOfData(p.capture.segments, false, 2)); // the first Read Response
        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text())
                .startsWith("28 octets missing from the capture at stream offset "));
        assertThat(summaries(r)).last().asString().startsWith("Read Response STag 0x00000011 TO 0x0 len 8 L");
    }

    /**
     * The first of two Read Requests is lost, then both Responses are captured: the first Response
     * answers a Request the capture lacks and is not compared with the second Request (RDMAP-R-016),
     * which the second Response then answers.
     */
    @Test
    void aResponseToALostReadRequestIsNotPairedWithTheNextRequest() throws Exception {
        Peer p = new Peer(7174).startup(0x50, ird(4, 4), 0x50, ird(4, 4));
        p.i(MpaWire.send(1, bytes(8)));
        p.i(MpaWire.readRequest(1, 0x10, 0, 8, 0x20, 0));
        p.i(MpaWire.readRequest(2, 0x11, 0, 16, 0x21, 0));
        p.r(MpaWire.readResponse(0x10, 0, bytes(8), true));
        p.r(MpaWire.readResponse(0x11, 0, bytes(10), false)).r(MpaWire.readResponse(0x11, 10, bytes(6), true));
        p.capture.segments.remove(indexOfData(p.capture.segments, true, 2)); // the first Read Request
        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text())
                .startsWith("52 octets missing from the capture at stream offset "));
    }

    /**
     * The first of three Read Requests is lost; the Responder, which lost nothing, answers the lost
     * one, then the third before the second. The first Response, in no outstanding Request's sink
     * buffer, may answer the lost one and is not judged; the second lies in the third Request's and
     * is out of order (RDMAP-R-016, RDMAP-R-017): the Requester's gap does not excuse it.
     */
    @Test
    void outOfOrderResponsesAfterTheRequestersGapAreReported() throws Exception {
        Peer p = new Peer(7174).startup(0x50, ird(4, 4), 0x50, ird(4, 4));
        p.i(MpaWire.send(1, bytes(8)));
        p.i(MpaWire.readRequest(1, 0x10, 0, 8, 0x20, 0));
        p.i(MpaWire.readRequest(2, 0x11, 0, 8, 0x21, 0)).i(MpaWire.readRequest(3, 0x12, 0, 8, 0x22, 0));
        p.r(MpaWire.readResponse(0x10, 0, bytes(8), true));
        p.r(MpaWire.readResponse(0x12, 0, bytes(8), true)).r(MpaWire.readResponse(0x11, 0, bytes(8), true));
        p.capture.segments.remove(indexOfData(p.capture.segments, true, 2)); // the first Read Request
        DecodeReport r = p.decode();
        assertThat(r.violations()).singleElement().satisfies(v -> {
            assertThat(v.requirementId()).isEqualTo("RDMAP-R-016");
            assertThat(v.detail()).isEqualTo("Read Response to STag 0x00000012 TO 0x0, the oldest Read Request"
                    + " asked for 0x00000011 TO 0x0 (the sink buffer of a later one, STag 0x00000012 TO 0x0: out of"
                    + " order)");
        });
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text())
                .startsWith("52 octets missing from the capture at stream offset "));
    }

    /**
     * After the Requester's gap, a Response that starts 8 octets into its Request's sink buffer is
     * reported (RDMAP-R-016), once: its 8 octets end the Request's 16.
     */
    @Test
    void aResponseStartingInsideItsRequestAfterTheRequestersGapIsReported() throws Exception {
        Peer p = new Peer(7174).startup(0x50, ird(4, 4), 0x50, ird(4, 4));
        p.i(MpaWire.send(1, bytes(8))).i(MpaWire.readRequest(1, 0x11, 0x100, 16, 0x21, 0));
        p.r(MpaWire.readResponse(0x11, 0x108, bytes(8), true));
        p.capture.segments.remove(indexOfData(p.capture.segments, true, 1)); // the Send
        DecodeReport r = p.decode();
        assertThat(r.violations()).extracting(Violation::detail).containsExactly("Read Response to STag 0x00000011"
                + " TO 0x108, the oldest Read Request asked for 0x00000011 TO 0x100 (inside that Request's sink"
                + " buffer)");
    }

    /**
     * A mid-stream capture by port: the Response to a Read Request sent before the capture began is
     * not judged, and Responses to two captured Requests in the wrong order are (RDMAP-R-016): a
     * `--port` decode no longer pairs every Response by STag and range.
     */
    @Test
    void outOfOrderResponsesInAMidStreamCaptureAreReported() throws Exception {
        Peer p = new Peer(7174).startup(0x50, ird(4, 4), 0x50, ird(4, 4));
        p.i(MpaWire.send(1, bytes(8))).i(MpaWire.readRequest(1, 0x10, 0, 8, 0x20, 0));
        int before = p.capture.segments.size();
        p.r(MpaWire.readResponse(0x10, 0, bytes(8), true));
        p.i(MpaWire.readRequest(2, 0x11, 0, 8, 0x21, 0)).i(MpaWire.readRequest(3, 0x12, 0, 8, 0x22, 0));
        p.r(MpaWire.readResponse(0x12, 0, bytes(8), true)).r(MpaWire.readResponse(0x11, 0, bytes(8), true));
        p.capture.segments.subList(0, before).clear(); // the capture starts with the first Response
        DecodeReport r = CaptureDecoder.decode(p.capture.pcap(false), DecodeOptions.DEFAULT.withPorts(Set.of(7174)));
        assertThat(r.connections()).singleElement().satisfies(c -> assertThat(c.found()).isEqualTo("port"));
        assertThat(r.units()).hasSize(5);
        assertThat(r.violations()).extracting(Violation::detail).containsExactly("Read Response to STag 0x00000012"
                + " TO 0x0, the oldest Read Request asked for 0x00000011 TO 0x0 (the sink buffer of a later one,"
                + " STag 0x00000012 TO 0x0: out of order)");
    }

    /**
     * Peer-to-peer (RFC 6581): the Initiator's RTR is lost. Its first FPDU in the capture is a Send,
     * and the Responder's first FPDU comes before it: neither MPA2-R-009 nor MPA-R-061 can be judged,
     * and notes say so.
     */
    @Test
    void aLostRtrIsNotHeldAgainstEitherSide() throws Exception {
        byte[] offer = MpaWire.enhanced(true, EnumSet.of(RtrType.WRITE, RtrType.READ), 4, 4, NONE);
        byte[] answer = MpaWire.enhanced(true, EnumSet.of(RtrType.READ), 4, 4, NONE);
        Peer p = new Peer(7174).startup(0x50, offer, 0x50, answer);
        p.i(MpaWire.readRequest(1, 1, 0, 0, 1, 0)).r(MpaWire.readResponse(1, 0, NONE, true))
                .r(MpaWire.send(1, bytes(4))).i(MpaWire.send(1, bytes(4)));
        p.capture.segments.remove(indexOfData(p.capture.segments, true, 1)); // the RTR
        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).extracting(Note::text).hasSize(3)
                .anySatisfy(t -> assertThat(t).startsWith("52 octets missing from the capture"))
                .anySatisfy(t -> assertThat(t).isEqualTo("MPA-R-061 not checked: the capture lacks octets the"
                        + " Initiator sent before this FPDU, and its first FPDU may be among them"))
                .anySatisfy(t -> assertThat(t).isEqualTo("MPA2-R-009 not checked: the capture lacks octets the"
                        + " Initiator sent before this FPDU, and its RTR may be among them"));
    }

    /** The Initiator's first FPDU is lost: the Responder's, captured first, is not blamed (MPA-R-061). */
    @Test
    void theInitiatorsFirstFpduLost() throws Exception {
        Peer p = new Peer(7174).startup(0x40, NONE, 0x40, NONE);
        p.i(MpaWire.send(1, bytes(8))).r(MpaWire.send(1, bytes(8))).i(MpaWire.send(2, bytes(8)));
        p.capture.segments.remove(indexOfData(p.capture.segments, true, 1));
        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).extracting(Note::text).hasSize(2).contains("MPA-R-061 not checked: the"
                + " capture lacks octets the Initiator sent before this FPDU, and its first FPDU may be among them");
    }

    @Test
    void midStreamByPort() throws Exception {
        Peer p = rping(false, 3);
        // Drop the handshake and startup frames: the capture starts with Full Operation.
        p.capture.segments.subList(0, 4).clear();
        assertThat(CaptureDecoder.decode(p.capture.pcap(false), DecodeOptions.DEFAULT).connections()).isEmpty();
        DecodeReport r = CaptureDecoder.decode(p.capture.pcap(false), DecodeOptions.DEFAULT.withPorts(Set.of(7174)));
        assertThat(r.connections()).singleElement().satisfies(c -> assertThat(c.found()).isEqualTo("port"));
        assertThat(r.violations()).isEmpty();
        assertThat(r.units()).hasSize(3 * 7);
    }

    @Test
    void aFileCutShortKeepsItsWholeFrames() throws Exception {
        Peer p = rping(false, 2);
        byte[] whole = p.capture.pcap(false);
        DecodeReport complete = CaptureDecoder.decode(whole, DecodeOptions.DEFAULT);
        DecodeReport cut = CaptureDecoder.decode(java.util.Arrays.copyOf(whole, whole.length - 10), DecodeOptions.DEFAULT);
        assertThat(cut.frames()).isEqualTo(complete.frames() - 1);
        assertThat(cut.notes()).extracting(Note::text).containsExactly("reading stopped after frame " + cut.frames()
                + ": the next record is cut short or damaged");
        assertThat(summaries(cut)).isEqualTo(summaries(complete).subList(0, summaries(complete).size() - 1));
        assertThat(cut.violations()).isEmpty();
    }

    @Test
    void notACapture() {
        byte[] text = "hello, not a capture".getBytes(StandardCharsets.US_ASCII);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CaptureDecoder.decode(text, DecodeOptions.DEFAULT))
                .isInstanceOf(UnreadableCaptureException.class).hasMessageContaining("not a pcap or pcapng file");
    }

    @Test
    void everyCheckHasACatalogueIdAndADocument() {
        assertThat(ReportWriter.ruleCounts()).containsOnlyKeys("RFC 5040", "RFC 5041", "RFC 5044", "RFC 6581",
                "RFC 8166", "RFC 8267");
        assertThat(ReportWriter.ruleCounts().values().stream().mapToInt(Integer::intValue).sum())
                .isEqualTo(Check.values().length);
        // The counts docs/decode.md states.
        assertThat(ReportWriter.ruleCounts()).containsExactlyInAnyOrderEntriesOf(java.util.Map.of("RFC 5044", 15,
                "RFC 6581", 8, "RFC 5041", 7, "RFC 5040", 12, "RFC 8166", 14, "RFC 8267", 5));
        assertThat(Check.values()).allSatisfy(c -> assertThat(c.requirementId()).matches("[A-Z0-9]+-R-\\d{3}"));
        assertThat(java.util.Arrays.stream(Check.values()).map(Check::requirementId).distinct().count())
                .isEqualTo(Check.values().length);
    }
}
