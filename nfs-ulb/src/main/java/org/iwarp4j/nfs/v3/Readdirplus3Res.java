package org.iwarp4j.nfs.v3;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/** READDIRPLUS3res (RFC 1813 §3.3.17), a linked list of {@link EntryPlus3} like {@link Readdir3Res}. */
public record Readdirplus3Res(Nfs3Status status, Fattr3 dirAttributes, long cookieverf, List<EntryPlus3> entries,
                              boolean eof) {

    /** Octets of READDIRPLUS3resok besides the entries. */
    public static final int RESOK_OVERHEAD = Readdir3Res.RESOK_OVERHEAD;

    public Readdirplus3Res {
        Objects.requireNonNull(status, "status");
        entries = List.copyOf(entries);
    }

    public static Readdirplus3Res fail(Nfs3Status status, Fattr3 dirAttributes) {
        return new Readdirplus3Res(status, dirAttributes, 0, List.of(), false);
    }

    public static Readdirplus3Res decode(XdrDecoder in) {
        Nfs3Status status = Nfs3Status.of(in.readEnum());
        Fattr3 attrs = Fattr3.decodePostOpAttr(in);
        if (!status.isOk()) {
            return fail(status, attrs);
        }
        long verf = in.readHyper();
        List<EntryPlus3> entries = new ArrayList<>();
        while (in.readBoolean()) {
            entries.add(EntryPlus3.decode(in));
        }
        return new Readdirplus3Res(status, attrs, verf, entries, in.readBoolean());
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        Fattr3.encodePostOpAttr(out, dirAttributes);
        if (status.isOk()) {
            out.writeHyper(cookieverf);
            for (EntryPlus3 e : entries) {
                out.writeBoolean(true);
                e.encode(out);
            }
            out.writeBoolean(false).writeBoolean(eof);
        }
    }
}
