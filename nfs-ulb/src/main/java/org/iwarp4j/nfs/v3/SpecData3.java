package org.iwarp4j.nfs.v3;

import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** specdata3 (RFC 1813 §2.6): major and minor device numbers. */
public record SpecData3(int specdata1, int specdata2) {

    public static final SpecData3 NONE = new SpecData3(0, 0);

    public static SpecData3 decode(XdrDecoder in) {
        return new SpecData3(in.readInt(), in.readInt());
    }

    public void encode(XdrEncoder out) {
        out.writeInt(specdata1).writeInt(specdata2);
    }
}
