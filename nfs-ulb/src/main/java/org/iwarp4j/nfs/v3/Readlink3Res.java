package org.iwarp4j.nfs.v3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * READLINK3res (RFC 1813 §3.3.5); the arguments are the symlink's nfs_fh3. The path is the
 * DDP-eligible result of READLINK (RFC 8267 §4): it is encoded as a DDP-eligible piece and
 * decoded from a Write chunk when it arrived in one.
 */
public record Readlink3Res(Nfs3Status status, Fattr3 symlinkAttributes, String data) {

    public Readlink3Res {
        Objects.requireNonNull(status, "status");
        if (status.isOk()) {
            Objects.requireNonNull(data, "data");
        }
    }

    public static Readlink3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        Fattr3 attrs = Fattr3.decodePostOpAttr(in);
        if (!status.isOk()) {
            return new Readlink3Res(status, attrs, null);
        }
        ByteBuf path = in.readDdpEligibleOpaque(Nfs3Constants.MAX_DECODED_PATH);
        try {
            return new Readlink3Res(status, attrs, path.toString(StandardCharsets.UTF_8));
        } finally {
            path.release();
        }
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, symlinkAttributes);
        if (status.isOk()) {
            out.writeDdpEligibleOpaque(Unpooled.wrappedBuffer(data.getBytes(StandardCharsets.UTF_8)),
                    Nfs3Constants.MAX_DECODED_PATH);
        }
    }
}
