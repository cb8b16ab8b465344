package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** PATHCONF3res (RFC 1813 §3.3.20). */
public record Pathconf3Res(Nfs3Status status, Fattr3 objAttributes, long linkmax, long nameMax, boolean noTrunc,
                           boolean chownRestricted, boolean caseInsensitive, boolean casePreserving) {

    public Pathconf3Res {
        Objects.requireNonNull(status, "status");
    }

    public static Pathconf3Res fail(Nfs3Status status, Fattr3 objAttributes) {
        return new Pathconf3Res(status, objAttributes, 0, 0, false, false, false, false);
    }

    public static Pathconf3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        Fattr3 attrs = Fattr3.decodePostOpAttr(in);
        if (!status.isOk()) {
            return fail(status, attrs);
        }
        return new Pathconf3Res(status, attrs, in.readUnsignedInt(), in.readUnsignedInt(), in.readBoolean(),
                in.readBoolean(), in.readBoolean(), in.readBoolean());
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, objAttributes);
        if (status.isOk()) {
            out.writeUnsignedInt(linkmax).writeUnsignedInt(nameMax).writeBoolean(noTrunc)
                    .writeBoolean(chownRestricted).writeBoolean(caseInsensitive).writeBoolean(casePreserving);
        }
    }
}
