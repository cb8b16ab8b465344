package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** ACCESS3res (RFC 1813 §3.3.4): the bits granted, of those asked. */
public record Access3Res(Nfs3Status status, Fattr3 objAttributes, int access) {

    public Access3Res {
        Objects.requireNonNull(status, "status");
    }

    public static Access3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        Fattr3 attrs = Fattr3.decodePostOpAttr(in);
        return new Access3Res(status, attrs, status.isOk() ? in.readInt() : 0);
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, objAttributes);
        if (status.isOk()) {
            out.writeInt(access);
        }
    }
}
