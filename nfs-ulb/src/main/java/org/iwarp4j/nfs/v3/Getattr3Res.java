package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** GETATTR3res (RFC 1813 §3.3.1); the arguments are the object's nfs_fh3. */
public record Getattr3Res(Nfs3Status status, Fattr3 objAttributes) {

    public Getattr3Res {
        Objects.requireNonNull(status, "status");
        if (status.isOk()) {
            Objects.requireNonNull(objAttributes, "objAttributes");
        }
    }

    public static Getattr3Res fail(Nfs3Status status) {
        return new Getattr3Res(status, null);
    }

    public static Getattr3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        return new Getattr3Res(status, status.isOk() ? Fattr3.decode(in) : null);
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        if (status.isOk()) {
            objAttributes.encode(out);
        }
    }
}
