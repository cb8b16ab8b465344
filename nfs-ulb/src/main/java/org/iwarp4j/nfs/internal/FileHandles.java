package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * examined (one stat and one check of the parent directories each), and nothing is searched.
 * The candidates are the path this server last saw the inode at (remembered for every handle it
 * issued, and moved along by RENAME) and the path carried in the handle. The object found must
 * have the handle's device, inode and type; otherwise the handle is NFS3ERR_STALE. Hence:
 * <ul>
 *   <li>while the server runs, handles survive renames made through it, at any depth;
 *   <li>after a restart, a handle whose path fitted in it still works if the object has not moved;
 *       one whose path did not fit, or whose object moved, is stale (a client looks the name up
 *       again, as it does for any NFS3ERR_STALE);
 *   <li>an object moved or replaced behind the server's back is stale unless its handle's path
 *       names it.
 * </ul>
 * Once issued for an inode, the same octets are handed out for it for as long as the server runs,
 * even after a rename, so a client sees one object. The generation starts at 0 and is raised
 * whenever the server removes an inode's last link, so that a handle to a removed file is
 * NFS3ERR_STALE even if the inode number is reused; a restart forgets raised generations
 * (java.nio cannot read the file system's own inode generation), so such handles from before a
 * restart are refused as stale rather than resolved. Handles from another export, and of the
 * first format (version 1), are NFS3ERR_STALE; malformed ones NFS3ERR_BADHANDLE.
 *
 * <p>Resolution never leaves the export: a path from a handle must consist of plain names (no
 * "." or "..", no empty name; NFS3ERR_BADHANDLE otherwise), the object itself is never followed if
 * it is a symbolic link, and a directory on the way that is (or was replaced by) a symbolic link
 * makes the handle stale.
 */
public final class FileHandles {

    /** The octets before the path. */
    static final int FIXED_LENGTH = 32;
    /** The longest path a handle carries. */
    static final int MAX_PATH = Nfs3Constants.NFS3_FHSIZE - FIXED_LENGTH;
    private static final byte VERSION = 2;
    private static final byte FIRST_VERSION = 1;
    private static final int FIRST_LENGTH = 32;
    private static final byte HAS_PATH = 0x01;

    private final Export export;
    private final Probe probe;
    private final Map<Inode, Known> known = new ConcurrentHashMap<>();
    private final Map<Inode, Integer> generations = new ConcurrentHashMap<>();

    public FileHandles(Export export) {
        this(export, Probe.FILE_SYSTEM);
    }

    FileHandles(Export export, Probe probe) {
        this.export = export;
        this.probe = probe;
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

    /** Where this server last saw an inode, and the path octets of the handle it issued for it (null: none). */
    private record Known(Path path, byte[] handlePath) {
    }

    /** A handle for {@code path} (inside the export) whose attributes are {@code stat}. */
    public NfsFh3 handleOf(Path path, FileStat stat) {
        Inode inode = new Inode(stat.dev(), stat.ino());
        Known k = known.compute(inode, (i, old) -> new Known(path, old != null ? old.handlePath : pathOctets(path)));
        byte[] p = k.handlePath;
        ByteBuffer b = ByteBuffer.allocate(FIXED_LENGTH + (p == null ? 0 : p.length));
        b.put(VERSION).put((byte) stat.type().value()).put((byte) 0).put(p == null ? 0 : HAS_PATH);
        b.putLong(export.id()).putLong(stat.dev()).putLong(stat.ino());
        b.putInt(generations.getOrDefault(inode, 0));
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
     * The object a handle names, checked to be the same inode and inside the export; at most two
     * stat calls and two parent-directory checks, never a search.
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
        if (generation != generations.getOrDefault(inode, 0)) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "removed file: " + fh);
        }
        Known k = known.get(inode);
        if (k != null) {
            Resolved r = check(k.path, type, inode);
            if (r != null) {
                return r;
            }
        }
        if (carried != null && (k == null || !carried.equals(k.path))) {
            Resolved r = check(carried, type, inode);
            if (r != null) {
                known.compute(inode, (i, old) -> new Known(carried, old != null ? old.handlePath
                        : Arrays.copyOfRange(data, FIXED_LENGTH, data.length)));
                return r;
            }
        }
        throw new NfsException(Nfs3Status.NFS3ERR_STALE, "no such file: " + fh);
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

    /** Records a RENAME of {@code from} to {@code to}; for a directory, everything below it moved too. */
    public void moved(FileStat stat, Path from, Path to) {
        known.compute(new Inode(stat.dev(), stat.ino()),
                (i, old) -> new Known(to, old != null ? old.handlePath : pathOctets(to)));
        if (stat.type() == Ftype3.NF3DIR) {
            known.replaceAll((i, k) -> k.path.startsWith(from) && !k.path.equals(from)
                    ? new Known(to.resolve(from.relativize(k.path)), k.handlePath) : k);
        }
    }

    /** Records that the last link of an inode is gone: its handles become stale. */
    public void removed(FileStat stat) {
        Inode inode = new Inode(stat.dev(), stat.ino());
        known.remove(inode);
        generations.merge(inode, 1, Integer::sum);
    }

    private Resolved check(Path path, Ftype3 type, Inode inode) {
        try {
            FileStat stat = probe.stat(path);
            if (stat.ino() != inode.ino() || stat.dev() != inode.dev() || stat.type() != type || !insideExport(path)) {
                return null;
            }
            return new Resolved(path, stat);
        } catch (IOException e) {
            return null;
        }
    }

    /** The parent directories hold no symbolic link: their canonical path is their path. */
    private boolean insideExport(Path path) throws IOException {
        if (!export.contains(path)) {
            return false;
        }
        Path parent = path.equals(export.root()) ? null : path.getParent();
        return parent == null || probe.realPath(parent).equals(parent);
    }

    /** A resolved handle: the path and its current attributes. */
    public record Resolved(Path path, FileStat stat) {
        public boolean isDirectory() {
            return stat.type() == Ftype3.NF3DIR;
        }
    }
}
