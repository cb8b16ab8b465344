package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** diropargs3 (RFC 1813 §2.6): a directory and a name in it. */
public record DirOpArgs3(NfsFh3 dir, String name) {

    public DirOpArgs3 {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(name, "name");
    }

    public static DirOpArgs3 decode(XdrDecoder in) {
        return new DirOpArgs3(NfsFh3.decode(in), in.readString(Nfs3Constants.MAX_DECODED_NAME));
    }

    public void encode(XdrEncoder out) {
        dir.encode(out);
        out.writeString(name, Nfs3Constants.MAX_DECODED_NAME);
    }
}
