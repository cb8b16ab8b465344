package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.ENHANCED_DATA_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.MAX_PRIVATE_DATA;

import java.util.Arrays;

/**
 * An MPA Request or Reply frame (RFC 5044 §7.1.1, RFC 6581 §6), immutable. The private data is
 * held as the whole PD_Length octets of the wire, including the RFC 6581 word when {@link
 * #enhanced()} is set; {@link #ulpPrivateData()} gives the part that belongs to the ULP.
 */
public final class MpaStartupFrame {

    private final boolean request;
    private final boolean markers;
    private final boolean crc;
    private final boolean reject;
    private final boolean enhanced;
    private final int reservedBits;
    private final int revision;
    private final byte[] privateData;

    private MpaStartupFrame(boolean request, boolean markers, boolean crc, boolean reject, boolean enhanced,
                            int reservedBits, int revision, byte[] privateData) {
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data is at most 512 octets: " + privateData.length);
        }
        if (enhanced && privateData.length < ENHANCED_DATA_LENGTH) {
            throw new IllegalArgumentException("an enhanced frame's private data starts with the IRD/ORD word");
        }
        if (revision < 0 || revision > 0xFF) {
            throw new IllegalArgumentException("revision is one octet: " + revision);
        }
        this.request = request;
        this.markers = markers;
        this.crc = crc;
        this.reject = reject;
        this.enhanced = enhanced;
        this.reservedBits = reservedBits & 0x0F;
        this.revision = revision;
        this.privateData = privateData;
    }

    /** A Request frame. {@code ulpPrivateData} is prefixed with {@code enhancedData} if that is not null. */
    public static MpaStartupFrame request(boolean markers, boolean crc, int revision,
                                          EnhancedConnectionData enhancedData, byte[] ulpPrivateData) {
        return new MpaStartupFrame(true, markers, crc, false, enhancedData != null, 0, revision,
                join(enhancedData, ulpPrivateData));
    }

    /** A Reply frame; {@code reject} sets R. */
    public static MpaStartupFrame reply(boolean markers, boolean crc, boolean reject, int revision,
                                        EnhancedConnectionData enhancedData, byte[] ulpPrivateData) {
        return new MpaStartupFrame(false, markers, crc, reject, enhancedData != null, 0, revision,
                join(enhancedData, ulpPrivateData));
    }

    /**
     * A frame exactly as decoded from the wire.
     *
     * @param flags byte 16 of the frame; S counts only at revision 2 or higher, below it is a
     *     reserved bit (RFC 5044 §7.1.1, MPA-R-049)
     * @param privateData the PD_Length octets that followed; not copied
     */
    public static MpaStartupFrame fromWire(boolean request, int flags, int revision, byte[] privateData) {
        return new MpaStartupFrame(request, (flags & MpaConstants.FLAG_MARKERS) != 0,
                (flags & MpaConstants.FLAG_CRC) != 0, (flags & MpaConstants.FLAG_REJECT) != 0,
                (flags & MpaConstants.FLAG_ENHANCED) != 0 && revision >= MpaConstants.REVISION_2,
                flags, revision, privateData);
    }

    private static byte[] join(EnhancedConnectionData enhancedData, byte[] ulpPrivateData) {
        if (enhancedData == null) {
            return ulpPrivateData.clone();
        }
        byte[] pd = new byte[ENHANCED_DATA_LENGTH + ulpPrivateData.length];
        int word = enhancedData.encode();
        pd[0] = (byte) (word >>> 24);
        pd[1] = (byte) (word >>> 16);
        pd[2] = (byte) (word >>> 8);
        pd[3] = (byte) word;
        System.arraycopy(ulpPrivateData, 0, pd, ENHANCED_DATA_LENGTH, ulpPrivateData.length);
        return pd;
    }

    /** {@code true} for a Request (key {@code MPA ID Req Frame}), {@code false} for a Reply. */
    public boolean isRequest() {
        return request;
    }

    /** M: the sender requires markers in the FPDUs sent to it. */
    public boolean markers() {
        return markers;
    }

    /** C: the sender wants CRC. */
    public boolean crc() {
        return crc;
    }

    /** R: a Reply that rejects the connection. */
    public boolean reject() {
        return reject;
    }

    /** S: the private data starts with the RFC 6581 IRD/ORD word. */
    public boolean enhanced() {
        return enhanced;
    }

    /** Byte 16 as it is sent: M, C, R, S and the low reserved bits as received. */
    public int flags() {
        return (markers ? MpaConstants.FLAG_MARKERS : 0) | (crc ? MpaConstants.FLAG_CRC : 0)
                | (reject ? MpaConstants.FLAG_REJECT : 0) | (enhanced ? MpaConstants.FLAG_ENHANCED : 0)
                | reservedBits;
    }

    /** Byte 17, the MPA revision. */
    public int revision() {
        return revision;
    }

    /** PD_Length: octets of private data on the wire. */
    public int privateDataLength() {
        return privateData.length;
    }

    /** All PD_Length octets, a copy. */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** The RFC 6581 word, or {@code null} when the frame is not enhanced. */
    public EnhancedConnectionData enhancedData() {
        if (!enhanced) {
            return null;
        }
        int word = (privateData[0] & 0xFF) << 24 | (privateData[1] & 0xFF) << 16
                | (privateData[2] & 0xFF) << 8 | privateData[3] & 0xFF;
        return EnhancedConnectionData.decode(word);
    }

    /** The private data that belongs to the ULP: without the RFC 6581 word (MPA2-R-016). */
    public byte[] ulpPrivateData() {
        return enhanced ? Arrays.copyOfRange(privateData, ENHANCED_DATA_LENGTH, privateData.length)
                : privateData.clone();
    }

    @Override
    public String toString() {
        return "MpaStartupFrame{" + (request ? "Request" : "Reply") + " rev " + revision
                + (markers ? " M" : "") + (crc ? " C" : "") + (reject ? " R" : "") + (enhanced ? " S" : "")
                + " PD_Length " + privateData.length + (enhanced ? " " + enhancedData() : "") + '}';
    }
}
