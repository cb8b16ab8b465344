package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * READDIR3args (RFC 1813 §3.3.16): where to continue (cookie 0 and cookieverf 0 to start), and
 * count, the largest READDIR3resok the client accepts in octets, XDR overhead included.
 */
public record Readdir3Args(NfsFh3 dir, long cookie, long cookieverf, long count) {

    public Readdir3Args {
        Objects.requireNonNull(dir, "dir");
    }

    public static Readdir3Args decode(XdrDecoder in) {
        return new Readdir3Args(NfsFh3.decode(in), in.readHyper(), in.readHyper(), in.readUnsignedInt());
    }

    public void encode(XdrEncoder out) {
        dir.encode(out);
        out.writeHyper(cookie).writeHyper(cookieverf).writeUnsignedInt(count);
    }
}
