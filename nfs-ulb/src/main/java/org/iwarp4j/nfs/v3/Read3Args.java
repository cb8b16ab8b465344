package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** READ3args (RFC 1813 §3.3.6). count is an unsigned 32-bit value. */
public record Read3Args(NfsFh3 file, long offset, long count) {

    public Read3Args {
        Objects.requireNonNull(file, "file");
        if (count < 0 || count > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("count3 out of range: " + count);
        }
    }

    public static Read3Args decode(XdrDecoder in) {
        return new Read3Args(NfsFh3.decode(in), in.readHyper(), in.readUnsignedInt());
    }

    public void encode(XdrEncoder out) {
        file.encode(out);
        out.writeHyper(offset).writeUnsignedInt(count);
    }
}
