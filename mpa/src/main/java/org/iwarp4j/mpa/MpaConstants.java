package org.iwarp4j.mpa;

import java.nio.charset.StandardCharsets;

/**
 * The numbers of RFC 5044 and RFC 6581, in the order the RFCs give them.
 *
 * <p>Byte arrays are returned as copies so that no caller can change them.
 */
public final class MpaConstants {

    /** Octets between markers in one direction's TCP stream (RFC 5044 §4.3). */
    public static final int MARKER_INTERVAL = 512;
    /** Octets of one marker: 2 reserved + 2 FPDUPTR (RFC 5044 §4.2). */
    public static final int MARKER_LENGTH = 4;
    /** Octets of the ULPDU_Length field (RFC 5044 §4.1). */
    public static final int ULPDU_LENGTH_FIELD = 2;
    /** Octets of the CRC field, present in every FPDU even when CRC is not in use (RFC 5044 §4.1). */
    public static final int CRC_LENGTH = 4;
    /** Smallest MULPDU MPA may report (RFC 5044 §3, §4.5). */
    public static final int MIN_MULPDU = 128;
    /** Largest ULPDU DDP may post, whatever the EMSS (RFC 5044 §3). */
    public static final int MAX_ULPDU = 64768;
    /** Largest value the ULPDU_Length field can carry. */
    public static final int MAX_ULPDU_LENGTH_FIELD = 0xFFFF;

    /** Octets before the private data of a Request or Reply frame (RFC 5044 §7.1.1). */
    public static final int STARTUP_FRAME_HEADER_LENGTH = 20;
    /** Octets of the key that starts a Request or Reply frame (RFC 5044 §7.1.1). */
    public static final int KEY_LENGTH = 16;
    /** Largest private data in a Request or Reply frame (RFC 5044 §7.1.1). */
    public static final int MAX_PRIVATE_DATA = 512;

    /** Byte 16 of a startup frame: M, the sender requires markers in FPDUs sent to it. */
    public static final int FLAG_MARKERS = 0x80;
    /** Byte 16: C, the sender prefers CRC; either side's C=1 turns CRC on both ways. */
    public static final int FLAG_CRC = 0x40;
    /** Byte 16: R, in a Reply 1 = reject. */
    public static final int FLAG_REJECT = 0x20;
    /** Byte 16: S, "enhanced" — the private data begins with the IRD/ORD word (RFC 6581 §6). */
    public static final int FLAG_ENHANCED = 0x10;

    /** MPA revision of RFC 5044. */
    public static final int REVISION_1 = 1;
    /** MPA revision of RFC 6581 (enhanced connection establishment). */
    public static final int REVISION_2 = 2;

    /** Octets of the RFC 6581 IRD/ORD word at the start of enhanced private data (§9). */
    public static final int ENHANCED_DATA_LENGTH = 4;
    /** Largest IRD or ORD: 14 bits (RFC 6581 §9). */
    public static final int MAX_IRD_ORD = 0x3FFF;
    /** IRD or ORD value that turns automatic negotiation off (RFC 6581 §9.1). */
    public static final int IRD_ORD_NO_NEGOTIATION = 0x3FFF;
    /** IRD half: A, peer-to-peer connection model (RFC 6581 §9). */
    public static final int FLAG_PEER_TO_PEER = 0x8000;
    /** IRD half: B, zero-length Send RTR (RFC 6581 §9). */
    public static final int FLAG_RTR_SEND = 0x4000;
    /** ORD half: C, zero-length RDMA Write RTR (RFC 6581 §9). */
    public static final int FLAG_RTR_WRITE = 0x8000;
    /** ORD half: D, zero-length RDMA Read RTR (RFC 6581 §9). */
    public static final int FLAG_RTR_READ = 0x4000;

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    private MpaConstants() {
    }

    /** The 16-octet key of a Request frame, {@code MPA ID Req Frame}. */
    public static byte[] requestKey() {
        return REQUEST_KEY.clone();
    }

    /** The 16-octet key of a Reply frame, {@code MPA ID Rep Frame}. */
    public static byte[] replyKey() {
        return REPLY_KEY.clone();
    }

    static byte keyByte(boolean request, int index) {
        return request ? REQUEST_KEY[index] : REPLY_KEY[index];
    }
}
