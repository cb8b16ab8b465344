package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** MKDIR3args (RFC 1813 §3.3.9); the result is a {@link Create3Res}. */
public record Mkdir3Args(DirOpArgs3 where, Sattr3 attributes) {

    public Mkdir3Args {
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(attributes, "attributes");
    }

    public static Mkdir3Args decode(XdrDecoder in) {
        return new Mkdir3Args(DirOpArgs3.decode(in), Sattr3.decode(in));
    }

    public void encode(XdrEncoder out) {
        where.encode(out);
        attributes.encode(out);
    }
}
