package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** ACCESS3args (RFC 1813 §3.3.4): the object and the ACCESS3_* bits to check. */
public record Access3Args(NfsFh3 object, int access) {

    public Access3Args {
        Objects.requireNonNull(object, "object");
    }

    public static Access3Args decode(XdrDecoder in) {
        return new Access3Args(NfsFh3.decode(in), in.readInt());
    }

    public void encode(XdrEncoder out) {
        object.encode(out);
        out.writeInt(access);
    }
}
