package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Nfs3Constants;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;

/**
 * File handles of one export (RFC 1813 §2.5: opaque to the client, stable for the object's life).
 *
 * <p>Layout, 32 to 64 octets (FHSIZE3): version 2 (1), ftype3 (1), reserved (1), flags (1), export
 * id (8), device (8), inode (8), generation (4), then, when flag 0x01 is set, the object's path
 * below the export root as UTF-8 with '/' between names (empty for the root), if it fits in the
 * remaining 32 octets. A handle names an inode; the path is only where to look for it.
 *
 * <p>Resolution does a bounded amount of file-system work whatever the export's size, so that a
 * forged handle costs the server no more than a real one: at most two candidate paths are
 * examined (a stat of the remembered one and of its directory; a stat and a check of the parent
 * directories of the carried one), and nothing is searched.
 * The candidates are the path this server last saw the inode at and the path carried in the
 * handle. The object found must have the handle's device, inode and type; otherwise the handle
 * is NFS3ERR_STALE. Hence:
 * <ul>
 *   <li>while the server runs and remembers the inode (below), handles survive renames made
 *       through it, at any depth;
 *   <li>after a restart, a handle whose path fitted in it still works if the object has not moved;
 *       one whose path did not fit, or whose object moved, is stale (a client looks the name up
 *       again, as it does for any NFS3ERR_STALE);
 *   <li>an object moved or replaced behind the server's back is stale unless its handle's path
 *       names it.
 * </ul>
 *
 * <p>Where an inode lives is remembered as its parent directory's inode and its name, not as a
 * path: a RENAME changes one entry, whatever lies below the renamed directory, and the path is
 * put together at resolution by following parents up to the root, at most {@value #MAX_DEPTH}
 * steps and {@value #PATH_MAX} characters (Linux's PATH_MAX: no longer path can be opened). So
 * every operation here costs a bounded number of entries: handing out a handle or recording a
 * RENAME or a removal touches at most two, resolving a handle at most one per directory level of
 * the object. A handle resolved through the path it carries (after a restart, or once its inode
 * was forgotten) teaches the server where that inode and the directories on its path live, with
 * one stat per directory of that path (at most 15: the path fits in 32 octets), so that later
 * renames of those directories through the server keep it working.
 *
 * <p>Once issued for an inode, the same octets are handed out for it for as long as the server
 * remembers the inode, even after a rename, so a client sees one object. The generation starts at
 * 0 and is raised whenever the server removes an inode's last link, so that a handle to a removed
 * file is NFS3ERR_STALE even if the inode number is reused; a restart forgets raised generations
 * (java.nio cannot read the file system's own inode generation), so such handles from before a
 * restart are refused as stale rather than resolved. Handles from another export, and of the
 * first format (version 1), are NFS3ERR_STALE; malformed ones NFS3ERR_BADHANDLE.
 *
 * <p>Memory is bounded: at most {@code maxKnown} inodes (default {@value #DEFAULT_MAX_KNOWN}) are
 * remembered, live ones and removed ones (whose raised generation is all that is kept), plus a
 * fixed table of {@value #FLOOR_BUCKETS} generation floors. Past the bound the least recently used
 * inode is forgotten; a directory is used whenever anything below it is resolved, so it outlives
 * its descendants unless nothing below it was used either. A forgotten inode's handle is resolved
 * through the path it carries, exactly as after a restart: it keeps working if its path fitted
 * in the handle and the object is still there, and is NFS3ERR_STALE otherwise (so is the handle of
 * anything whose remembered path ran through a forgotten directory and that moved since it was
 * issued). Forgetting never lets a handle of a removed object name a new one: the generation of a
 * forgotten inode raises its bucket's floor, the generation every inode of the bucket not
 * remembered has, so generations only grow; the price is that a forgotten, live inode's handle is
 * stale (rather than resolved) if its bucket's floor rose since it was issued. An inode looked up
 * again after being forgotten may be given other octets (its path as it is now).
 *
 * <p>Resolution never leaves the export: a path from a handle must consist of plain names (no
 * "." or "..", no empty name; NFS3ERR_BADHANDLE otherwise), the object itself is never followed if
 * it is a symbolic link, and a directory on the carried path that is a symbolic link makes the
 * handle stale. A remembered place is not checked for links: it is made of entries this server
 * saw as directories, a forged handle of an inode the server never saw in the export has none,
 * and a link put in place of a directory through the server is a RENAME or REMOVE it records. A
 * directory replaced behind the server's back by a link is followed only to the very inode the
 * handle names, in the very directory inode it was seen in (one that was in the export when the
 * server saw it); a link to anywhere else makes the handle stale. (Linux knfsd with {@code
 * no_subtree_check} checks no path either, and compares the file system's inode generation,
 * which java.nio cannot read.) So resolving a handle costs two stats of its path however deep it
 * lies, not a check of every prefix.
 */
public final class FileHandles {

    /** The octets before the path. */
    static final int FIXED_LENGTH = 32;
    /** The longest path a handle carries. */
    static final int MAX_PATH = Nfs3Constants.NFS3_FHSIZE - FIXED_LENGTH;
    /**
     * Inodes remembered unless the server is told otherwise: about 63 MiB with short names, 111 MiB
     * with names of 255 characters (docs/limits.md).
     */
    public static final int DEFAULT_MAX_KNOWN = 1 << 18;
    /** The longest remembered path, in characters below the root, as Linux's PATH_MAX. */
    static final int PATH_MAX = 4096;
    /** The most parents followed to put a remembered path together: each level is a name and a '/'. */
    static final int MAX_DEPTH = PATH_MAX / 2;
    /** Generation floors of inodes not remembered (a power of two). */
    static final int FLOOR_BUCKETS = 1 << 16;
    private static final byte VERSION = 2;
    private static final byte FIRST_VERSION = 1;
    private static final int FIRST_LENGTH = 32;
    private static final byte HAS_PATH = 0x01;

    private final Export export;
    private final Probe probe;
    private final Inode root;
    private final int maxKnown;
    private final Object lock = new Object();
    /** Access-ordered, so that the eldest entry is the least recently used; guarded by {@link #lock}. */
    private final LinkedHashMap<Inode, Known> known;
    /** The generation of an inode that {@link #known} does not hold; guarded by {@link #lock}. */
    private final int[] floors = new int[FLOOR_BUCKETS];
    /** Entries of {@link #known} read or written, for tests; guarded by {@link #lock}. */
    private long visits;
    /** Handles made, for tests. */
    private final AtomicLong issued = new AtomicLong();

    public FileHandles(Export export) {
        this(export, DEFAULT_MAX_KNOWN);
    }

    /** @param maxKnown how many inodes to remember at most (at least 16) */
    public FileHandles(Export export, int maxKnown) {
        this(export, Probe.FILE_SYSTEM, maxKnown);
    }

    FileHandles(Export export, Probe probe) {
        this(export, probe, DEFAULT_MAX_KNOWN);
    }

    FileHandles(Export export, Probe probe, int maxKnown) {
        if (maxKnown < 16) {
            throw new IllegalArgumentException("maxKnown < 16: " + maxKnown);
        }
        this.export = export;
        this.probe = probe;
        this.root = new Inode(export.rootDevice(), export.rootInode());
        this.maxKnown = maxKnown;
        this.known = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Inode, Known> eldest) {
                if (size() <= FileHandles.this.maxKnown) {
                    return false;
                }
                int b = bucket(eldest.getKey());
                floors[b] = Math.max(floors[b], eldest.getValue().generation);
                return true;
            }
        };
    }

    /** The file-system calls resolution makes; tests count them through this seam. */
    interface Probe {
        Probe FILE_SYSTEM = new Probe() {
            @Override
            public FileStat stat(Path path) throws IOException {
                return FileStat.of(path);
            }

            @Override
            public Path realPath(Path path) throws IOException {
                return path.toRealPath();
            }
        };

        /** {@link FileStat#of}. */
        FileStat stat(Path path) throws IOException;

        /** {@link Path#toRealPath}. */
        Path realPath(Path path) throws IOException;
    }

    private record Inode(long dev, long ino) {
    }

    /**
     * What the server remembers of an inode: where it last saw it (its parent directory's inode and
     * its name; null for a removed inode, or one whose parent is not known), whether a handle was
     * issued for it and with which path octets (null: none fitted), and its generation.
     */
    private record Known(Inode parent, String name, boolean issued, byte[] handlePath, int generation) {
        Known at(Inode newParent, String newName) {
            return new Known(newParent, newName, issued, handlePath, generation);
        }
    }

    private static Inode inodeOf(FileStat stat) {
        return new Inode(stat.dev(), stat.ino());
    }

    private static int bucket(Inode inode) {
        long h = (inode.ino() ^ Long.rotateLeft(inode.dev(), 32)) * 0x9E3779B97F4A7C15L;
        return (int) (h >>> (64 - Integer.numberOfTrailingZeros(FLOOR_BUCKETS)));
    }

    private Known get(Inode inode) {
        visits++;
        return known.get(inode);
    }

    private void put(Inode inode, Known k) {
        visits++;
        known.put(inode, k);
    }

    /** What {@code inode} is remembered as, or a new entry of its current generation at no place. */
    private Known getOrNew(Inode inode) {
        Known k = get(inode);
        return k != null ? k : new Known(null, null, false, null, floors[bucket(inode)]);
    }

    /** Entries read or written so far (a test seam: the work done is counted, not timed). */
    long visits() {
        synchronized (lock) {
            return visits;
        }
    }

    /**
     * Handles made so far for objects other than the root, each of which the server then
     * remembers (a test seam: NFSv4 READDIR makes none unless the client asks for them).
     */
    public long issued() {
        return issued.get();
    }

    /** Inodes remembered now (a test seam). */
    public int knownCount() {
        synchronized (lock) {
            return known.size();
        }
    }

    /**
     * A handle for {@code path} (inside the export) whose attributes are {@code stat}, found from
     * the directory {@code dir} a handle resolved to (LOOKUP, READDIRPLUS, CREATE...): when
     * {@code path} is an entry of {@code dir}, the directory's inode is taken from {@code dir} at
     * no cost; "." is {@code dir} itself, whose place is known; ".." is as {@link #handleOf(Path,
     * FileStat)}.
     */
    public NfsFh3 handleOf(Path path, FileStat stat, Resolved dir) {
        if (path.equals(dir.path())) {
            return issue(path, stat, null);
        }
        if (!path.equals(export.root()) && dir.path().equals(path.getParent())) {
            return issue(path, stat, inodeOf(dir.stat()));
        }
        return handleOf(path, stat);
    }

    /**
     * A handle for {@code path} (inside the export) whose attributes are {@code stat}; unless its
     * parent is the root, the parent is stat'ed to learn its inode. The remembered place is only
     * as good as the parent's: the server finds the object there if it knows where the parent
     * lives, as it does for any directory a client has a handle of.
     */
    public NfsFh3 handleOf(Path path, FileStat stat) {
        Path parentPath = path.getParent();
        Inode parent = null;
        if (path.equals(export.root())) {
            parent = null;
        } else if (export.root().equals(parentPath)) {
            parent = root;
        } else if (parentPath != null && export.contains(parentPath)) {
            try {
                parent = inodeOf(probe.stat(parentPath));
            } catch (IOException e) {
                parent = null;
            }
        }
        return issue(path, stat, parent);
    }

    /**
     * The handle {@link #handleOf(Path, FileStat, Resolved)} would answer for {@code path} now,
     * made without remembering anything: NFSv4 READDIR sizes an entry with it and makes the real
     * handle only for an entry that fits in the reply. The octets are the same unless the inode
     * is issued, moved or removed meanwhile.
     */
    public NfsFh3 preview(Path path, FileStat stat) {
        Inode inode = inodeOf(stat);
        if (inode.equals(root)) {
            return encode(stat, 0, pathOctets(export.root()));
        }
        synchronized (lock) {
            Known old = getOrNew(inode);
            return encode(stat, old.generation, old.issued ? old.handlePath : pathOctets(path));
        }
    }

    private NfsFh3 issue(Path path, FileStat stat, Inode parent) {
        Inode inode = inodeOf(stat);
        if (inode.equals(root)) {
            return encode(stat, 0, pathOctets(export.root()));
        }
        issued.incrementAndGet();
        Path name = path.getFileName();
        Known k;
        synchronized (lock) {
            Known old = getOrNew(inode);
            byte[] handlePath = old.issued ? old.handlePath : pathOctets(path);
            // Without the parent's inode the place last seen is kept (for ".", the same one).
            k = parent == null || name == null ? new Known(old.parent, old.name, true, handlePath, old.generation)
                    : new Known(parent, name.toString(), true, handlePath, old.generation);
            put(inode, k);
            if (parent != null) {
                get(parent);
            }
        }
        return encode(stat, k.generation, k.handlePath);
    }

    private NfsFh3 encode(FileStat stat, int generation, byte[] p) {
        ByteBuffer b = ByteBuffer.allocate(FIXED_LENGTH + (p == null ? 0 : p.length));
        b.put(VERSION).put((byte) stat.type().value()).put((byte) 0).put(p == null ? 0 : HAS_PATH);
        b.putLong(export.id()).putLong(stat.dev()).putLong(stat.ino());
        b.putInt(generation);
        if (p != null) {
            b.put(p);
        }
        return new NfsFh3(b.array());
    }

    /** The export root's handle. */
    public NfsFh3 rootHandle() throws IOException {
        return handleOf(export.root(), FileStat.of(export.root()));
    }

    /** The path below the root as the handle carries it, or null if it does not fit. */
    private byte[] pathOctets(Path path) {
        if (!export.contains(path)) {
            return null;
        }
        String relative = export.root().relativize(path.normalize()).toString().replace(path.getFileSystem()
                .getSeparator(), "/");
        byte[] octets = relative.getBytes(StandardCharsets.UTF_8);
        return octets.length <= MAX_PATH ? octets : null;
    }

    /**
     * The object a handle names, checked to be the same inode and inside the export; at most four
     * stat calls and one parent-directory check, never a search (and, when the path the handle
     * carries is what finds it, a stat of each directory on that path to remember it).
     */
    public Resolved resolve(NfsFh3 fh) {
        byte[] data = fh.data();
        if (data.length == FIRST_LENGTH && data[0] == FIRST_VERSION) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "handle of the first format: " + fh);
        }
        if (data.length < FIXED_LENGTH || data[0] != VERSION) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "not a handle of this server: " + fh);
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        Ftype3 type;
        try {
            type = Ftype3.of(b.get(1));
        } catch (RuntimeException e) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "bad type in " + fh);
        }
        int flags = b.get(3);
        long exportId = b.getLong(4);
        Inode inode = new Inode(b.getLong(12), b.getLong(20));
        int generation = b.getInt(28);
        boolean hasPath = (flags & HAS_PATH) != 0;
        if ((flags & ~HAS_PATH) != 0 || b.get(2) != 0 || (!hasPath && data.length != FIXED_LENGTH)) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "bad flags in " + fh);
        }
        Path carried = hasPath ? carriedPath(data, fh) : null;
        if (exportId != export.id()) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "handle of another export: " + fh);
        }
        Path remembered;
        Inode rememberedParent = null;
        int current;
        if (inode.equals(root)) {
            remembered = export.root();
            current = 0;
        } else {
            synchronized (lock) {
                Known k = getOrNew(inode);
                current = k.generation;
                remembered = current == generation ? locate(k) : null;
                rememberedParent = k.parent;
            }
        }
        if (generation != current) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "removed file: " + fh);
        }
        if (remembered != null) {
            Resolved r = checkRemembered(remembered, type, inode, rememberedParent);
            if (r != null) {
                return r;
            }
        }
        if (carried != null && !carried.equals(remembered)) {
            Resolved r = checkCarried(carried, type, inode);
            if (r != null) {
                learn(carried, inode, Arrays.copyOfRange(data, FIXED_LENGTH, data.length));
                return r;
            }
        }
        throw new NfsException(Nfs3Status.NFS3ERR_STALE, "no such file: " + fh);
    }

    /**
     * The path an entry's chain of parents spells, or null if a link is missing (a parent not
     * remembered, or removed) or the chain is deeper than {@link #MAX_DEPTH} or longer than
     * {@link #PATH_MAX}; at most {@link #MAX_DEPTH} entries read. Each parent read is used, so it
     * stays remembered at least as long as what lies below it.
     */
    private Path locate(Known k) {
        ArrayList<String> names = new ArrayList<>();
        int length = 0;
        Known cur = k;
        while (true) {
            if (cur == null || cur.parent == null || names.size() == MAX_DEPTH) {
                return null;
            }
            names.add(cur.name);
            length += cur.name.length() + 1;
            if (length > PATH_MAX + 1) {
                return null;
            }
            if (cur.parent.equals(root)) {
                break;
            }
            cur = get(cur.parent);
        }
        StringBuilder relative = new StringBuilder(length);
        String separator = export.root().getFileSystem().getSeparator();
        for (int i = names.size() - 1; i >= 0; i--) {
            relative.append(names.get(i));
            if (i > 0) {
                relative.append(separator);
            }
        }
        return export.root().resolve(relative.toString());
    }

    /**
     * Remembers where a handle's carried path found its inode, and where each directory on that
     * path is (one stat each, at most 15 as the path fits in a handle), so that the handle survives
     * later renames of those directories through the server. The handle's own octets become the
     * inode's if none were issued for it.
     */
    private void learn(Path carried, Inode inode, byte[] handlePath) {
        if (inode.equals(root)) {
            return;
        }
        Path relative = export.root().relativize(carried);
        int n = relative.getNameCount();
        Inode[] directories = new Inode[n];
        directories[0] = root;
        int found = 1;
        Path p = export.root();
        for (int i = 0; i + 1 < n; i++) {
            p = p.resolve(relative.getName(i));
            try {
                FileStat s = probe.stat(p);
                if (s.type() != Ftype3.NF3DIR) {
                    break;
                }
                directories[i + 1] = inodeOf(s);
                found++;
            } catch (IOException e) {
                break;
            }
        }
        synchronized (lock) {
            for (int i = 1; i < found; i++) {
                if (!directories[i].equals(root)) {
                    put(directories[i], getOrNew(directories[i]).at(directories[i - 1], relative.getName(i - 1).toString()));
                }
            }
            Inode parent = found == n ? directories[n - 1] : null;
            Known old = getOrNew(inode);
            put(inode, new Known(parent, parent == null ? null : relative.getName(n - 1).toString(), true,
                    old.issued ? old.handlePath : handlePath, old.generation));
        }
    }

    /** The root plus the names a handle carries, each a plain name (no "." or "..", not empty). */
    private Path carriedPath(byte[] data, NfsFh3 fh) {
        String relative;
        try {
            relative = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(data, FIXED_LENGTH, data.length - FIXED_LENGTH)).toString();
        } catch (CharacterCodingException e) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "path not UTF-8 in " + fh);
        }
        Path path = export.root();
        if (relative.isEmpty()) {
            return path;
        }
        for (String name : relative.split("/", -1)) {
            if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('\0') >= 0) {
                throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "bad path in " + fh);
            }
            Path next = path.resolve(name);
            if (!path.equals(next.getParent())) {
                throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "bad path in " + fh);
            }
            path = next;
        }
        return path;
    }

    /**
     * Records a RENAME that put the object {@code stat} at {@code to}, an entry of the directory
     * {@code toDir}: one entry changes, whatever lies below a renamed directory (its descendants
     * are found through it).
     */
    public void moved(FileStat stat, FileStat toDir, Path to) {
        Inode inode = inodeOf(stat);
        if (inode.equals(root)) {
            return;
        }
        Inode parent = inodeOf(toDir);
        synchronized (lock) {
            put(inode, getOrNew(inode).at(parent, to.getFileName().toString()));
            if (!parent.equals(root)) {
                get(parent);
            }
        }
    }

    /**
     * Records that the last link of an inode is gone: its handles become stale. Only its raised
     * generation is kept; a new object given the same inode number gets new octets.
     */
    public void removed(FileStat stat) {
        Inode inode = inodeOf(stat);
        if (inode.equals(root)) {
            return;
        }
        synchronized (lock) {
            put(inode, new Known(null, null, false, null, getOrNew(inode).generation + 1));
        }
    }

    /**
     * The object at a remembered place, if it is the handle's and its directory is the one
     * remembered: two stats. The directories on the way are not checked for symbolic links: each
     * name in the chain was seen by this server as a directory's entry, not followed, and changes
     * to those entries through the server update the chain. Checking them would be {@link
     * Path#toRealPath}, which reads every prefix of the path: work in the square of the depth,
     * 100 ms at 2,000 levels, for one GETATTR. The parent's inode is checked instead, as java.nio
     * cannot read the file system's inode generation: a file found through a link planted behind
     * the server's back must then also lie in the very directory it was seen in.
     */
    private Resolved checkRemembered(Path path, Ftype3 type, Inode inode, Inode parent) {
        try {
            FileStat stat = probe.stat(path);
            if (!isTheHandles(stat, type, inode) || !export.contains(path)) {
                return null;
            }
            if (parent != null && !path.equals(export.root())) {
                FileStat dir = probe.stat(path.getParent());
                if (dir.type() != Ftype3.NF3DIR || dir.dev() != parent.dev() || dir.ino() != parent.ino()) {
                    return null;
                }
            }
            return new Resolved(path, stat);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The object at a handle's carried path, if it is the handle's and no directory on the way is
     * a symbolic link: a client can write any path into a handle, so its parent's canonical path
     * must be itself. A carried path fits in 32 octets, so it has at most 16 names and the check
     * reads at most that many prefixes.
     */
    private Resolved checkCarried(Path path, Ftype3 type, Inode inode) {
        try {
            FileStat stat = probe.stat(path);
            if (!isTheHandles(stat, type, inode) || !export.contains(path)) {
                return null;
            }
            Path parent = path.equals(export.root()) ? null : path.getParent();
            return parent == null || probe.realPath(parent).equals(parent) ? new Resolved(path, stat) : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean isTheHandles(FileStat stat, Ftype3 type, Inode inode) {
        return stat.ino() == inode.ino() && stat.dev() == inode.dev() && stat.type() == type;
    }

    /** A resolved handle: the path and its current attributes. */
    public record Resolved(Path path, FileStat stat) {
        public boolean isDirectory() {
            return stat.type() == Ftype3.NF3DIR;
        }
    }
}
