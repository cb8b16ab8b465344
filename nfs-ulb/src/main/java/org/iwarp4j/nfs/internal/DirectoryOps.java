package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * meaningful while the directory changes and across server restarts: a listing continues after
 * the cookie's position in hash order, whatever was added or removed meanwhile. "." and ".." come
 * first with cookies 1 and 2. The names come from a {@link DirectoryListings} snapshot, which the
 * cookie verifier names: the directory is read at a listing's first page, unless it is unchanged
 * since its snapshot, and each further page costs only itself; a verifier whose snapshot is gone
 * gets the directory's current names, never NFS3ERR_BAD_COOKIE. Entries that vanished since the snapshot are left out (past
 * {@link DirectoryListings#MAX_VANISHED} of them in one call, the directory is read again). Two names with the
 * same 63-bit hash (a client can make such names on purpose) are never split between two pages
 * ({@link #withoutTrailing}).
 */
public final class DirectoryOps {

    private static final long DOT_COOKIE = 1;
    private static final long DOTDOT_COOKIE = 2;
    /** Positions before the snapshot's entries: "." and "..". */
    private static final int DOTS = 2;

    private final Nfs3Context ctx;

    public DirectoryOps(Nfs3Context ctx) {
        this.ctx = ctx;
    }

    /**
     * A walk over the entries of a listing, "." and ".." first, from after a cookie on: the one
     * place that skips entries which vanished since the snapshot, for READDIR and READDIRPLUS.
     */
    private final class Page {
        final FileHandles.Resolved dir;
        DirectoryListings.Listing listing;
        private int vanished;
        /** The position the walk goes on from. */
        private int next;
        /** The entry {@link #advance} moved to: its position (-1: none), cookie and attributes. */
        private int current = -1;
        private long cookie;
        private FileStat stat;

        Page(FileHandles.Resolved dir, long cookie, long verifier) throws IOException {
            this.dir = dir;
            this.listing = ctx.listings().listing(dir.path(), dir.stat(), cookie, verifier);
            this.next = position(cookie);
            this.cookie = cookie;
        }

        /**
         * Moves to the next entry that still exists; false at the end of the listing. Entries gone
         * since the snapshot are skipped; past {@link DirectoryListings#MAX_VANISHED} of them in one
         * call the directory is read again and the walk goes on after the current entry, which the
         * caller has answered by asking for the next one.
         */
        boolean advance() throws IOException {
            while (next < end()) {
                int i = next++;
                FileStat s = stat(i);
                if (s != null) {
                    current = i;
                    cookie = cookie(i);
                    stat = s;
                    return true;
                }
                if (++vanished == DirectoryListings.MAX_VANISHED + 1) {
                    listing = ctx.listings().reread(dir.path(), listing);
                    next = position(cookie);
                }
            }
            current = -1;
            return false;
        }

        /** The current entry's attributes, as just read. */
        FileStat stat() {
            return stat;
        }

        String name() {
            return current == 0 ? "." : current == 1 ? ".." : listing.name(current - DOTS);
        }

        long cookie() {
            return cookie;
        }

        Path path() {
            return path(current);
        }

        /** The position of the first entry after {@code cookie}. */
        private int position(long cookie) {
            return cookie == 0 ? 0 : cookie == DOT_COOKIE ? 1 : cookie == DOTDOT_COOKIE ? DOTS
                    : DOTS + listing.after(cookie);
        }

        private int end() {
            return DOTS + listing.size();
        }

        private long cookie(int position) {
            return position == 0 ? DOT_COOKIE : position == 1 ? DOTDOT_COOKIE : listing.cookie(position - DOTS);
        }

        private Path path(int position) {
            if (position == 0) {
                return dir.path();
            }
            if (position == 1) {
                return dir.path().equals(ctx.export().root()) ? dir.path() : dir.path().getParent();
            }
            return dir.path().resolve(listing.name(position - DOTS));
        }

        /** The entry's attributes, null if it vanished since the snapshot was read. */
        private FileStat stat(int position) {
            if (position == 0) {
                return dir.stat();
            }
            try {
                return FileStat.of(path(position));
            } catch (IOException vanished) {
                return null;
            }
        }
    }

    /**
     * The octets a READDIR or READDIRPLUS reply may take: what the client asked, but at most
     * rtmax, as knfsd clamps them to its largest payload (RFC 1813 lets a server return fewer
     * entries than fit, eof false): a count of 4 GiB would otherwise answer a whole directory of
     * millions of names in one reply.
     */
    private long replyBudget(long asked) {
        return Math.min(asked, ctx.limits().maxRead());
    }

    /** READDIR needs read permission on the directory (NFS3ERR_ACCES). */
    public Readdir3Res readdir(Readdir3Args args, Caller caller) {
        FileHandles.Resolved dir = null;
        try {
            dir = ctx.resolveDirectory(args.dir(), caller);
            Permissions.require(caller, dir.stat(), Permissions.READ, dir.path());
            Page page = new Page(dir, args.cookie(), args.cookieverf());
            long budget = replyBudget(args.count()) - Readdir3Res.RESOK_OVERHEAD;
            List<Entry3> out = new ArrayList<>();
            boolean eof = true;
            while (page.advance()) {
                Entry3 e = new Entry3(page.stat().ino(), page.name(), page.cookie());
                if (e.encodedLength() > budget) {
                    eof = false;
                    withoutTrailing(out, e.cookie(), Entry3::cookie);
                    break;
                }
                budget -= e.encodedLength();
                out.add(e);
            }
            if (out.isEmpty() && !eof) {
                throw new NfsException(Nfs3Status.NFS3ERR_TOOSMALL, "count " + args.count());
            }
            return new Readdir3Res(Nfs3Status.NFS3_OK, ctx.attributes(dir.path()), page.listing.verifier(), out, eof);
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
            Page page = new Page(dir, args.cookie(), args.cookieverf());
            long budget = replyBudget(args.maxcount()) - Readdirplus3Res.RESOK_OVERHEAD;
            long dirBudget = replyBudget(args.dircount());
            List<EntryPlus3> out = new ArrayList<>();
            boolean eof = true;
            while (page.advance()) {
                FileStat stat = page.stat();
                Fattr3 attrs = search ? ctx.attributes(stat) : null;
                NfsFh3 fh = search ? ctx.handles().handleOf(page.path(), stat, dir) : null;
                EntryPlus3 e = new EntryPlus3(stat.ino(), page.name(), page.cookie(), attrs, fh);
                if (e.encodedLength() > budget || (!out.isEmpty() && e.directoryInfoLength() > dirBudget)) {
                    eof = false;
                    withoutTrailing(out, e.cookie(), EntryPlus3::cookie);
                    break;
                }
                budget -= e.encodedLength();
                dirBudget -= e.directoryInfoLength();
                out.add(e);
            }
            if (out.isEmpty() && !eof) {
                throw new NfsException(Nfs3Status.NFS3ERR_TOOSMALL, "maxcount " + args.maxcount());
            }
            return new Readdirplus3Res(Nfs3Status.NFS3_OK, ctx.attributes(dir.path()), page.listing.verifier(), out,
                    eof);
        } catch (IOException | RuntimeException e) {
            return Readdirplus3Res.fail(NfsErrors.statusOf(e), dir == null ? null : ctx.attributes(dir.path()));
        }
    }

    /**
     * A page never ends between two entries with the same cookie (two names whose hashes collide,
     * which a client can make on purpose): the next page starts after the page's last cookie, so
     * the second would never be listed. The entries that share the cookie of the first one left out
     * are left out too and start the next page, as ext4's readdir keeps a hash collision in one
     * batch; a page left empty is NFS3ERR_TOOSMALL (NFS4ERR_TOOSMALL), a larger count lists them.
     */
    static <E> void withoutTrailing(List<E> page, long cookie, java.util.function.ToLongFunction<E> cookieOf) {
        while (!page.isEmpty() && cookieOf.applyAsLong(page.get(page.size() - 1)) == cookie) {
            page.remove(page.size() - 1);
        }
    }

    /** FNV-1a over the name's UTF-8 octets, in [3, 2^63); see {@link DirectoryListings#cookieOf}. */
    public static long cookieOf(String name) {
        return DirectoryListings.cookieOf(name);
    }
}
