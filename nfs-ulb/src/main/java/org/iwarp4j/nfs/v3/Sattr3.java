package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * sattr3 (RFC 1813 §2.6): the attributes a client sets; a null field is not set.
 *
 * @param mode permission bits, or null
 * @param uid owner, or null
 * @param gid group, or null
 * @param size new size (truncate or extend), or null
 * @param atime what to do with the access time
 * @param mtime what to do with the modification time
 */
public record Sattr3(Integer mode, Integer uid, Integer gid, Long size, SetTime3 atime, SetTime3 mtime) {

    /** Sets nothing. */
    public static final Sattr3 NONE = new Sattr3(null, null, null, null, SetTime3.DONT_CHANGE, SetTime3.DONT_CHANGE);

    public Sattr3 {
        Objects.requireNonNull(atime, "atime");
        Objects.requireNonNull(mtime, "mtime");
    }

    /** Sets only the mode. */
    public static Sattr3 mode(int mode) {
        return new Sattr3(mode, null, null, null, SetTime3.DONT_CHANGE, SetTime3.DONT_CHANGE);
    }

    /** Sets only the size. */
    public static Sattr3 size(long size) {
        return new Sattr3(null, null, null, size, SetTime3.DONT_CHANGE, SetTime3.DONT_CHANGE);
    }

    public static Sattr3 decode(XdrDecoder in) {
        Integer mode = in.readBoolean() ? in.readInt() : null;
        Integer uid = in.readBoolean() ? in.readInt() : null;
        Integer gid = in.readBoolean() ? in.readInt() : null;
        Long size = in.readBoolean() ? in.readHyper() : null;
        return new Sattr3(mode, uid, gid, size, SetTime3.decode(in), SetTime3.decode(in));
    }

    public void encode(XdrEncoder out) {
        out.writeOptional(mode, XdrEncoder::writeInt);
        out.writeOptional(uid, XdrEncoder::writeInt);
        out.writeOptional(gid, XdrEncoder::writeInt);
        out.writeOptional(size, XdrEncoder::writeHyper);
        atime.encode(out);
        mtime.encode(out);
    }
}
