package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** COMMIT3res (RFC 1813 §3.3.21): the file's wcc_data in both arms, the write verifier on success. */
public record Commit3Res(Nfs3Status status, WccData fileWcc, long verf) {

    public Commit3Res {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(fileWcc, "fileWcc");
    }

    public static Commit3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        WccData wcc = WccData.decode(in);
        return new Commit3Res(status, wcc, status.isOk() ? in.readHyper() : 0);
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        fileWcc.encode(out);
        if (status.isOk()) {
            out.writeHyper(verf);
        }
    }
}
