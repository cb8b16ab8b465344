package org.iwarp4j.nfs.v3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * SYMLINK3args (RFC 1813 §3.3.10): where, and symlinkdata3 (attributes, the path the link holds).
 * The path is the DDP-eligible argument of SYMLINK (RFC 8267 §4); the result is a
 * {@link Create3Res}.
 */
public record Symlink3Args(DirOpArgs3 where, Sattr3 symlinkAttributes, String symlinkData) {

    public Symlink3Args {
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(symlinkAttributes, "symlinkAttributes");
        Objects.requireNonNull(symlinkData, "symlinkData");
    }

    public static Symlink3Args decode(XdrDecoder in) {
        DirOpArgs3 where = DirOpArgs3.decode(in);
        Sattr3 attributes = Sattr3.decode(in);
        ByteBuf path = in.readDdpEligibleOpaque(Nfs3Constants.MAX_DECODED_PATH);
        try {
            return new Symlink3Args(where, attributes, path.toString(StandardCharsets.UTF_8));
        } finally {
            path.release();
        }
    }

    public void encode(XdrEncoder out) {
        where.encode(out);
        symlinkAttributes.encode(out);
        out.writeDdpEligibleOpaque(Unpooled.wrappedBuffer(symlinkData.getBytes(StandardCharsets.UTF_8)),
                Nfs3Constants.MAX_DECODED_PATH);
    }
}
