package org.iwarp4j.rdmap;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.iwarp4j.testkit.Hex;

/**
 * A scripted hardware iWARP peer for interop tests: it plays the connection manager of one
 * hardware RNIC family as docs/interop.md describes it from the Linux drivers, on a plain
 * blocking TCP socket. The MPA startup frames are written and parsed octet by octet (RFC 5044
 * §7.1, RFC 6581 §9), FPDUs are framed with CRC32c, least-significant octet first, and no markers
 * (RFC 5044 §4), and RDMAP
 * messages are crafted and checked as raw ULPDUs by the test. Every read waits at most
 * {@link RdmaPair#WAIT_SECONDS}.
 */
final class HardwarePeer implements AutoCloseable {

    /** The hardware connection managers emulated; each follows the table in docs/interop.md. */
    enum Profile {
        /**
         * Chelsio T5/T6, {@code iw_cxgb4} defaults ({@code peer2peer=1}, {@code p2p_type} = Read,
         * {@code crc_enabled=1}, {@code markers_enabled=0}, relaxed IRD/ORD). Offers and replies
         * A with the Read RTR only ({@code send_mpa_req}, {@code send_mpa_reply}); as Initiator,
         * a Reply without A or naming Write is an RTR mismatch: Terminate LLP/MPA code 7
         * ({@code process_mpa_reply}). Any inbound tagged message with STag 0, zero-length or
         * not, and a Read Request whose source STag is 0, are Terminated as an invalid STag
         * (zrlio/softiwarp#21: the adapter's check, not visible in the driver).
         */
        CHELSIO(1448),
        /**
         * Chelsio with {@code peer2peer=0}: offers no peer-to-peer (A=0, no RTR option) and
         * replies without A whatever the Request asked ({@code send_mpa_req}, {@code
         * send_mpa_reply}); no RTR either way. Same STag rule as {@link #CHELSIO}.
         */
        CHELSIO_NO_P2P(1448),
        /**
         * Intel E810/X722, {@code irdma}: sets A in every frame, offers Write and Read, replies
         * with Read if offered, else Write ({@code irdma_build_mpa_v2},
         * {@code irdma_negotiate_mpa_v2_ird_ord}); a revision 2 frame without A resets the TCP
         * connection ({@code irdma_handle_rcv_mpa}). Strict IRD as Initiator. Its own RTRs:
         * Read with sink STag 0xabcd and source STag 0x1234, Write with STag 0
         * ({@code irdma_sc_send_rtt}).
         */
        INTEL(1460),
        /**
         * Marvell/QLogic FastLinQ, {@code qedr} over {@code qed} ({@code qed_iwarp_setup}: revision
         * 2, {@code peer2peer} on, RTR types Send, Write and Read, CRC required; IRD and ORD at most
         * 32). As Initiator it offers A with all three RTR types and ORD at least 1
         * ({@code qed_iwarp_connect}), takes the Reply's IRD as its ORD and the Reply's ORD as its
         * IRD ({@code qed_iwarp_parse_private_data}), and has the firmware send an RTR the Reply
         * names ({@code qedr_iw_mpa_reply}, {@code qed_iwarp_send_rtr}). As Responder it echoes A
         * only if the Request had it and then names the RTR types both ends share, or all of its
         * own if none ({@code qed_iwarp_mpa_received}); lowers its ORD to the Initiator's IRD and
         * raises its IRD to 1 for a Read RTR ({@code qed_iwarp_accept}). Which RTR the firmware
         * sends, and how it reacts on the wire to a wrong one ({@code
         * IWARP_CONN_ERROR_MPA_RTR_MISMATCH}), is not in the driver: the emulation sends a Write
         * with STag 0 if the Reply names Write, else a Read, and resets the connection on a
         * mismatch.
         */
        QLOGIC(1448);

        /**
         * The largest FPDU this peer takes, in octets: one TCP segment of its MSS on a 1500-octet
         * Ethernet path. Chelsio and QLogic run TCP with timestamps ({@code set_emss} takes 12 off;
         * {@code QED_IWARP_TS_EN}), irdma's SYN carries no timestamp option
         * ({@code irdma_send_syn}). Larger FPDUs reach Chelsio T6 only in the unmerged 2020 patch
         * and qed only through a slow path that assumes one MSS ({@code qed_iwarp_cp_pkt}).
         */
        final int maxFpdu;

        Profile(int maxFpdu) {
            this.maxFpdu = maxFpdu;
        }
    }

    static final int CHELSIO_MAX_READ_DEPTH = 32;
    /** {@code QED_IWARP_IRD_DEFAULT}, {@code QED_IWARP_ORD_DEFAULT}: qed's IRD and ORD maxima. */
    static final int QLOGIC_MAX_IRD_ORD = 32;
    /** The peer's own buffer, as its ULP would advertise it; non-zero, as every real STag. */
    static final int PEER_STAG = 0x00abcd01;
    private static final byte[] KEY_REQ = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY_REP = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    private static final int FLAG_CRC = 0x40;
    private static final int FLAG_REJECT = 0x20;
    private static final int FLAG_ENHANCED = 0x10;
    private static final int A = 0x8000;
    private static final int B = 0x4000;
    private static final int C = 0x8000;
    private static final int D = 0x4000;
    private static final int MASK = 0x3FFF;

    final Profile profile;
    private final ServerSocket server;
    private Socket socket;
    private DataInputStream in;
    private OutputStream out;
    /** Why this peer ended the connection, or {@code null}: its rejection, as its driver logs it. */
    String rejection;
    /** A Terminate that came where the RTR should have (Responder), or {@code null}. */
    byte[] receivedTerminate;
    /** The RTR this peer sent (Initiator) or received (Responder): "SEND", "WRITE" or "READ". */
    String rtr;
    /** The RTR types this peer's Reply named (Responder). */
    final java.util.Set<String> replyRtrs = new java.util.TreeSet<>();
    /** The largest FPDU received, in octets (length field, ULPDU, pad and CRC). */
    int largestFpdu;
    int ird;
    int ord;
    /** Zero-length RDMA Writes received other than as the RTR (our wake-up Write), skipped by {@link #take}. */
    final List<byte[]> zeroLengthWrites = new ArrayList<>();
    private int sendMsn = 1;
    private int readMsn = 1;
    private int terminateMsn = 1;

    private HardwarePeer(Profile profile, ServerSocket server) {
        this.profile = profile;
        this.server = server;
    }

    /** A peer that listens on loopback; {@link #acceptAsResponder} serves the one connection. */
    static HardwarePeer listening(Profile profile) throws IOException {
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        server.setSoTimeout((int) (RdmaPair.WAIT_SECONDS * 1000));
        return new HardwarePeer(profile, server);
    }

    SocketAddress address() {
        return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    private void attach(Socket s) throws IOException {
        socket = s;
        socket.setSoTimeout((int) (RdmaPair.WAIT_SECONDS * 1000));
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    // ---------------------------------------------------------------- MPA startup, Responder

    /**
     * Accepts one connection and answers its MPA Request as {@link #profile}'s CM would, with
     * {@code localIrd}/{@code localOrd} as the ULP's accept parameters. Returns {@code false} if
     * the CM refused the Request (then {@link #rejection} says why and the socket is gone).
     */
    boolean acceptAsResponder(int localIrd, int localOrd) throws IOException {
        attach(server.accept());
        byte[] header = in.readNBytes(20);
        check(header.length == 20 && java.util.Arrays.equals(header, 0, 16, KEY_REQ, 0, 16), "not an MPA Request");
        int flags = header[16] & 0xFF;
        int revision = header[17] & 0xFF;
        int pdLength = (header[18] & 0xFF) << 8 | header[19] & 0xFF;
        byte[] pd = in.readNBytes(pdLength);
        check(revision == 2 && (flags & FLAG_ENHANCED) != 0 && pd.length >= 4, "expected an enhanced revision 2 Request");
        int irdHalf = (pd[0] & 0xFF) << 8 | pd[1] & 0xFF;
        int ordHalf = (pd[2] & 0xFF) << 8 | pd[3] & 0xFF;
        int initiatorIrd = irdHalf & MASK;
        int initiatorOrd = ordHalf & MASK;
        boolean peerToPeer = (irdHalf & A) != 0;
        int replyIrdHalf;
        int replyOrdHalf;
        boolean replyA;
        if (profile == Profile.QLOGIC) {
            // qed_iwarp_mpa_received: the Initiator's values capped at 32; the RTR types both share,
            // all of its own if none; no A in the Reply unless the Request had it.
            int initiatorIrdCapped = Math.min(initiatorIrd, QLOGIC_MAX_IRD_ORD);
            if (peerToPeer) {
                if ((ordHalf & C) != 0) {
                    replyRtrs.add("WRITE");
                }
                if ((ordHalf & D) != 0) {
                    replyRtrs.add("READ");
                }
                if ((irdHalf & B) != 0) {
                    replyRtrs.add("SEND");
                }
                if (replyRtrs.isEmpty()) {
                    replyRtrs.addAll(java.util.List.of("SEND", "WRITE", "READ"));
                }
            }
            // qed_iwarp_accept: ORD down to the Initiator's IRD; IRD as the ULP asked, 1 for a Read RTR.
            ird = localIrd;
            ord = Math.min(localOrd, initiatorIrdCapped);
            if (replyRtrs.contains("READ") && ird == 0) {
                ird = 1;
            }
            replyA = peerToPeer;
            // qed_iwarp_mpa_v2_set_private: A, B on the IRD half; C, D on the ORD half.
            replyIrdHalf = ird | (replyA ? A : 0) | (replyRtrs.contains("SEND") ? B : 0);
            replyOrdHalf = ord | (replyRtrs.contains("WRITE") ? C : 0) | (replyRtrs.contains("READ") ? D : 0);
        } else if (profile != Profile.INTEL) {
            // process_mpa_request: Write is looked at first; c4iw_accept_cr, relaxed: ORD down to the
            // Initiator's IRD, IRD up to the Initiator's ORD; IRD 1 for the (module default) Read RTR.
            boolean p2pModule = profile == Profile.CHELSIO;
            String p2p = !peerToPeer || !p2pModule ? null
                    : (ordHalf & C) != 0 ? "WRITE" : (ordHalf & D) != 0 ? "READ" : null;
            ird = Math.max(localIrd, Math.min(initiatorOrd, CHELSIO_MAX_READ_DEPTH));
            ord = Math.min(localOrd, Math.min(initiatorIrd, CHELSIO_MAX_READ_DEPTH));
            if (p2p != null && ird == 0) {
                ird = 1;
            }
            // send_mpa_reply: A and the module's own p2p_type (Read), not what the Request offered.
            replyA = p2p != null;
            replyIrdHalf = ird | (replyA ? A : 0);
            replyOrdHalf = ord | (replyA ? D : 0);
            if (replyA) {
                replyRtrs.add("READ");
            }
        } else {
            // irdma_negotiate_mpa_v2_ird_ord: no A at revision 2 is -EOPNOTSUPP -> reset.
            if (!peerToPeer) {
                reset("irdma: MPA Request without peer-to-peer (flag A)");
                return false;
            }
            ird = localIrd;
            ord = Math.min(localOrd, initiatorIrd);
            if (initiatorOrd == 0 && (ordHalf & D) != 0) {
                ird = 1;
            }
            String chosen = (ordHalf & D) != 0 ? "READ" : (ordHalf & C) != 0 ? "WRITE" : null;
            if (chosen == null) {
                reset("irdma: no RTR offered");
                return false;
            }
            replyA = true;
            replyRtrs.add(chosen);
            replyIrdHalf = ird | A;
            replyOrdHalf = ord | (chosen.equals("READ") ? D : C);
        }
        writeFrame(KEY_REP, FLAG_CRC | FLAG_ENHANCED, replyIrdHalf, replyOrdHalf);
        return !replyA || receiveRtr();
    }

    /**
     * Responder: the first FPDU must be a zero-length Write or Read Request (RFC 6581 §9.2), of
     * the type the Reply named for a Chelsio-like peer. {@code false}: Terminated.
     */
    private boolean receiveRtr() throws IOException {
        byte[] first = take(false);
        check(first != null, "connection closed before the RTR");
        ByteBuffer b = ByteBuffer.wrap(first);
        int opcode = first[1] & 0x0F;
        if ((first[0] & 0x80) == 0 && opcode == 7) {
            receivedTerminate = first; // the Initiator gave up instead of sending an RTR
            return false;
        } else if ((first[0] & 0x80) != 0 && opcode == 0 && first.length == 14) {
            rtr = "WRITE";
        } else if ((first[0] & 0x80) == 0 && opcode == 3 && first.length == 18 && b.getInt(6) == 0) {
            rtr = "SEND"; // a zero-length Send on QN 0
        } else if ((first[0] & 0x80) == 0 && opcode == 1 && first.length == 46 && b.getInt(30) == 0) {
            rtr = "READ";
            // RFC 5040 §5.2.1: answered with a zero-length Read Response to the sink STag and TO.
            send(ByteBuffer.allocate(14).put((byte) 0xc1).put((byte) 0x42).putInt(b.getInt(18)).putLong(b.getLong(22))
                    .array());
        } else {
            throw new AssertionError("first FPDU is no RTR: " + Hex.encode(first));
        }
        if (profile == Profile.QLOGIC && !replyRtrs.contains(rtr)) {
            // qed_iwarp_mpa_complete: IWARP_CONN_ERROR_MPA_RTR_MISMATCH, -ECONNREFUSED.
            reset("qed: MPA RTR MISMATCH (" + rtr + ", Reply named " + replyRtrs + ")");
            return false;
        }
        if (profile == Profile.CHELSIO && !rtr.equals("READ")) {
            // zrlio/softiwarp#20: its Reply named Read; a Write RTR drew a Terminate (0/0/0 on the wire).
            terminate(0x00, 0x00, "cxgb4: RTR " + rtr + " although the Reply named READ");
            return false;
        }
        return true;
    }

    // ---------------------------------------------------------------- MPA startup, Initiator

    /**
     * Connects to {@code rnic} as {@link #profile}'s CM would and completes the startup, RTR
     * included. Returns {@code false} if the CM refused the Reply ({@link #rejection} says why).
     */
    static HardwarePeer connectingTo(Profile profile, SocketAddress rnic, int localIrd, int localOrd)
            throws IOException {
        HardwarePeer peer = new HardwarePeer(profile, null);
        Socket s = new Socket();
        s.connect(rnic, (int) (RdmaPair.WAIT_SECONDS * 1000));
        peer.attach(s);
        peer.ird = localIrd;
        peer.ord = localOrd;
        if (profile == Profile.CHELSIO_NO_P2P) {
            peer.writeFrame(KEY_REQ, FLAG_CRC | FLAG_ENHANCED, localIrd, localOrd);
        } else if (profile == Profile.QLOGIC) {
            // qed_iwarp_connect: ORD 1 at least for the Read RTR; qed_iwarp_mpa_v2_set_private: A, B, C, D.
            check(localIrd <= QLOGIC_MAX_IRD_ORD && localOrd <= QLOGIC_MAX_IRD_ORD, "qed: -EINVAL above 32");
            peer.ord = Math.max(localOrd, 1);
            peer.writeFrame(KEY_REQ, FLAG_CRC | FLAG_ENHANCED, localIrd | A | B, peer.ord | C | D);
        } else if (profile == Profile.CHELSIO) {
            // send_mpa_req: A, and only the module's p2p_type (Read) among the RTR options.
            peer.writeFrame(KEY_REQ, FLAG_CRC | FLAG_ENHANCED, localIrd | A, localOrd | D);
        } else {
            // irdma_build_mpa_v2, MPA_KEY_REQUEST: A, Write and Read.
            peer.writeFrame(KEY_REQ, FLAG_CRC | FLAG_ENHANCED, localIrd | A, localOrd | C | D);
        }
        return peer;
    }

    /** Initiator: reads and judges the Reply, then sends the RTR. {@code false}: refused. */
    boolean completeAsInitiator() throws IOException {
        byte[] header = in.readNBytes(20);
        check(header.length == 20 && java.util.Arrays.equals(header, 0, 16, KEY_REP, 0, 16), "not an MPA Reply");
        int flags = header[16] & 0xFF;
        int pdLength = (header[18] & 0xFF) << 8 | header[19] & 0xFF;
        byte[] pd = in.readNBytes(pdLength);
        check((flags & FLAG_REJECT) == 0, "the Request was rejected");
        check((flags & FLAG_CRC) != 0, "no CRC in the Reply");
        check(pd.length >= 4, "no IRD/ORD word");
        int irdHalf = (pd[0] & 0xFF) << 8 | pd[1] & 0xFF;
        int ordHalf = (pd[2] & 0xFF) << 8 | pd[3] & 0xFF;
        int responderIrd = irdHalf & MASK;
        int responderOrd = ordHalf & MASK;
        boolean peerToPeer = (irdHalf & A) != 0;
        if (profile == Profile.QLOGIC) {
            // qed_iwarp_parse_private_data: its IRD becomes the Responder's ORD, its ORD the Responder's IRD.
            if (responderOrd > QLOGIC_MAX_IRD_ORD) {
                reset("qed: MPA insufficient ird"); // IWARP_CONN_ERROR_MPA_INSUF_IRD, in firmware
                return false;
            }
            ird = responderOrd;
            ord = responderIrd;
            if (!peerToPeer) {
                return true;
            }
            // qedr_iw_mpa_reply -> qed_iwarp_send_rtr: the firmware sends one the Reply names.
            if ((ordHalf & C) != 0) {
                rtr = "WRITE";
                send(Hex.decode("c140 00000000 00000000 00000000"));
                return true;
            } else if ((ordHalf & D) != 0 && responderIrd > 0) {
                rtr = "READ";
                send(readRequest(0, 0, 0, 0, 0));
            } else {
                reset("qed: MPA RTR MISMATCH (Reply names no RTR it can send)");
                return false;
            }
        } else if (profile != Profile.INTEL) {
            String p2p = !peerToPeer ? null : (ordHalf & C) != 0 ? "WRITE" : (ordHalf & D) != 0 ? "READ" : null;
            if (ird < responderOrd && responderOrd <= CHELSIO_MAX_READ_DEPTH) {
                ird = responderOrd; // RELAXED_IRD_NEGOTIATION
            } else if (ird > responderOrd) {
                ird = responderOrd;
            }
            ord = Math.min(ord, responderIrd);
            if (profile == Profile.CHELSIO_NO_P2P) {
                return true; // no peer2peer: no RTR check, no RTR (process_mpa_reply)
            }
            if (!"READ".equals(p2p)) {
                // process_mpa_reply: "RTR mismatch, sending TERM": LLP, MPA, code 7 (RFC 6581 §8).
                terminate(0x20, 0x07, "cxgb4: RTR mismatch (Reply " + (peerToPeer ? "" : "without A, ")
                        + "RTR " + p2p + ")");
                return false;
            }
            rtr = "READ";
            // The adapter's Read RTR: non-zero STags of our own choosing (firmware, not in the driver).
            send(readRequest(0x100, 0, 0, 0x100, 0));
        } else {
            if (!peerToPeer) {
                reset("irdma: MPA Reply without peer-to-peer (flag A)");
                return false;
            }
            if (responderIrd == 0 && (ordHalf & D) != 0) {
                reset("irdma: Read RTR offered with IRD 0");
                return false;
            }
            ord = Math.min(ord, responderIrd);
            if (ird < responderOrd) {
                reset("irdma: Responder ORD above our IRD");
                return false;
            }
            if ((ordHalf & D) != 0) {
                rtr = "READ";
                send(readRequest(0xabcd, 0, 0, 0x1234, 0)); // irdma_sc_send_rtt, read
            } else if ((ordHalf & C) != 0) {
                rtr = "WRITE";
                send(Hex.decode("c140 00000000 00000000 00000000")); // irdma_sc_send_rtt: STag 0
                return true;
            } else {
                reset("irdma: no RTR in the Reply");
                return false;
            }
        }
        byte[] response = take();
        check(response != null && response.length == 14 && (response[1] & 0x0F) == 2,
                "the Read RTR got no zero-length Read Response");
        return true;
    }

    private void writeFrame(byte[] key, int flags, int irdHalf, int ordHalf) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(24).put(key).put((byte) flags).put((byte) 2).putShort((short) 4)
                .putShort((short) irdHalf).putShort((short) ordHalf);
        out.write(frame.array());
        out.flush();
    }

    // ---------------------------------------------------------------- FPDUs and RDMAP

    /** A Read Request ULPDU on QN 1 with this peer's next MSN (RFC 5040 §4.4). */
    byte[] readRequest(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return ByteBuffer.allocate(46).put((byte) 0x41).put((byte) 0x41).putInt(0).putInt(1).putInt(readMsn++)
                .putInt(0).putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag).putLong(sourceTo).array();
    }

    /** A Send ULPDU on QN 0 with this peer's next MSN (RFC 5040 §4.3). */
    byte[] sendMessage(byte[] payload) {
        return ByteBuffer.allocate(18 + payload.length).put((byte) 0x41).put((byte) 0x43).putInt(0).putInt(0)
                .putInt(sendMsn++).putInt(0).put(payload).array();
    }

    static byte[] tagged(int opcode, int stag, long to, byte[] payload) {
        return ByteBuffer.allocate(14 + payload.length).put((byte) 0xc1).put((byte) (0x40 | opcode)).putInt(stag)
                .putLong(to).put(payload).array();
    }

    /** Sends one ULPDU as one FPDU: length, ULPDU, pad to 4, CRC32c of all that (RFC 5044 §4.1). */
    void send(byte[] ulpdu) throws IOException {
        int pad = (4 - (2 + ulpdu.length) % 4) % 4;
        ByteBuffer fpdu = ByteBuffer.allocate(2 + ulpdu.length + pad + 4).putShort((short) ulpdu.length).put(ulpdu);
        fpdu.position(fpdu.position() + pad);
        CRC32C crc = new CRC32C();
        crc.update(fpdu.array(), 0, fpdu.position());
        fpdu.putInt(Integer.reverseBytes((int) crc.getValue())); // least-significant octet first
        out.write(fpdu.array());
        out.flush();
    }

    /**
     * The next ULPDU, CRC checked, or {@code null} at end of stream. Zero-length RDMA Writes (our
     * wake-up Write) are recorded in {@link #zeroLengthWrites} and skipped. The profile's STag rule
     * applies first: a Chelsio-like peer Terminates and closes on STag 0.
     */
    byte[] take() throws IOException {
        return take(true);
    }

    private byte[] take(boolean skipZeroLengthWrites) throws IOException {
        while (true) {
            int length;
            try {
                length = in.readUnsignedShort();
            } catch (EOFException e) {
                return null;
            }
            int pad = (4 - (2 + length) % 4) % 4;
            int fpdu = 2 + length + pad + 4;
            largestFpdu = Math.max(largestFpdu, fpdu);
            // RFC 5044 §4.5: one FPDU per TCP segment of the peer's path, as its hardware expects.
            check(fpdu <= profile.maxFpdu, "FPDU of " + fpdu + " octets is above the " + profile.maxFpdu
                    + " that " + profile + " takes");
            byte[] rest = in.readNBytes(length + pad + 4);
            check(rest.length == length + pad + 4, "FPDU cut short");
            CRC32C crc = new CRC32C();
            crc.update(new byte[] {(byte) (length >> 8), (byte) length});
            crc.update(rest, 0, length + pad);
            check(Integer.reverseBytes((int) crc.getValue()) == ByteBuffer.wrap(rest, length + pad, 4).getInt(),
                    "CRC error");
            byte[] ulpdu = java.util.Arrays.copyOf(rest, length);
            if ((profile == Profile.CHELSIO || profile == Profile.CHELSIO_NO_P2P) && stagZero(ulpdu)) {
                // DDP, tagged buffer error, invalid STag (RFC 5041 §7.2: 0x1/0x1/0x00).
                terminate(0x11, 0x00, "cxgb4: tagged message with STag 0: " + Hex.encode(ulpdu));
                return null;
            }
            if (skipZeroLengthWrites && (ulpdu[0] & 0x80) != 0 && (ulpdu[1] & 0x0F) == 0 && ulpdu.length == 14) {
                zeroLengthWrites.add(ulpdu);
                continue;
            }
            return ulpdu;
        }
    }

    private static boolean stagZero(byte[] ulpdu) {
        ByteBuffer b = ByteBuffer.wrap(ulpdu);
        if ((ulpdu[0] & 0x80) != 0) {
            return b.getInt(2) == 0;
        }
        return (ulpdu[1] & 0x0F) == 1 && ulpdu.length >= 46 && b.getInt(34) == 0; // Read Request source STag
    }

    /** Sends a Terminate (RFC 5040 §4.8; no headers echoed) and closes, as the driver does. */
    private void terminate(int layerAndType, int code, String why) throws IOException {
        rejection = why;
        send(ByteBuffer.allocate(22).put((byte) 0x41).put((byte) 0x47).putInt(0).putInt(2).putInt(terminateMsn++)
                .putInt(0).put((byte) layerAndType).put((byte) code).putShort((short) 0).array());
        socket.close();
    }

    /** Drops the connection with a TCP reset, as irdma does on a startup frame it cannot parse. */
    private void reset(String why) throws IOException {
        rejection = why;
        socket.setSoLinger(true, 0);
        socket.close();
    }

    /**
     * Clean close from the other side: everything up to the RNIC's FIN must have been taken; no
     * Terminate may come. Then this peer closes too.
     */
    void expectOrderlyClose() throws IOException {
        byte[] more = take();
        check(more == null, "expected the RNIC's FIN, got " + (more == null ? "" : Hex.encode(more)));
        socket.close();
    }

    boolean isClosed() {
        return socket == null || socket.isClosed();
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
        }
        if (server != null) {
            server.close();
        }
    }

}
