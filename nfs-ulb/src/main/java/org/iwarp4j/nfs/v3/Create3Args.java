package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * CREATE3args (RFC 1813 §3.3.8): where, and createhow3 — UNCHECKED or GUARDED with attributes,
 * or EXCLUSIVE with an 8-octet verifier (carried as a long).
 */
public record Create3Args(DirOpArgs3 where, CreateMode3 mode, Sattr3 objAttributes, long verf) {

    public Create3Args {
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(mode, "mode");
        if (mode != CreateMode3.EXCLUSIVE) {
            Objects.requireNonNull(objAttributes, "objAttributes");
        }
    }

    public static Create3Args unchecked(DirOpArgs3 where, Sattr3 attributes) {
        return new Create3Args(where, CreateMode3.UNCHECKED, attributes, 0);
    }

    public static Create3Args guarded(DirOpArgs3 where, Sattr3 attributes) {
        return new Create3Args(where, CreateMode3.GUARDED, attributes, 0);
    }

    public static Create3Args exclusive(DirOpArgs3 where, long verf) {
        return new Create3Args(where, CreateMode3.EXCLUSIVE, null, verf);
    }

    public static Create3Args decode(XdrDecoder in) {
        DirOpArgs3 where = DirOpArgs3.decode(in);
        CreateMode3 mode = CreateMode3.of(in.readEnum());
        return mode == CreateMode3.EXCLUSIVE ? exclusive(where, in.readHyper())
                : new Create3Args(where, mode, Sattr3.decode(in), 0);
    }

    public void encode(XdrEncoder out) {
        where.encode(out);
        out.writeEnum(mode.value());
        if (mode == CreateMode3.EXCLUSIVE) {
            out.writeHyper(verf);
        } else {
            objAttributes.encode(out);
        }
    }
}
