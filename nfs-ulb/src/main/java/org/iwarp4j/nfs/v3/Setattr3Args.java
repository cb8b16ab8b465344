package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * SETATTR3args (RFC 1813 §3.3.2).
 *
 * @param guardCtime sattrguard3: when not null, the server sets nothing unless the object's ctime
 *                   equals it (NFS3ERR_NOT_SYNC otherwise)
 */
public record Setattr3Args(NfsFh3 object, Sattr3 newAttributes, NfsTime3 guardCtime) {

    public Setattr3Args {
        Objects.requireNonNull(object, "object");
        Objects.requireNonNull(newAttributes, "newAttributes");
    }

    public static Setattr3Args decode(XdrDecoder in) {
        return new Setattr3Args(NfsFh3.decode(in), Sattr3.decode(in), in.readOptional(NfsTime3::decode));
    }

    public void encode(XdrEncoder out) {
        object.encode(out);
        newAttributes.encode(out);
        out.writeOptional(guardCtime, (o, t) -> t.encode(o));
    }
}
