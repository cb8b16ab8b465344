package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** COMMIT3args (RFC 1813 §3.3.21): commit count octets from offset (count 0: to the end of the file). */
public record Commit3Args(NfsFh3 file, long offset, long count) {

    public Commit3Args {
        Objects.requireNonNull(file, "file");
    }

    public static Commit3Args decode(XdrDecoder in) {
        return new Commit3Args(NfsFh3.decode(in), in.readHyper(), in.readUnsignedInt());
    }

    public void encode(XdrEncoder out) {
        file.encode(out);
        out.writeHyper(offset).writeUnsignedInt(count);
    }
}
