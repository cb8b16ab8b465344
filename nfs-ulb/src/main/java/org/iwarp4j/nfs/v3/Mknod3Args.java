package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * MKNOD3args (RFC 1813 §3.3.11): where, and mknoddata3 — a device (NF3CHR, NF3BLK) with attributes
 * and device numbers, a socket or FIFO with attributes, or another type with nothing (the server
 * answers NFS3ERR_BADTYPE). The result is a {@link Create3Res}.
 */
public record Mknod3Args(DirOpArgs3 where, Ftype3 type, Sattr3 attributes, SpecData3 spec) {

    public Mknod3Args {
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(type, "type");
    }

    public static Mknod3Args decode(XdrDecoder in) {
        DirOpArgs3 where = DirOpArgs3.decode(in);
        Ftype3 type = Ftype3.of(in.readEnum());
        return switch (type) {
            case NF3CHR, NF3BLK -> new Mknod3Args(where, type, Sattr3.decode(in), SpecData3.decode(in));
            case NF3SOCK, NF3FIFO -> new Mknod3Args(where, type, Sattr3.decode(in), null);
            default -> new Mknod3Args(where, type, null, null);
        };
    }

    public void encode(XdrEncoder out) {
        where.encode(out);
        out.writeEnum(type.value());
        switch (type) {
            case NF3CHR, NF3BLK -> {
                attributes.encode(out);
                spec.encode(out);
            }
            case NF3SOCK, NF3FIFO -> attributes.encode(out);
            default -> { }
        }
    }
}
