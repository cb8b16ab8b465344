package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** LINK3args (RFC 1813 §3.3.15): the existing file and the new name for it. */
public record Link3Args(NfsFh3 file, DirOpArgs3 link) {

    public Link3Args {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(link, "link");
    }

    public static Link3Args decode(XdrDecoder in) {
        return new Link3Args(NfsFh3.decode(in), DirOpArgs3.decode(in));
    }

    public void encode(XdrEncoder out) {
        file.encode(out);
        link.encode(out);
    }
}
