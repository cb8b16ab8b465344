package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** LINK3res (RFC 1813 §3.3.15): the file's post_op_attr and the directory's wcc_data in both arms. */
public record Link3Res(Nfs3Status status, Fattr3 fileAttributes, WccData linkdirWcc) {

    public Link3Res {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(linkdirWcc, "linkdirWcc");
    }

    public static Link3Res decode(XdrDecoder in) {
        return new Link3Res(Nfs3Status.of(in.readEnum()), Fattr3.decodePostOpAttr(in), WccData.decode(in));
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, fileAttributes);
        linkdirWcc.encode(out);
    }
}
