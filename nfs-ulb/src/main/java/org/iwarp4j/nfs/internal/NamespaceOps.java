package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.CreateMode3;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Link3Args;
import org.iwarp4j.nfs.v3.Link3Res;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Mkdir3Args;
import org.iwarp4j.nfs.v3.Mknod3Args;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Readlink3Res;
import org.iwarp4j.nfs.v3.Rename3Args;
import org.iwarp4j.nfs.v3.Rename3Res;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.Symlink3Args;
import org.iwarp4j.nfs.v3.WccAttr;
import org.iwarp4j.nfs.v3.WccData;
import org.iwarp4j.nfs.v3.WccRes3;

/**
 * The operations on names: LOOKUP, READLINK, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME
 * and LINK (RFC 1813 §3.3.3, 3.3.5, 3.3.8-3.3.15). Every name is checked by
 * {@link Nfs3Context#child}; nothing here follows a symbolic link — SYMLINK stores any target
 * text, which only clients interpret.
 */
public final class NamespaceOps {

    /**
     * The modes new files and directories are made with, before they are given to their creator
     * and set to the mode asked for: the owner's alone. java.nio's default (0666 and 0777 less the
     * umask) left a root server's new object open to everyone, and owned by root, until the chown
     * and chmod — and an EXCLUSIVE create's file until the client's SETATTR, for good if the
     * client never sends it. knfsd makes the object with the mode asked for in one call (mode 0
     * when none is asked for, as in an exclusive create); these are as strict as the server can
     * be and still open what it made when it is not root.
     */
    private static final FileAttribute<Set<PosixFilePermission>> NEW_FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final FileAttribute<Set<PosixFilePermission>> NEW_DIRECTORY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private final Nfs3Context ctx;
    private final AttributeOps attributes;

    public NamespaceOps(Nfs3Context ctx, AttributeOps attributes) {
        this.ctx = ctx;
        this.attributes = attributes;
    }

    /** LOOKUP needs search permission on the directory (NFS3ERR_ACCES). */
    public Lookup3Res lookup(DirOpArgs3 what, Caller caller) {
        FileHandles.Resolved dir = null;
        try {
            dir = ctx.resolveDirectory(what.dir(), caller);
            Permissions.require(caller, dir.stat(), Permissions.EXECUTE, dir.path());
            Path path = ctx.lookupPath(dir, what.name());
            FileStat stat = FileStat.of(path);
            return new Lookup3Res(Nfs3Status.NFS3_OK, ctx.handles().handleOf(path, stat, dir), ctx.attributes(stat),
                    ctx.attributes(dir.path()));
        } catch (IOException | RuntimeException e) {
            return Lookup3Res.fail(NfsErrors.statusOf(e), dir == null ? null : ctx.attributes(dir.path()));
        }
    }

    /** READLINK needs no permission (readlink(2) needs none on the link itself). */
    public Readlink3Res readlink(NfsFh3 symlink, Caller caller) {
        FileHandles.Resolved r = null;
        try {
            r = ctx.resolve(symlink, caller);
            if (r.stat().type() != Ftype3.NF3LNK) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "not a symbolic link: " + r.path());
            }
            return new Readlink3Res(Nfs3Status.NFS3_OK, ctx.attributes(r.stat()),
                    Files.readSymbolicLink(r.path()).toString());
        } catch (IOException | RuntimeException e) {
            return new Readlink3Res(NfsErrors.statusOf(e), r == null ? null : ctx.attributes(r.path()), null);
        }
    }

    /**
     * CREATE (§3.3.8). UNCHECKED opens an existing regular file and applies the attributes;
     * GUARDED refuses an existing name; EXCLUSIVE keeps the client's verifier as the new file's
     * mtime (high word, seconds) and atime (low word), so that a retransmitted CREATE finds its own
     * file and succeeds while anyone else's gets NFS3ERR_EXIST; till the client sets the real
     * attributes with SETATTR, as Linux does, the file is its creator's alone (0600).
     *
     * <p>CREATE, MKDIR and SYMLINK need a writable export and write and search permission on the
     * directory; the new object belongs to the caller ({@link Nfs3Context#chownToCaller}).
     */
    public Create3Res create(Create3Args args, Caller caller) {
        return newObject(args.where(), caller, (path, dir) -> {
            try {
                Files.createFile(path, NEW_FILE);
            } catch (FileAlreadyExistsException e) {
                return existing(path, args, caller);
            }
            ctx.chownToCaller(path, caller, dir.stat());
            if (args.mode() == CreateMode3.EXCLUSIVE) {
                Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setTimes(
                        FileTime.from(args.verf() >>> 32, TimeUnit.SECONDS),
                        FileTime.from(args.verf() & 0xFFFF_FFFFL, TimeUnit.SECONDS), null);
            } else {
                attributes.apply(new FileHandles.Resolved(path, FileStat.of(path)), args.objAttributes(), caller, true);
            }
            return FileStat.of(path);
        });
    }

    private FileStat existing(Path path, Create3Args args, Caller caller) throws IOException {
        FileStat stat = FileStat.of(path);
        switch (args.mode()) {
            case UNCHECKED -> {
                if (stat.type() != Ftype3.NF3REG) {
                    throw new NfsException(Nfs3Status.NFS3ERR_EXIST, "not a regular file: " + path);
                }
                Sattr3 a = args.objAttributes();
                if (a.size() != null) {
                    attributes.apply(new FileHandles.Resolved(path, stat), Sattr3.size(a.size()), caller, false);
                }
                return FileStat.of(path);
            }
            case EXCLUSIVE -> {
                if (madeExclusively(stat, args.verf())) {
                    return stat;
                }
                throw new NfsException(Nfs3Status.NFS3ERR_EXIST, "exists: " + path);
            }
            default -> throw new NfsException(Nfs3Status.NFS3ERR_EXIST, "exists: " + path);
        }
    }

    /**
     * Whether {@code stat} is of the regular file an EXCLUSIVE create with {@code verifier} made:
     * its times still hold the verifier, so the create is a retransmission of that one.
     */
    public static boolean madeExclusively(FileStat stat, long verifier) {
        long stored = (stat.mtime() / 1_000_000_000L) << 32 | (stat.atime() / 1_000_000_000L & 0xFFFF_FFFFL);
        return stat.type() == Ftype3.NF3REG && stored == verifier;
    }

    public Create3Res mkdir(Mkdir3Args args, Caller caller) {
        return newObject(args.where(), caller, (path, dir) -> {
            Files.createDirectory(path, NEW_DIRECTORY);
            ctx.chownToCaller(path, caller, dir.stat());
            attributes.apply(new FileHandles.Resolved(path, FileStat.of(path)), args.attributes(), caller, true);
            return FileStat.of(path);
        });
    }

    /**
     * SYMLINK (§3.3.10). java.nio makes a link only from a {@link Path}, which drops repeated and
     * trailing slashes ("a//b" is stored as "a/b", "d/" as "d") and cannot hold NUL; a text with
     * NUL is NFS3ERR_INVAL (knfsd's svc_fill_symlink_pathname), and so is an empty one
     * (nfsd3_proc_symlink), which symlink(2) would refuse with ENOENT.
     */
    public Create3Res symlink(Symlink3Args args, Caller caller) {
        return newObject(args.where(), caller, (path, dir) -> {
            if (args.symlinkData().isEmpty()) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "empty symbolic link text");
            }
            Path target;
            try {
                target = Path.of(args.symlinkData());
            } catch (InvalidPathException e) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "symbolic link target: " + e.getMessage());
            }
            Files.createSymbolicLink(path, target);
            ctx.chownToCaller(path, caller, dir.stat());
            return FileStat.of(path);
        });
    }

    /**
     * MKNOD (§3.3.11): java.nio cannot make device files, sockets or FIFOs; a read-only export or a
     * directory the caller may not change refuses first, as it would any creation.
     */
    public Create3Res mknod(Mknod3Args args, Caller caller) {
        WccData wcc = WccData.EMPTY;
        try {
            FileHandles.Resolved dir = ctx.resolveDirectory(args.where().dir(), caller);
            wcc = ctx.wcc(dir.stat().toWccAttr(), dir.path());
            ctx.requireDirectoryChange(dir, caller);
            return switch (args.type()) {
                case NF3CHR, NF3BLK, NF3SOCK, NF3FIFO -> Create3Res.fail(Nfs3Status.NFS3ERR_NOTSUPP, wcc);
                default -> Create3Res.fail(Nfs3Status.NFS3ERR_BADTYPE, wcc);
            };
        } catch (RuntimeException e) {
            return Create3Res.fail(NfsErrors.statusOf(e), wcc);
        }
    }

    @FunctionalInterface
    private interface Creator {
        FileStat create(Path path, FileHandles.Resolved dir) throws IOException;
    }

    private Create3Res newObject(DirOpArgs3 where, Caller caller, Creator creator) {
        FileHandles.Resolved dir = null;
        WccAttr before = null;
        try {
            dir = ctx.resolveDirectory(where.dir(), caller);
            before = dir.stat().toWccAttr();
            ctx.requireDirectoryChange(dir, caller);
            Path path = ctx.child(dir, where.name(), Nfs3Status.NFS3ERR_EXIST);
            FileStat stat = creator.create(path, dir);
            ctx.metadata().changed(dir.path()); // the new entry
            ctx.metadata().changed(path); // the new object and its attributes
            return new Create3Res(Nfs3Status.NFS3_OK, ctx.handles().handleOf(path, stat, dir), ctx.attributes(stat),
                    ctx.wcc(before, dir.path()));
        } catch (IOException | RuntimeException e) {
            return Create3Res.fail(NfsErrors.statusOf(e), dir == null ? WccData.EMPTY : ctx.wcc(before, dir.path()));
        }
    }

    /**
     * REMOVE (§3.3.12): not a directory (NFS3ERR_ISDIR, as Linux's unlink(2)). REMOVE and RMDIR need
     * a writable export, write and search permission on the directory, and in a sticky directory
     * ownership of the entry or the directory ({@link Permissions#requireMayDelete}).
     */
    public WccRes3 remove(DirOpArgs3 what, Caller caller) {
        return removeEntry(what, false, caller);
    }

    /** RMDIR (§3.3.13): only an empty directory. */
    public WccRes3 rmdir(DirOpArgs3 what, Caller caller) {
        return removeEntry(what, true, caller);
    }

    private WccRes3 removeEntry(DirOpArgs3 what, boolean directory, Caller caller) {
        FileHandles.Resolved dir = null;
        WccAttr before = null;
        try {
            dir = ctx.resolveDirectory(what.dir(), caller);
            before = dir.stat().toWccAttr();
            ctx.requireDirectoryChange(dir, caller);
            Path path = ctx.child(dir, what.name(), directory ? Nfs3Status.NFS3ERR_INVAL : Nfs3Status.NFS3ERR_ACCES);
            FileStat stat = FileStat.of(path);
            Permissions.requireMayDelete(caller, dir.stat(), stat, path);
            if (directory && stat.type() != Ftype3.NF3DIR) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOTDIR, "not a directory: " + path);
            }
            if (!directory && stat.type() == Ftype3.NF3DIR) {
                throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "a directory: " + path);
            }
            Files.delete(path);
            ctx.metadata().changed(dir.path());
            forgetIfLastLink(stat);
            return new WccRes3(Nfs3Status.NFS3_OK, ctx.wcc(before, dir.path()));
        } catch (IOException | RuntimeException e) {
            return new WccRes3(NfsErrors.statusOf(e), dir == null ? WccData.EMPTY : ctx.wcc(before, dir.path()));
        }
    }

    private void forgetIfLastLink(FileStat stat) {
        if (stat.nlink() <= 1 || stat.type() == Ftype3.NF3DIR) {
            ctx.handles().removed(stat);
            ctx.openFiles().forget(stat.ino());
        }
    }

    /**
     * RENAME (§3.3.14) with rename(2)'s semantics: an existing target is replaced if it is of a
     * compatible type (a file by a file, a directory by an empty directory); a directory cannot
     * move below itself (NFS3ERR_INVAL). Permissions as rename(2): a writable export, write and
     * search permission on both directories, the sticky-directory rule for the moved and any
     * replaced entry, and write permission on a directory that moves to another parent (its ".."
     * changes).
     */
    public Rename3Res rename(Rename3Args args, Caller caller) {
        FileHandles.Resolved fromDir = null;
        FileHandles.Resolved toDir = null;
        WccAttr fromBefore = null;
        WccAttr toBefore = null;
        try {
            fromDir = ctx.resolveDirectory(args.from().dir(), caller);
            fromBefore = fromDir.stat().toWccAttr();
            toDir = ctx.resolveDirectory(args.to().dir(), caller);
            toBefore = toDir.stat().toWccAttr();
            ctx.requireDirectoryChange(fromDir, caller);
            ctx.requireDirectoryChange(toDir, caller);
            Path from = ctx.child(fromDir, args.from().name(), Nfs3Status.NFS3ERR_INVAL);
            Path to = ctx.child(toDir, args.to().name(), Nfs3Status.NFS3ERR_INVAL);
            FileStat moving = FileStat.of(from);
            Permissions.requireMayDelete(caller, fromDir.stat(), moving, from);
            FileStat replaced = null;
            if (!from.equals(to)) {
                try {
                    replaced = FileStat.of(to);
                } catch (java.nio.file.NoSuchFileException e) {
                    replaced = null;
                }
                if (replaced != null) {
                    Permissions.requireMayDelete(caller, toDir.stat(), replaced, to);
                }
                if (moving.type() == Ftype3.NF3DIR && !fromDir.path().equals(toDir.path())) {
                    Permissions.require(caller, moving, Permissions.WRITE, from);
                }
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
                ctx.metadata().changed(fromDir.path());
                ctx.metadata().changed(toDir.path());
                if (replaced != null && replaced.ino() != moving.ino()) {
                    forgetIfLastLink(replaced);
                }
                ctx.handles().moved(moving, toDir.stat(), to);
                ctx.openFiles().forget(moving.ino());
            }
            return new Rename3Res(Nfs3Status.NFS3_OK, ctx.wcc(fromBefore, fromDir.path()), ctx.wcc(toBefore, toDir.path()));
        } catch (IOException | RuntimeException e) {
            return new Rename3Res(NfsErrors.statusOf(e),
                    fromDir == null ? WccData.EMPTY : ctx.wcc(fromBefore, fromDir.path()),
                    toDir == null ? WccData.EMPTY : ctx.wcc(toBefore, toDir.path()));
        }
    }

    /**
     * LINK (§3.3.15): a hard link; directories cannot be linked. Needs a writable export, write and
     * search permission on the directory, and for another's file Linux's protected_hardlinks rule
     * ({@link Permissions#requireMayLink}).
     */
    public Link3Res link(Link3Args args, Caller caller) {
        FileHandles.Resolved file = null;
        FileHandles.Resolved dir = null;
        WccAttr before = null;
        try {
            file = ctx.resolve(args.file(), caller);
            if (file.isDirectory()) {
                throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "hard link to a directory");
            }
            dir = ctx.resolveDirectory(args.link().dir(), caller);
            before = dir.stat().toWccAttr();
            ctx.requireDirectoryChange(dir, caller);
            Permissions.requireMayLink(caller, file.stat(), file.path());
            Path link = ctx.child(dir, args.link().name(), Nfs3Status.NFS3ERR_EXIST);
            Files.createLink(link, file.path());
            ctx.metadata().changed(dir.path());
            ctx.metadata().changed(link); // its link count
            return new Link3Res(Nfs3Status.NFS3_OK, ctx.attributes(file.path()), ctx.wcc(before, dir.path()));
        } catch (IOException | RuntimeException e) {
            return new Link3Res(NfsErrors.statusOf(e), file == null ? null : ctx.attributes(file.path()),
                    dir == null ? WccData.EMPTY : ctx.wcc(before, dir.path()));
        }
    }
}
