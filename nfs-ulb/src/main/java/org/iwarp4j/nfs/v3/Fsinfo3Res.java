package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * FSINFO3res (RFC 1813 §3.3.19): the largest and preferred READ and WRITE sizes and their
 * multiples, the preferred READDIR size, the largest file, the time granularity, and the FSF3_*
 * properties.
 */
public record Fsinfo3Res(Nfs3Status status, Fattr3 objAttributes, long rtmax, long rtpref, long rtmult,
                         long wtmax, long wtpref, long wtmult, long dtpref, long maxfilesize, NfsTime3 timeDelta,
                         int properties) {

    public Fsinfo3Res {
        Objects.requireNonNull(status, "status");
        if (status.isOk()) {
            Objects.requireNonNull(timeDelta, "timeDelta");
        }
    }

    public static Fsinfo3Res fail(Nfs3Status status, Fattr3 objAttributes) {
        return new Fsinfo3Res(status, objAttributes, 0, 0, 0, 0, 0, 0, 0, 0, null, 0);
    }

    public static Fsinfo3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        Fattr3 attrs = Fattr3.decodePostOpAttr(in);
        if (!status.isOk()) {
            return fail(status, attrs);
        }
        return new Fsinfo3Res(status, attrs, in.readUnsignedInt(), in.readUnsignedInt(), in.readUnsignedInt(),
                in.readUnsignedInt(), in.readUnsignedInt(), in.readUnsignedInt(), in.readUnsignedInt(),
                in.readHyper(), NfsTime3.decode(in), in.readInt());
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, objAttributes);
        if (status.isOk()) {
            out.writeUnsignedInt(rtmax).writeUnsignedInt(rtpref).writeUnsignedInt(rtmult)
                    .writeUnsignedInt(wtmax).writeUnsignedInt(wtpref).writeUnsignedInt(wtmult)
                    .writeUnsignedInt(dtpref).writeHyper(maxfilesize);
            timeDelta.encode(out);
            out.writeInt(properties);
        }
    }
}
