package org.iwarp4j.nfs.v4;

import java.util.Arrays;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * What precedes the operations of COMPOUND4args and the results of COMPOUND4res (RFC 8881
 * §16.2.1, §16.2.2): the tag (utf8str_cs, echoed by the server, at most
 * {@link Nfs4Constants#NFS4_OPAQUE_LIMIT} octets here), the minor version (arguments only) and
 * the number of operations or results. The arguments' header has {@code status} 0; the results'
 * header has {@code minorVersion} -1, as COMPOUND4res carries none.
 *
 * @param status the COMPOUND's status (results)
 * @param tag the tag's octets (copied)
 * @param minorVersion the minor version (arguments), -1 for results
 * @param count operations (arguments) or results
 */
public record Compound4Header(int status, byte[] tag, long minorVersion, long count) {

    public Compound4Header {
        tag = tag.clone();
    }

    @Override
    public byte[] tag() {
        return tag.clone();
    }

    /** The header of COMPOUND4args: tag, minorversion, the length of argarray. */
    public static Compound4Header decodeArgs(XdrDecoder in) {
        byte[] tag = in.readOpaque(Nfs4Constants.NFS4_OPAQUE_LIMIT);
        long minor = in.readUnsignedInt();
        long count = in.readUnsignedInt();
        return new Compound4Header(0, tag, minor, count);
    }

    /** The header of COMPOUND4res: status, tag, the length of resarray. */
    public static Compound4Header decodeRes(XdrDecoder in) {
        int status = in.readInt();
        byte[] tag = in.readOpaque(Nfs4Constants.NFS4_OPAQUE_LIMIT);
        return new Compound4Header(status, tag, -1, in.readUnsignedInt());
    }

    public void encodeArgs(XdrEncoder out) {
        out.writeOpaque(tag, Nfs4Constants.NFS4_OPAQUE_LIMIT).writeUnsignedInt(minorVersion).writeUnsignedInt(count);
    }

    public void encodeRes(XdrEncoder out) {
        out.writeInt(status).writeOpaque(tag, Nfs4Constants.NFS4_OPAQUE_LIMIT).writeUnsignedInt(count);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Compound4Header h && h.status == status && Arrays.equals(h.tag, tag)
                && h.minorVersion == minorVersion && h.count == count;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(tag) * 31 + Long.hashCode(count) + 17 * status + (int) minorVersion;
    }

    @Override
    public String toString() {
        return "Compound4Header(status " + status + ", tag of " + tag.length + " octets, minor " + minorVersion
                + ", count " + count + ")";
    }
}
