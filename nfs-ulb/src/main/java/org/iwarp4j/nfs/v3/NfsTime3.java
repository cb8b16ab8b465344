package org.iwarp4j.nfs.v3;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * nfstime3 (RFC 1813 §2.6): unsigned seconds and nanoseconds since 1970-01-01 UTC.
 *
 * @param seconds 0 to 2^32-1
 * @param nseconds 0 to 999,999,999
 */
public record NfsTime3(long seconds, long nseconds) {

    public NfsTime3 {
        if (seconds < 0 || seconds > 0xFFFF_FFFFL || nseconds < 0 || nseconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("nfstime3 out of range: " + seconds + "." + nseconds);
        }
    }

    /** The time of an Instant, clamped to what nfstime3 can hold. */
    public static NfsTime3 of(Instant instant) {
        long s = Math.max(0, Math.min(0xFFFF_FFFFL, instant.getEpochSecond()));
        return new NfsTime3(s, instant.getEpochSecond() == s ? instant.getNano() : 0);
    }

    /** The time of a java.nio FileTime-like count in nanoseconds since the epoch. */
    public static NfsTime3 ofEpochNanos(long nanos) {
        return of(Instant.ofEpochSecond(Math.floorDiv(nanos, TimeUnit.SECONDS.toNanos(1)),
                Math.floorMod(nanos, TimeUnit.SECONDS.toNanos(1))));
    }

    public Instant toInstant() {
        return Instant.ofEpochSecond(seconds, Math.min(nseconds, 999_999_999L));
    }

    public static NfsTime3 decode(XdrDecoder in) {
        return new NfsTime3(in.readUnsignedInt(), in.readUnsignedInt());
    }

    public void encode(XdrEncoder out) {
        out.writeUnsignedInt(seconds).writeUnsignedInt(nseconds);
    }
}
