package org.iwarp4j.nfs.v3;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * READDIR3res (RFC 1813 §3.3.16). The entries travel as an XDR linked list (a "value follows"
 * word before each, a 0 after the last); eof says whether the directory ends after them.
 */
public record Readdir3Res(Nfs3Status status, Fattr3 dirAttributes, long cookieverf, List<Entry3> entries,
                          boolean eof) {

    /** Octets of READDIR3resok besides the entries: post_op_attr, cookieverf, list end, eof. */
    public static final int RESOK_OVERHEAD = 4 + Fattr3.LENGTH + 8 + 4 + 4;

    public Readdir3Res {
        Objects.requireNonNull(status, "status");
        entries = List.copyOf(entries);
    }

    public static Readdir3Res fail(Nfs3Status status, Fattr3 dirAttributes) {
        return new Readdir3Res(status, dirAttributes, 0, List.of(), false);
    }

    public static Readdir3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        Fattr3 attrs = Fattr3.decodePostOpAttr(in);
        if (!status.isOk()) {
            return fail(status, attrs);
        }
        long verf = in.readHyper();
        List<Entry3> entries = new ArrayList<>();
        while (in.readBoolean()) {
            entries.add(Entry3.decode(in));
        }
        return new Readdir3Res(status, attrs, verf, entries, in.readBoolean());
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, dirAttributes);
        if (status.isOk()) {
            out.writeHyper(cookieverf);
            for (Entry3 e : entries) {
                out.writeBoolean(true);
                e.encode(out);
            }
            out.writeBoolean(false).writeBoolean(eof);
        }
    }
}
