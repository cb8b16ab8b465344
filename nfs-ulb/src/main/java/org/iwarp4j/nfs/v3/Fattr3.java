package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * fattr3 (RFC 1813 §2.6): the attributes of a file, 84 octets on the wire. uid, gid, mode and
 * nlink are unsigned 32-bit values carried in ints; sizes and ids are unsigned 64-bit values in
 * longs.
 */
public record Fattr3(Ftype3 type, int mode, int nlink, int uid, int gid, long size, long used, SpecData3 rdev,
                     long fsid, long fileid, NfsTime3 atime, NfsTime3 mtime, NfsTime3 ctime) {

    /** Octets of an fattr3 on the wire. */
    public static final int LENGTH = 84;

    public Fattr3 {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(rdev, "rdev");
        Objects.requireNonNull(atime, "atime");
        Objects.requireNonNull(mtime, "mtime");
        Objects.requireNonNull(ctime, "ctime");
    }

    public static Fattr3 decode(XdrDecoder in) {
        return new Fattr3(Ftype3.of(in.readEnum()), in.readInt(), in.readInt(), in.readInt(), in.readInt(),
                in.readHyper(), in.readHyper(), SpecData3.decode(in), in.readHyper(), in.readHyper(),
                NfsTime3.decode(in), NfsTime3.decode(in), NfsTime3.decode(in));
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(type.value()).writeInt(mode).writeInt(nlink).writeInt(uid).writeInt(gid)
                .writeHyper(size).writeHyper(used);
        rdev.encode(out);
        out.writeHyper(fsid).writeHyper(fileid);
        atime.encode(out);
        mtime.encode(out);
        ctime.encode(out);
    }

    /** The pre-operation subset of these attributes (RFC 1813 §2.6 wcc_attr). */
    public WccAttr toWccAttr() {
        return new WccAttr(size, mtime, ctime);
    }

    /** post_op_attr: present flag, then the attributes if present. */
    public static Fattr3 decodePostOpAttr(XdrDecoder in) {
        return in.readOptional(Fattr3::decode);
    }

    /** post_op_attr: present flag, then the attributes if {@code attr} is not null. */
    public static void encodePostOpAttr(XdrEncoder out, Fattr3 attr) {
        out.writeOptional(attr, (o, a) -> a.encode(o));
    }
}
