package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * WRITE3res (RFC 1813 §3.3.7): the wcc_data of the file in both arms; on success the octets
 * written, how far they were committed, and the server's write verifier, which changes when the
 * server may have lost uncommitted data (a restart), telling the client to write again. The
 * 8-octet verifier is carried as the long with the same big-endian octets.
 */
public record Write3Res(Nfs3Status status, WccData fileWcc, long count, StableHow committed, long verf) {

    public Write3Res {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(fileWcc, "fileWcc");
        if (status.isOk()) {
            Objects.requireNonNull(committed, "committed");
        }
    }

    public static Write3Res fail(Nfs3Status status, WccData fileWcc) {
        return new Write3Res(status, fileWcc, 0, null, 0);
    }

    public static Write3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        WccData wcc = WccData.decode(in);
        if (!status.isOk()) {
            return fail(status, wcc);
        }
        return new Write3Res(status, wcc, in.readUnsignedInt(), StableHow.of(in.readEnum()), in.readHyper());
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        fileWcc.encode(out);
        if (status.isOk()) {
            out.writeUnsignedInt(count).writeEnum(committed.value()).writeHyper(verf);
        }
    }
}
