package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.iwarp4j.nfs.v3.Entry3;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Readdir3Args;
import org.iwarp4j.nfs.v3.Readdir3Res;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Res;

/**
 * READDIR and READDIRPLUS (RFC 1813 §3.3.16, 3.3.17).
 *
 * <p>Cookies are hashes of the entry names (like ext4's hash-ordered directories), so they stay
 * valid while the directory changes and across server restarts: a listing continues after the
 * cookie's position in hash order, whatever was added or removed meanwhile. "." and ".." come
 * first with cookies 1 and 2. The cookie verifier is therefore always 0 and never checked.
 * (Two names with the same 63-bit hash would confuse a listing that is split between them.)
 */
public final class DirectoryOps {

    private static final long DOT_COOKIE = 1;
    private static final long DOTDOT_COOKIE = 2;

    private final Nfs3Context ctx;

    public DirectoryOps(Nfs3Context ctx) {
        this.ctx = ctx;
    }

    private record Listed(String name, Path path, long cookie) {
    }

    /** READDIR needs read permission on the directory (NFS3ERR_ACCES). */
    public Readdir3Res readdir(Readdir3Args args, Caller caller) {
        FileHandles.Resolved dir = null;
        try {
            dir = ctx.resolveDirectory(args.dir(), caller);
            Permissions.require(caller, dir.stat(), Permissions.READ, dir.path());
            List<Listed> entries = after(list(dir), args.cookie());
            long budget = args.count() - Readdir3Res.RESOK_OVERHEAD;
            List<Entry3> out = new ArrayList<>();
            for (Listed l : entries) {
                Entry3 e = new Entry3(FileStat.of(l.path).ino(), l.name, l.cookie);
                if (e.encodedLength() > budget) {
                    break;
                }
                budget -= e.encodedLength();
                out.add(e);
            }
            if (out.isEmpty() && !entries.isEmpty()) {
                throw new NfsException(Nfs3Status.NFS3ERR_TOOSMALL, "count " + args.count());
            }
            return new Readdir3Res(Nfs3Status.NFS3_OK, ctx.attributes(dir.path()), 0, out,
                    out.size() == entries.size());
        } catch (IOException | RuntimeException e) {
            return Readdir3Res.fail(NfsErrors.statusOf(e), dir == null ? null : ctx.attributes(dir.path()));
        }
    }

    /**
     * READDIRPLUS needs read permission on the directory; the entries' attributes and handles
     * also need search permission (what LOOKUP would need), else they are left out — the client
     * still gets the names, as from READDIR.
     */
    public Readdirplus3Res readdirplus(Readdirplus3Args args, Caller caller) {
        FileHandles.Resolved dir = null;
        try {
            dir = ctx.resolveDirectory(args.dir(), caller);
            Permissions.require(caller, dir.stat(), Permissions.READ, dir.path());
            boolean search = Permissions.permits(caller, dir.stat(), Permissions.EXECUTE);
            List<Listed> entries = after(list(dir), args.cookie());
            long budget = args.maxcount() - Readdirplus3Res.RESOK_OVERHEAD;
            long dirBudget = args.dircount();
            List<EntryPlus3> out = new ArrayList<>();
            for (Listed l : entries) {
                FileStat stat;
                try {
                    stat = FileStat.of(l.path);
                } catch (IOException vanished) {
                    continue;
                }
                Fattr3 attrs = search ? ctx.attributes(stat) : null;
                NfsFh3 fh = search ? ctx.handles().handleOf(l.path, stat, dir) : null;
                EntryPlus3 e = new EntryPlus3(stat.ino(), l.name, l.cookie, attrs, fh);
                if (e.encodedLength() > budget || (!out.isEmpty() && e.directoryInfoLength() > dirBudget)) {
                    break;
                }
                budget -= e.encodedLength();
                dirBudget -= e.directoryInfoLength();
                out.add(e);
            }
            if (out.isEmpty() && !entries.isEmpty()) {
                throw new NfsException(Nfs3Status.NFS3ERR_TOOSMALL, "maxcount " + args.maxcount());
            }
            boolean eof = out.isEmpty() || out.get(out.size() - 1).cookie() == entries.get(entries.size() - 1).cookie;
            return new Readdirplus3Res(Nfs3Status.NFS3_OK, ctx.attributes(dir.path()), 0, out, eof);
        } catch (IOException | RuntimeException e) {
            return Readdirplus3Res.fail(NfsErrors.statusOf(e), dir == null ? null : ctx.attributes(dir.path()));
        }
    }

    private List<Listed> list(FileHandles.Resolved dir) throws IOException {
        Path parent = dir.path().equals(ctx.export().root()) ? dir.path() : dir.path().getParent();
        List<Listed> all = new ArrayList<>();
        all.add(new Listed(".", dir.path(), DOT_COOKIE));
        all.add(new Listed("..", parent, DOTDOT_COOKIE));
        List<Listed> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir.path())) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                children.add(new Listed(name, p, cookieOf(name)));
            }
        }
        children.sort(Comparator.comparingLong(Listed::cookie).thenComparing(Listed::name));
        all.addAll(children);
        return all;
    }

    private static List<Listed> after(List<Listed> all, long cookie) {
        if (cookie == 0) {
            return all;
        }
        return all.stream().filter(l -> Long.compareUnsigned(l.cookie, cookie) > 0).toList();
    }

    /** FNV-1a over the name's UTF-8 octets, in [3, 2^63). */
    public static long cookieOf(String name) {
        long h = 0xcbf29ce484222325L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h >>>= 1;
        return h < 3 ? h + 3 : h;
    }
}
