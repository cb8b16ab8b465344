package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * A result that is a status and one wcc_data in both arms: SETATTR3res (obj_wcc, §3.3.2),
 * REMOVE3res and RMDIR3res (dir_wcc, §3.3.12, §3.3.13).
 */
public record WccRes3(Nfs3Status status, WccData wcc) {

    public WccRes3 {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(wcc, "wcc");
    }

    public static WccRes3 decode(XdrDecoder in) {
        return new WccRes3(Nfs3Status.of(in.readEnum()), WccData.decode(in));
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        wcc.encode(out);
    }
}
