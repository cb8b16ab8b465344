package org.iwarp4j.nfs.v4;

import java.util.Arrays;
import java.util.HexFormat;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * stateid4 (RFC 8881 §8.2): a 32-bit seqid and 12 octets the server chooses ("other"). The
 * special stateids of §8.2.3 are the all-zeros (anonymous), all-ones (READ bypass) and the
 * current stateid (seqid 1, other zero).
 */
public final class Stateid4 {

    public static final int LENGTH = 16;
    private static final byte[] ZERO_OTHER = new byte[12];
    private static final byte[] ONES_OTHER = filled((byte) 0xFF);

    public static final Stateid4 ANONYMOUS = new Stateid4(0, ZERO_OTHER);
    public static final Stateid4 READ_BYPASS = new Stateid4(0xFFFF_FFFF, ONES_OTHER);
    public static final Stateid4 CURRENT = new Stateid4(1, ZERO_OTHER);
    public static final Stateid4 INVALID = new Stateid4(0xFFFF_FFFF, ZERO_OTHER);

    private final int seqid;
    private final byte[] other;

    public Stateid4(int seqid, byte[] other) {
        if (other.length != 12) {
            throw new IllegalArgumentException("other of " + other.length + " octets");
        }
        this.seqid = seqid;
        this.other = other.clone();
    }

    private static byte[] filled(byte b) {
        byte[] a = new byte[12];
        Arrays.fill(a, b);
        return a;
    }

    public int seqid() {
        return seqid;
    }

    public byte[] other() {
        return other.clone();
    }

    /** Whether "other" is all zeros or all ones: one of the special stateids (RFC 8881 §8.2.3). */
    public boolean isSpecial() {
        return Arrays.equals(other, ZERO_OTHER) || Arrays.equals(other, ONES_OTHER);
    }

    public boolean isAnonymous() {
        return seqid == 0 && Arrays.equals(other, ZERO_OTHER);
    }

    public boolean isReadBypass() {
        return seqid == 0xFFFF_FFFF && Arrays.equals(other, ONES_OTHER);
    }

    public boolean isCurrent() {
        return seqid == 1 && Arrays.equals(other, ZERO_OTHER);
    }

    /** The same "other" with another seqid. */
    public Stateid4 withSeqid(int s) {
        return new Stateid4(s, other);
    }

    /** Whether the two name the same state, whatever their seqids. */
    public boolean sameOther(Stateid4 o) {
        return Arrays.equals(other, o.other);
    }

    public static Stateid4 decode(XdrDecoder in) {
        int seqid = in.readInt();
        return new Stateid4(seqid, in.readFixedOpaque(12));
    }

    public void encode(XdrEncoder out) {
        out.writeInt(seqid).writeFixedOpaque(other);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Stateid4 s && s.seqid == seqid && Arrays.equals(other, s.other);
    }

    @Override
    public int hashCode() {
        return 31 * seqid + Arrays.hashCode(other);
    }

    @Override
    public String toString() {
        return "Stateid4(" + Integer.toUnsignedString(seqid) + ", " + HexFormat.of().formatHex(other) + ")";
    }
}
