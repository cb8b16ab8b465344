package org.iwarp4j.nfs.v3;

import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * set_atime / set_mtime (RFC 1813 §2.6): leave the time, set it to the server's clock, or set it
 * to the client's {@code time}.
 */
public record SetTime3(TimeHow how, NfsTime3 time) {

    public static final SetTime3 DONT_CHANGE = new SetTime3(TimeHow.DONT_CHANGE, null);
    public static final SetTime3 SERVER_TIME = new SetTime3(TimeHow.SET_TO_SERVER_TIME, null);

    public SetTime3 {
        Objects.requireNonNull(how, "how");
        if ((how == TimeHow.SET_TO_CLIENT_TIME) != (time != null)) {
            throw new IllegalArgumentException("a time goes with SET_TO_CLIENT_TIME only");
        }
    }

    public static SetTime3 client(NfsTime3 time) {
        return new SetTime3(TimeHow.SET_TO_CLIENT_TIME, time);
    }

    public static SetTime3 decode(XdrDecoder in) {
        TimeHow how = TimeHow.of(in.readEnum());
        return how == TimeHow.SET_TO_CLIENT_TIME ? client(NfsTime3.decode(in)) : new SetTime3(how, null);
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(how.value());
        if (time != null) {
            time.encode(out);
        }
    }
}
