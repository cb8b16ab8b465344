package org.iwarp4j.nfs.v3;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;

/**
 * WRITE3args (RFC 1813 §3.3.7). The data is the DDP-eligible argument of WRITE (RFC 8267 §4).
 * RFC 1813 lets count and the data's length differ (the server writes count octets); this
 * implementation requires them to be equal, as Linux sends them, and rejects the call otherwise.
 *
 * <p>Ownership: the arguments hold one reference to {@code data}; {@link #encode} hands it to the
 * encoder, {@link #release()} drops it; {@link #decode} returns arguments whose data the caller
 * releases.
 */
public record Write3Args(NfsFh3 file, long offset, long count, StableHow stable, ByteBuf data) {

    public Write3Args {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(stable, "stable");
        Objects.requireNonNull(data, "data");
    }

    /** Decodes WRITE3args whose data is at most {@code maxData} octets (the server's wtmax). */
    public static Write3Args decode(XdrDecoder in, int maxData) {
        NfsFh3 file = NfsFh3.decode(in);
        long offset = in.readHyper();
        long count = in.readUnsignedInt();
        StableHow stable = StableHow.of(in.readEnum());
        ByteBuf data = in.readDdpEligibleOpaque(maxData);
        if (data.readableBytes() != count) {
            data.release();
            throw new XdrException("WRITE3args count " + count + " but " + data.readableBytes() + " octets of data");
        }
        return new Write3Args(file, offset, count, stable, data);
    }

    /** Encodes the arguments; the data's reference goes to {@code out}. */
    public void encode(XdrEncoder out) {
        file.encode(out);
        out.writeHyper(offset).writeUnsignedInt(count).writeEnum(stable.value());
        out.writeDdpEligibleOpaque(data, Integer.MAX_VALUE);
    }

    public void release() {
        ReferenceCountUtil.release(data);
    }
}
