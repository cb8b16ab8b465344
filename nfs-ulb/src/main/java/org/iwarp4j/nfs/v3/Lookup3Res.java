package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** LOOKUP3res (RFC 1813 §3.3.3); the arguments are a {@link DirOpArgs3}. */
public record Lookup3Res(Nfs3Status status, NfsFh3 object, Fattr3 objAttributes, Fattr3 dirAttributes) {

    public Lookup3Res {
        Objects.requireNonNull(status, "status");
        if (status.isOk()) {
            Objects.requireNonNull(object, "object");
        }
    }

    public static Lookup3Res fail(Nfs3Status status, Fattr3 dirAttributes) {
        return new Lookup3Res(status, null, null, dirAttributes);
    }

    public static Lookup3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        if (!status.isOk()) {
            return fail(status, Fattr3.decodePostOpAttr(in));
        }
        return new Lookup3Res(status, NfsFh3.decode(in), Fattr3.decodePostOpAttr(in), Fattr3.decodePostOpAttr(in));
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        if (status.isOk()) {
            object.encode(out);
            Fattr3.encodePostOpAttr(out, objAttributes);
        }
        Fattr3.encodePostOpAttr(out, dirAttributes);
    }
}
