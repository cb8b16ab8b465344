package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** RENAME3args (RFC 1813 §3.3.14). */
public record Rename3Args(DirOpArgs3 from, DirOpArgs3 to) {

    public Rename3Args {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
    }

    public static Rename3Args decode(XdrDecoder in) {
        return new Rename3Args(DirOpArgs3.decode(in), DirOpArgs3.decode(in));
    }

    public void encode(XdrEncoder out) {
        from.encode(out);
        to.encode(out);
    }
}
