package org.iwarp4j.conformance.decode.internal;

import java.util.List;

/**
 * One FPDU found in a direction's stream (RFC 5044 §4.1).
 *
 * @param start stream offset of its first octet (a marker in front of the length field included)
 * @param end stream offset after its CRC field
 * @param firstFrame the frame that carried its first octet
 * @param frame the frame that completed it
 * @param ulpdu the ULPDU (the DDP segment), markers removed
 * @param pad the pad octets
 * @param crcReceived the CRC field's value (sent least significant octet first)
 * @param crcComputed CRC32c over length field, markers, ULPDU and pad
 * @param markers the markers inside it, in stream order
 */
public record Fpdu(long start, long end, long firstFrame, long frame, byte[] ulpdu, byte[] pad, int crcReceived,
                   int crcComputed, List<Marker> markers) {

    /**
     * A marker (RFC 5044 §4.2) at stream offset {@code offset}.
     *
     * @param expectedPointer the FPDUPTR it should carry
     */
    public record Marker(long offset, int value, int expectedPointer) {
        public int pointer() {
            return value & 0xffff;
        }

        public int reserved() {
            return value >>> 16;
        }
    }

    public boolean crcMatches() {
        return crcReceived == crcComputed;
    }
}
