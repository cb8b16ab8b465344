package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * CREATE3res (RFC 1813 §3.3.8); MKDIR3res, SYMLINK3res and MKNOD3res have the same shape
 * (§3.3.9-§3.3.11): on success post_op_fh3, post_op_attr and the directory's wcc_data; on failure
 * the directory's wcc_data.
 */
public record Create3Res(Nfs3Status status, NfsFh3 obj, Fattr3 objAttributes, WccData dirWcc) {

    public Create3Res {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(dirWcc, "dirWcc");
    }

    public static Create3Res fail(Nfs3Status status, WccData dirWcc) {
        return new Create3Res(status, null, null, dirWcc);
    }

    public static Create3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        if (!status.isOk()) {
            return fail(status, WccData.decode(in));
        }
        return new Create3Res(status, in.readOptional(NfsFh3::decode), Fattr3.decodePostOpAttr(in), WccData.decode(in));
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        if (status.isOk()) {
            out.writeOptional(obj, (o, fh) -> fh.encode(o));
            Fattr3.encodePostOpAttr(out, objAttributes);
        }
        dirWcc.encode(out);
    }
}
