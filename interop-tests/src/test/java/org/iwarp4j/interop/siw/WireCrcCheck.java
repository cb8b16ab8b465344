package org.iwarp4j.interop.siw;

import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The CRC of every FPDU in one direction of a recorded MPA connection (RFC 5044 §6: no markers,
 * which siw never sends), recomputed from the octets as recorded before our decoder saw them.
 * When our decoder reports a CRC error on an FPDU from siw, this tells whose fault it is: an FPDU
 * whose recorded octets do not match its CRC arrived that way from the peer's TCP (the guest's
 * TCP checksums cover everything after siw), while a recording with only good CRCs means our
 * decoder was wrong.
 */
final class WireCrcCheck {

    /** RFC 5044 §7.1: "MPA ID Req Frame" or "MPA ID Rep Frame", M/C/R, Rev, PD_Length, private data. */
    private static final int STARTUP_HEADER = 20;
    private static final int CRC_LENGTH = 4;

    private WireCrcCheck() {
    }

    /**
     * Walks {@code stream} (one direction, from its startup frame on) FPDU by FPDU, checking each
     * CRC, up to the first FPDU whose CRC does not match its octets; an incomplete last FPDU (the
     * connection was cut) is left unchecked.
     *
     * @param writeBase the tagged offset our end advertised for the Writes' target, to tell whether
     *     a Write's payload is the pattern iwarp_peer meant to send
     */
    static Audit audit(byte[] stream, long writeBase, List<Integer> sizes) {
        if (stream.length < STARTUP_HEADER) {
            return new Audit(0, stream.length, Optional.empty());
        }
        int offset = STARTUP_HEADER + (((stream[18] & 0xff) << 8) | (stream[19] & 0xff));
        int fpduStream = offset;
        int good = 0;
        CRC32C crc = new CRC32C();
        while (offset + 2 <= stream.length) {
            int ulpduLength = ((stream[offset] & 0xff) << 8) | (stream[offset + 1] & 0xff);
            int preCrc = 2 + ulpduLength + (-(2 + ulpduLength) & 3);
            if (offset + preCrc + CRC_LENGTH > stream.length) {
                break;
            }
            crc.reset();
            crc.update(stream, offset, preCrc);
            int received = (stream[offset + preCrc] & 0xff) | (stream[offset + preCrc + 1] & 0xff) << 8
                    | (stream[offset + preCrc + 2] & 0xff) << 16 | (stream[offset + preCrc + 3] & 0xff) << 24;
            if ((int) crc.getValue() != received) {
                return new Audit(good, stream.length - offset, Optional.of(new BadFpdu(offset - fpduStream,
                        ulpduLength, received, (int) crc.getValue(), header(stream, offset + 2, ulpduLength),
                        payloadVerdict(stream, offset + 2, ulpduLength, writeBase, sizes))));
            }
            good++;
            offset += preCrc + CRC_LENGTH;
        }
        return new Audit(good, stream.length - offset, Optional.empty());
    }

    /** The DDP/RDMAP header in hex (RFC 5041 §4: 14 octets tagged, 18 untagged). */
    private static String header(byte[] stream, int ulpdu, int ulpduLength) {
        int length = Math.min(ulpduLength, headerLength(stream[ulpdu]));
        return HexFormat.of().formatHex(stream, ulpdu, ulpdu + length);
    }

    private static int headerLength(byte ddpControl) {
        return (ddpControl & 0x80) != 0 ? 14 : 18;
    }

    /**
     * Whether the payload is the pattern iwarp_peer sends for a Write (tagged, at TO minus {@code
     * writeBase}) or a Send (untagged, at its MO) of one of {@code sizes}: if it is, the octets are
     * what siw was asked to send and only its CRC is wrong.
     */
    private static String payloadVerdict(byte[] stream, int ulpdu, int ulpduLength, long writeBase, List<Integer> sizes) {
        boolean tagged = (stream[ulpdu] & 0x80) != 0;
        int headerLength = headerLength(stream[ulpdu]);
        if (ulpduLength < headerLength) {
            return "no payload";
        }
        long at = tagged ? readLong(stream, ulpdu + 6) - writeBase : readInt(stream, ulpdu + 14) & 0xffffffffL;
        Rendezvous.Op op = tagged ? Rendezvous.Op.WRITE : Rendezvous.Op.SEND;
        int payload = ulpdu + headerLength;
        int payloadLength = ulpduLength - headerLength;
        for (int size : sizes) {
            if (at < 0 || at + payloadLength > size) {
                continue;
            }
            boolean same = true;
            for (int i = 0; i < payloadLength && same; i++) {
                same = stream[payload + i] == TransferPattern.octet(op, size, at + i);
            }
            if (same) {
                return payloadLength + " payload octets are the " + op + " pattern of a " + size
                        + "-octet transfer at offset " + at;
            }
        }
        return payloadLength + " payload octets at offset " + at + " are not any " + op + " pattern of " + sizes;
    }

    private static long readLong(byte[] b, int i) {
        return ((long) readInt(b, i) << 32) | (readInt(b, i + 4) & 0xffffffffL);
    }

    private static int readInt(byte[] b, int i) {
        return (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | (b[i + 3] & 0xff);
    }

    /**
     * @param goodFpdus FPDUs whose CRC matched, before {@code firstBad} if there is one
     * @param unchecked octets after the last FPDU checked (an incomplete FPDU, or from the bad one on)
     */
    record Audit(int goodFpdus, int unchecked, Optional<BadFpdu> firstBad) {
    }

    /** An FPDU whose CRC field disagrees with its octets; {@code streamOffset} counts from the first FPDU. */
    record BadFpdu(long streamOffset, int ulpduLength, int receivedCrc, int computedCrc, String header,
            String payload) {

        @Override
        public String toString() {
            return String.format("FPDU at stream offset %d, ULPDU_Length %d, header %s, CRC field %08x, "
                    + "CRC of the recorded octets %08x; %s", streamOffset, ulpduLength, header, receivedCrc,
                    computedCrc, payload);
        }
    }
}
