package org.iwarp4j.nfs.v3;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;

/** entryplus3 (RFC 1813 §3.3.17): a directory entry with its attributes and handle (either may be absent). */
public record EntryPlus3(long fileid, String name, long cookie, Fattr3 nameAttributes, NfsFh3 nameHandle) {

    public EntryPlus3 {
        Objects.requireNonNull(name, "name");
    }

    /** Octets of fileid, name and cookie: what dircount counts. */
    public int directoryInfoLength() {
        int n = name.getBytes(StandardCharsets.UTF_8).length;
        return 8 + 4 + n + XdrMessage.padding(n) + 8;
    }

    /** Octets on the wire, the "value follows" word before it included: what maxcount counts. */
    public int encodedLength() {
        return 4 + directoryInfoLength() + 4 + (nameAttributes == null ? 0 : Fattr3.LENGTH)
                + 4 + (nameHandle == null ? 0 : 4 + nameHandle.length() + XdrMessage.padding(nameHandle.length()));
    }

    static EntryPlus3 decode(XdrDecoder in) {
        return new EntryPlus3(in.readHyper(), in.readString(Nfs3Constants.MAX_DECODED_NAME), in.readHyper(),
                Fattr3.decodePostOpAttr(in), in.readOptional(NfsFh3::decode));
    }

    void encode(XdrEncoder out) {
        out.writeHyper(fileid).writeString(name, Nfs3Constants.MAX_DECODED_NAME).writeHyper(cookie);
        Fattr3.encodePostOpAttr(out, nameAttributes);
        out.writeOptional(nameHandle, (o, fh) -> fh.encode(o));
    }
}
