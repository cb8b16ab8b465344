package org.iwarp4j.nfs.v3;

import java.util.Arrays;
import java.util.HexFormat;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * nfs_fh3 (RFC 1813 §2.5): an opaque file handle of at most {@link Nfs3Constants#NFS3_FHSIZE}
 * octets. Only the server that issued it interprets it.
 */
public final class NfsFh3 {

    private final byte[] data;

    /** A handle of these octets (copied); at most 64. */
    public NfsFh3(byte[] data) {
        if (data.length > Nfs3Constants.NFS3_FHSIZE) {
            throw new IllegalArgumentException("nfs_fh3 of " + data.length + " octets exceeds " + Nfs3Constants.NFS3_FHSIZE);
        }
        this.data = data.clone();
    }

    /** A copy of the octets. */
    public byte[] data() {
        return data.clone();
    }

    public int length() {
        return data.length;
    }

    public static NfsFh3 decode(XdrDecoder in) {
        byte[] octets = in.readOpaque(Nfs3Constants.NFS3_FHSIZE);
        return new NfsFh3(octets);
    }

    public void encode(XdrEncoder out) {
        out.writeOpaque(data, Nfs3Constants.NFS3_FHSIZE);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NfsFh3 other && Arrays.equals(data, other.data);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "fh:" + HexFormat.of().formatHex(data);
    }
}
