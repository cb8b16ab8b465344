package org.iwarp4j.nfs.v3;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;

/** entry3 (RFC 1813 §3.3.16): one directory entry and the cookie to continue after it. */
public record Entry3(long fileid, String name, long cookie) {

    public Entry3 {
        Objects.requireNonNull(name, "name");
    }

    /** Octets on the wire, the "value follows" word before it included. */
    public int encodedLength() {
        int n = name.getBytes(StandardCharsets.UTF_8).length;
        return 4 + 8 + 4 + n + XdrMessage.padding(n) + 8;
    }

    static Entry3 decode(XdrDecoder in) {
        return new Entry3(in.readHyper(), in.readString(Nfs3Constants.MAX_DECODED_NAME), in.readHyper());
    }

    void encode(XdrEncoder out) {
        out.writeHyper(fileid).writeString(name, Nfs3Constants.MAX_DECODED_NAME).writeHyper(cookie);
    }
}
