package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** wcc_attr (RFC 1813 §2.6): size, mtime and ctime before an operation, for weak cache consistency. */
public record WccAttr(long size, NfsTime3 mtime, NfsTime3 ctime) {

    public WccAttr {
        Objects.requireNonNull(mtime, "mtime");
        Objects.requireNonNull(ctime, "ctime");
    }

    public static WccAttr decode(XdrDecoder in) {
        return new WccAttr(in.readHyper(), NfsTime3.decode(in), NfsTime3.decode(in));
    }

    public void encode(XdrEncoder out) {
        out.writeHyper(size);
        mtime.encode(out);
        ctime.encode(out);
    }
}
