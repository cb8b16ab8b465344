package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * READDIRPLUS3args (RFC 1813 §3.3.17): dircount bounds the octets of the entries' directory
 * information (fileid, name, cookie), maxcount the whole READDIRPLUS3resok.
 */
public record Readdirplus3Args(NfsFh3 dir, long cookie, long cookieverf, long dircount, long maxcount) {

    public Readdirplus3Args {
        Objects.requireNonNull(dir, "dir");
    }

    public static Readdirplus3Args decode(XdrDecoder in) {
        return new Readdirplus3Args(NfsFh3.decode(in), in.readHyper(), in.readHyper(), in.readUnsignedInt(),
                in.readUnsignedInt());
    }

    public void encode(XdrEncoder out) {
        dir.encode(out);
        out.writeHyper(cookie).writeHyper(cookieverf).writeUnsignedInt(dircount).writeUnsignedInt(maxcount);
    }
}
