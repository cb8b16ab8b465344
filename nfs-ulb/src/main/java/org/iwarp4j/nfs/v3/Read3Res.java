package org.iwarp4j.nfs.v3;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;

/**
 * READ3res (RFC 1813 §3.3.6). The data is the DDP-eligible result of READ (RFC 8267 §4).
 *
 * <p>Ownership: a result holds one reference to {@code data}; {@link #encode} hands it to the
 * encoder, {@link #release()} drops it. {@link #decode} returns a result whose data the caller
 * releases.
 */
public record Read3Res(Nfs3Status status, Fattr3 fileAttributes, long count, boolean eof, ByteBuf data) {

    public Read3Res {
        Objects.requireNonNull(status, "status");
        if (status.isOk()) {
            Objects.requireNonNull(data, "data");
        }
    }

    public static Read3Res fail(Nfs3Status status, Fattr3 fileAttributes) {
        return new Read3Res(status, fileAttributes, 0, false, null);
    }

    /**
     * Decodes a READ3res whose data is at most {@code maxData} octets (the count the client asked
     * for); the data comes from the Write chunk if the transport received it there.
     */
    public static Read3Res decode(XdrDecoder in, int maxData) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        Fattr3 attrs = Fattr3.decodePostOpAttr(in);
        if (!status.isOk()) {
            return fail(status, attrs);
        }
        long count = in.readUnsignedInt();
        boolean eof = in.readBoolean();
        ByteBuf data = in.readDdpEligibleOpaque(maxData);
        if (data.readableBytes() != count) {
            data.release();
            throw new XdrException("READ3resok count " + count + " but " + data.readableBytes() + " octets of data");
        }
        return new Read3Res(status, attrs, count, eof, data);
    }

    /** Encodes the result; the data's reference goes to {@code out}. */
    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, fileAttributes);
        if (status.isOk()) {
            out.writeUnsignedInt(count).writeBoolean(eof);
            out.writeDdpEligibleOpaque(data, Integer.MAX_VALUE);
        }
    }

    /** Releases the data, if any. */
    public void release() {
        ReferenceCountUtil.release(data);
    }
}
