package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;

/**
 * File handles of one export (RFC 1813 §2.5: opaque to the client, stable for the object's life).
 *
 * <p>Layout, 32 octets: version (1), ftype3 (1), reserved (2), export id (8), device (8), inode
 * (8), generation (4). A handle names an inode, not a path, so it survives renames and server
 * restarts: the server remembers inode → path for every handle it issued, and after a restart (or
 * when a file was moved behind its back) finds the inode again by walking the export. The
 * generation starts at 0 and is raised whenever the server removes an inode's last link, so that
 * a handle to a removed file is NFS3ERR_STALE even if the inode number is reused; a restart forgets
 * raised generations (java.nio cannot read the file system's own inode generation), so such
 * handles from before a restart are refused as stale rather than resolved. Handles from another
 * export are NFS3ERR_STALE, malformed ones NFS3ERR_BADHANDLE.
 *
 * <p>Resolution never leaves the export: every path is the root plus names the server itself
 * checked, and a directory on the way that was replaced by a symbolic link makes the handle stale.
 */
public final class FileHandles {

    static final int LENGTH = 32;
    private static final byte VERSION = 1;
    /** Most entries a resolution walk looks at before it gives up (NFS3ERR_STALE). */
    private static final int WALK_LIMIT = 1_000_000;

    private final Export export;
    private final Map<Long, Path> pathByInode = new ConcurrentHashMap<>();
    private final Map<Long, Integer> generationByInode = new ConcurrentHashMap<>();

    public FileHandles(Export export) {
        this.export = export;
    }

    /** A handle for {@code path} (inside the export) whose attributes are {@code stat}. */
    public NfsFh3 handleOf(Path path, FileStat stat) {
        pathByInode.put(stat.ino(), path);
        ByteBuffer b = ByteBuffer.allocate(LENGTH);
        b.put(VERSION).put((byte) stat.type().value()).putShort((short) 0);
        b.putLong(export.id()).putLong(stat.dev()).putLong(stat.ino());
        b.putInt(generationByInode.getOrDefault(stat.ino(), 0));
        return new NfsFh3(b.array());
    }

    /** The export root's handle. */
    public NfsFh3 rootHandle() throws IOException {
        return handleOf(export.root(), FileStat.of(export.root()));
    }

    /** The object a handle names, checked to be the same inode and inside the export. */
    public Resolved resolve(NfsFh3 fh) {
        ByteBuffer b = ByteBuffer.wrap(fh.data());
        if (fh.length() != LENGTH || b.get() != VERSION) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "not a handle of this server: " + fh);
        }
        Ftype3 type;
        try {
            type = Ftype3.of(b.get());
        } catch (RuntimeException e) {
            throw new NfsException(Nfs3Status.NFS3ERR_BADHANDLE, "bad type in " + fh);
        }
        b.getShort();
        long exportId = b.getLong();
        long dev = b.getLong();
        long ino = b.getLong();
        int generation = b.getInt();
        if (exportId != export.id()) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "handle of another export: " + fh);
        }
        if (generation != generationByInode.getOrDefault(ino, 0)) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "removed file: " + fh);
        }
        Path known = pathByInode.get(ino);
        if (known != null) {
            Resolved r = check(known, type, dev, ino);
            if (r != null) {
                return r;
            }
            pathByInode.remove(ino, known);
        }
        Path found = walk(dev, ino);
        Resolved r = found == null ? null : check(found, type, dev, ino);
        if (r == null) {
            throw new NfsException(Nfs3Status.NFS3ERR_STALE, "no such file: " + fh);
        }
        pathByInode.put(ino, found);
        return r;
    }

    /** Records a RENAME of {@code from} to {@code to}; for a directory, everything below it moved too. */
    public void moved(FileStat stat, Path from, Path to) {
        pathByInode.put(stat.ino(), to);
        if (stat.type() == Ftype3.NF3DIR) {
            pathByInode.replaceAll((ino, p) -> p.startsWith(from) && !p.equals(from) ? to.resolve(from.relativize(p)) : p);
        }
    }

    /** Records that the last link of an inode is gone: its handles become stale. */
    public void removed(FileStat stat) {
        pathByInode.remove(stat.ino());
        generationByInode.merge(stat.ino(), 1, Integer::sum);
    }

    private Resolved check(Path path, Ftype3 type, long dev, long ino) {
        try {
            FileStat stat = FileStat.of(path);
            if (stat.ino() != ino || stat.dev() != dev || stat.type() != type || !insideExport(path)) {
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
        return parent == null || parent.toRealPath().equals(parent);
    }

    private Path walk(long dev, long ino) {
        Path[] found = new Path[1];
        int[] visited = new int[1];
        try {
            Files.walkFileTree(export.root(), EnumSet.noneOf(FileVisitOption.class), Integer.MAX_VALUE,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                            return visit(dir);
                        }

                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                            return visit(file);
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException exc) {
                            return FileVisitResult.CONTINUE;
                        }

                        private FileVisitResult visit(Path p) {
                            if (++visited[0] > WALK_LIMIT) {
                                return FileVisitResult.TERMINATE;
                            }
                            try {
                                FileStat s = FileStat.of(p);
                                if (s.ino() == ino && s.dev() == dev) {
                                    found[0] = p;
                                    return FileVisitResult.TERMINATE;
                                }
                            } catch (IOException e) {
                                // vanished while walking
                            }
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException e) {
            return null;
        }
        return found[0];
    }

    /** A resolved handle: the path and its current attributes. */
    public record Resolved(Path path, FileStat stat) {
        public boolean isDirectory() {
            return stat.type() == Ftype3.NF3DIR;
        }
    }
}
