package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** RENAME3res (RFC 1813 §3.3.14): both directories' wcc_data in both arms. */
public record Rename3Res(Nfs3Status status, WccData fromdirWcc, WccData todirWcc) {

    public Rename3Res {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(fromdirWcc, "fromdirWcc");
        Objects.requireNonNull(todirWcc, "todirWcc");
    }

    public static Rename3Res decode(XdrDecoder in) {
        return new Rename3Res(Nfs3Status.of(in.readEnum()), WccData.decode(in), WccData.decode(in));
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        fromdirWcc.encode(out);
        todirWcc.encode(out);
    }
}
