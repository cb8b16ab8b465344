package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * FSSTAT3res (RFC 1813 §3.3.18): total, free and available-to-the-caller octets and file slots;
 * invarsec, seconds during which these will not change (0: may change any time).
 */
public record Fsstat3Res(Nfs3Status status, Fattr3 objAttributes, long tbytes, long fbytes, long abytes,
                         long tfiles, long ffiles, long afiles, long invarsec) {

    public Fsstat3Res {
        Objects.requireNonNull(status, "status");
    }

    public static Fsstat3Res fail(Nfs3Status status, Fattr3 objAttributes) {
        return new Fsstat3Res(status, objAttributes, 0, 0, 0, 0, 0, 0, 0);
    }

    public static Fsstat3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        Fattr3 attrs = Fattr3.decodePostOpAttr(in);
        if (!status.isOk()) {
            return fail(status, attrs);
        }
        return new Fsstat3Res(status, attrs, in.readHyper(), in.readHyper(), in.readHyper(), in.readHyper(),
                in.readHyper(), in.readHyper(), in.readUnsignedInt());
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, objAttributes);
        if (status.isOk()) {
            out.writeHyper(tbytes).writeHyper(fbytes).writeHyper(abytes)
                    .writeHyper(tfiles).writeHyper(ffiles).writeHyper(afiles).writeUnsignedInt(invarsec);
        }
    }
}
