package org.iwarp4j.nfs.internal;

import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_DELETE;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_EXECUTE;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_EXTEND;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_LOOKUP;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_MODIFY;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_READ;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.v3.Access3Args;
import org.iwarp4j.nfs.v3.Access3Res;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Fsinfo3Res;
import org.iwarp4j.nfs.v3.Fsstat3Res;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Getattr3Res;
import org.iwarp4j.nfs.v3.Nfs3Constants;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.NfsTime3;
import org.iwarp4j.nfs.v3.Pathconf3Res;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.SetTime3;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.iwarp4j.nfs.v3.TimeHow;
import org.iwarp4j.nfs.v3.WccAttr;
import org.iwarp4j.nfs.v3.WccData;
import org.iwarp4j.nfs.v3.WccRes3;

/** GETATTR, SETATTR, ACCESS, FSSTAT, FSINFO and PATHCONF (RFC 1813 §3.3.1, 3.3.2, 3.3.4, 3.3.18-3.3.20). */
public final class AttributeOps {

    private final Nfs3Context ctx;

    public AttributeOps(Nfs3Context ctx) {
        this.ctx = ctx;
    }

    /** GETATTR needs no permission on the object (as stat(2) needs none on the file itself). */
    public Getattr3Res getattr(NfsFh3 object, Caller caller) {
        try {
            return new Getattr3Res(Nfs3Status.NFS3_OK, ctx.attributes(ctx.resolve(object, caller).stat()));
        } catch (RuntimeException e) {
            return Getattr3Res.fail(NfsErrors.statusOf(e));
        }
    }

    /**
     * SETATTR: with a guard, nothing changes unless the ctime matches (NFS3ERR_NOT_SYNC). Mode,
     * owner and group go through the {@code unix} attribute view, size through truncate (or a
     * zero octet written at the new end to extend), times through the basic view without
     * following a symbolic link. The times of a FIFO or a device are NFS3ERR_NOTSUPP: java.nio
     * would open it to set them ({@link #opensOnTimeChange}).
     *
     * <p>Permissions, as the kernel's chmod, chown, truncate and utimensat (knfsd's nfsd_setattr):
     * a read-only export refuses with NFS3ERR_ROFS; mode, and times set to the client's values,
     * only by the owner or root (NFS3ERR_PERM); uid only by root (the owner may name itself), gid
     * by root or by the owner to a group it is in or the file's group (NFS3ERR_PERM), and neither
     * by anyone else even unchanged; size needs write permission (NFS3ERR_ACCES; the owner may,
     * knfsd's owner override); times set to the server's "now" need ownership or write permission.
     */
    public WccRes3 setattr(Setattr3Args args, Caller caller) {
        WccAttr before = null;
        Path path = null;
        try {
            FileHandles.Resolved r = ctx.resolve(args.object(), caller);
            path = r.path();
            before = r.stat().toWccAttr();
            ctx.requireWritable();
            if (args.guardCtime() != null && !args.guardCtime().equals(before.ctime())) {
                throw new NfsException(Nfs3Status.NFS3ERR_NOT_SYNC, "ctime guard");
            }
            apply(r, args.newAttributes(), caller, false);
            ctx.metadata().changed(path);
            return new WccRes3(Nfs3Status.NFS3_OK, ctx.wcc(before, path));
        } catch (IOException | RuntimeException e) {
            return new WccRes3(NfsErrors.statusOf(e), path == null ? WccData.EMPTY : ctx.wcc(before, path));
        }
    }

    /**
     * Applies sattr3 to a resolved object as {@code caller}; used by SETATTR and CREATE, MKDIR. All
     * permission checks come before any change. For an object the caller just created
     * ({@code created}), mode and times are the creator's to set, and uid and gid are ignored
     * unless the caller is root — knfsd drops them too (some clients send their gid on CREATE);
     * a new directory's mode is {@link Permissions#mkdirMode} (setgid in a setgid parent).
     */
    public void apply(FileHandles.Resolved r, Sattr3 s, Caller caller, boolean created) throws IOException {
        Path path = r.path();
        FileStat st = r.stat();
        boolean owner = created || Permissions.isOwnerOrRoot(caller, st);
        Integer uid = s.uid();
        Integer gid = s.gid();
        if (created && !caller.isRoot()) {
            uid = null;
            gid = null;
        }
        if (s.size() != null && !created) {
            Permissions.requireOrOwner(caller, st, Permissions.WRITE, path);
        }
        if (s.mode() != null && !owner) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, caller + " may not chmod " + path);
        }
        if ((uid != null || gid != null) && !caller.isRoot()) {
            // setattr_prepare's chown_ok and chgrp_ok: only the owner, even to the values the
            // file has — the chown that follows is not a no-op, it clears setuid and setgid
            // (chown_common's ATTR_KILL_SUID/SGID) and changes the ctime
            if (caller.uid() != st.uid()) {
                throw new NfsException(Nfs3Status.NFS3ERR_PERM, caller + " may not chown " + path);
            }
            if (uid != null && uid != st.uid()) {
                throw new NfsException(Nfs3Status.NFS3ERR_PERM, caller + " may not give away " + path);
            }
            if (gid != null && gid != st.gid() && !caller.inGroup(gid)) {
                throw new NfsException(Nfs3Status.NFS3ERR_PERM, caller + " may not chgrp " + path + " to " + gid);
            }
        }
        if ((s.atime().how() == TimeHow.SET_TO_CLIENT_TIME || s.mtime().how() == TimeHow.SET_TO_CLIENT_TIME) && !owner) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, caller + " may not set the times of " + path);
        }
        if ((s.atime().how() == TimeHow.SET_TO_SERVER_TIME || s.mtime().how() == TimeHow.SET_TO_SERVER_TIME) && !owner) {
            Permissions.require(caller, st, Permissions.WRITE, path);
        }
        boolean times = s.atime().how() != TimeHow.DONT_CHANGE || s.mtime().how() != TimeHow.DONT_CHANGE;
        if (times && opensOnTimeChange(st.type())) {
            throw new NfsException(Nfs3Status.NFS3ERR_NOTSUPP, "times of a " + st.type() + " cannot be set without"
                    + " opening it: " + path);
        }
        if (s.size() != null) {
            if (r.stat().type() == Ftype3.NF3DIR) {
                throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "size of a directory");
            }
            if (r.stat().type() != Ftype3.NF3REG) {
                throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "size of a " + r.stat().type());
            }
            setSize(r, s.size());
            if (s.mode() == null) {
                // a truncate or extension by a caller that is not root clears setuid (and setgid
                // with group execute) as the kernel's do_truncate does for an unprivileged process,
                // owner or not (Permissions#modeAfterWrite); a mode set in the same call wins
                removePrivileges(r, caller);
            }
        }
        if (s.mode() != null && r.stat().type() != Ftype3.NF3LNK) {
            int mode = created && st.type() == Ftype3.NF3DIR ? Permissions.mkdirMode(s.mode(), st)
                    : Permissions.chmodMode(caller, st, s.mode() & 07777);
            setMode(path, st.type(), mode);
        }
        if (uid != null) {
            Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        }
        if (gid != null) {
            Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        }
        if (times) {
            Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setTimes(time(s.mtime()), time(s.atime()), null);
        }
    }

    private void setSize(FileHandles.Resolved r, long size) throws IOException {
        if (size < 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_FBIG, "size " + Long.toUnsignedString(size));
        }
        FileChannel channel = ctx.openFiles().channel(r, true);
        if (size < channel.size()) {
            channel.truncate(size);
        } else if (size > channel.size()) {
            channel.write(java.nio.ByteBuffer.allocate(1), size - 1);
        }
    }

    /**
     * Clears what {@link Permissions#modeAfterWrite} drops after a write or size change by
     * {@code caller}, by a chmod of the resolution's path; nothing (no call) when the mode in the
     * resolution's stat has none of those bits. The caller holds the {@link NamespaceLock} shared
     * and the resolution is current, or has checked the path still names the inode.
     */
    static boolean removePrivileges(FileHandles.Resolved r, Caller caller) throws IOException {
        int mode = Permissions.modeAfterWrite(caller, r.stat());
        if (mode == (r.stat().mode() & 07777)) {
            return false;
        }
        setMode(r.path(), r.stat().type(), mode);
        return true;
    }

    /**
     * chmod of {@code path}, which the caller lstat'ed as a {@code type} under the
     * {@link NamespaceLock}. knfsd's nfsd_setattr changes the inode through notify_change and
     * never opens it; java.nio's mode change with NOFOLLOW_LINKS opens the object O_RDONLY and
     * calls fchmod on that (JDK 17's UnixPath.openForAttributeAccess, JDK 22+'s
     * UnixFileAttributeViews.Posix.setMode). Opening a FIFO that has no writer blocks the worker,
     * which holds the namespace lock shared, so every operation that changes names waited behind
     * it, and then every other; opening a device runs its driver's open; a socket cannot be
     * opened at all (ENXIO). Those get chmod(2) on the path, which opens nothing: java.nio calls it
     * when links are followed, and the path's last component is no link — the lstat said so, and
     * no client can change a name while the lock is held (a local process can:
     * limits.md#names-changing-under-a-call).
     */
    static void setMode(Path path, Ftype3 type, int mode) throws IOException {
        try {
            if (isSpecial(type)) {
                Files.setAttribute(path, "unix:mode", mode);
            } else {
                Files.setAttribute(path, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
            }
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            Set<PosixFilePermission> perms = EnumSet.noneOf(PosixFilePermission.class);
            for (PosixFilePermission p : PosixFilePermission.values()) {
                if ((mode & (0400 >> p.ordinal())) != 0) {
                    perms.add(p);
                }
            }
            Files.setPosixFilePermissions(path, perms);
        }
    }

    /** A FIFO, a device or a socket: neither a regular file, a directory nor a symbolic link. */
    private static boolean isSpecial(Ftype3 type) {
        return type == Ftype3.NF3FIFO || type == Ftype3.NF3CHR || type == Ftype3.NF3BLK || type == Ftype3.NF3SOCK;
    }

    /**
     * Whether java.nio would open an object of {@code type} to set its times: it sets them through
     * futimens on a descriptor it opens O_RDONLY (UnixPath.openForAttributeAccess, on JDK 17 and
     * 25 alike), falling back to utimensat on the path only when that open fails with ELOOP or
     * ENXIO — as it does for a socket. A FIFO's open blocks without a writer and a device's runs
     * its driver (see {@link #setMode}), and java.nio has no other way to set both times, so a
     * SETATTR of the times of those is NFS3ERR_NOTSUPP; the kernel's utimensat, and knfsd, would
     * set them.
     */
    private static boolean opensOnTimeChange(Ftype3 type) {
        return type == Ftype3.NF3FIFO || type == Ftype3.NF3CHR || type == Ftype3.NF3BLK;
    }

    private static FileTime time(SetTime3 t) {
        return switch (t.how()) {
            case DONT_CHANGE -> null;
            case SET_TO_SERVER_TIME -> FileTime.from(Instant.now());
            case SET_TO_CLIENT_TIME -> FileTime.from(t.time().seconds() * 1_000_000_000L + t.time().nseconds(),
                    TimeUnit.NANOSECONDS);
        };
    }

    /**
     * ACCESS (RFC 1813 §3.3.4): the asked bits the caller really has, by the same rules the
     * operations apply — READ from read permission, LOOKUP and EXECUTE from execute (search)
     * permission, MODIFY, EXTEND and (on a directory) DELETE from write permission — on a
     * directory write and search permission — none of those three on a read-only export. A symbolic link grants READ only. A server not running as root
     * also grants only what its own process may do, as that limits the operations too.
     */
    public Access3Res access(Access3Args args, Caller caller) {
        try {
            FileHandles.Resolved r = ctx.resolve(args.object(), caller);
            Path p = r.path();
            FileStat st = r.stat();
            boolean dir = r.isDirectory();
            boolean asRoot = Nfs3Context.canChown();
            int granted = 0;
            if (Permissions.permits(caller, st, Permissions.READ) && (asRoot || Files.isReadable(p))) {
                granted |= ACCESS3_READ;
            }
            // changing a directory's entries needs search permission too (requireDirectoryChange),
            // so knfsd's nfs3_diraccess maps MODIFY, EXTEND and DELETE to EXEC|WRITE
            int change = dir ? Permissions.WRITE | Permissions.EXECUTE : Permissions.WRITE;
            if (!ctx.options().readOnly() && Permissions.permits(caller, st, change)
                    && (asRoot || Files.isWritable(p) && (!dir || Files.isExecutable(p)))) {
                granted |= ACCESS3_MODIFY | ACCESS3_EXTEND | (dir ? ACCESS3_DELETE : 0);
            }
            if (Permissions.permits(caller, st, Permissions.EXECUTE) && (asRoot || Files.isExecutable(p))) {
                granted |= dir ? ACCESS3_LOOKUP : ACCESS3_EXECUTE;
            }
            if (st.type() == Ftype3.NF3LNK) {
                granted = ACCESS3_READ;
            }
            return new Access3Res(Nfs3Status.NFS3_OK, ctx.attributes(st), granted & args.access());
        } catch (RuntimeException e) {
            return new Access3Res(NfsErrors.statusOf(e), null, 0);
        }
    }

    /** FSSTAT from the export's FileStore. java.nio has no inode counts: file slots are reported as 2^32-1. */
    public Fsstat3Res fsstat(NfsFh3 root, Caller caller) {
        Fattr3 attrs = null;
        try {
            FileHandles.Resolved r = ctx.resolve(root, caller);
            attrs = ctx.attributes(r.stat());
            FileStore store = Files.getFileStore(r.path());
            long files = 0xFFFF_FFFFL;
            return new Fsstat3Res(Nfs3Status.NFS3_OK, attrs, store.getTotalSpace(), store.getUnallocatedSpace(),
                    store.getUsableSpace(), files, files, files, 0);
        } catch (IOException | RuntimeException e) {
            return Fsstat3Res.fail(NfsErrors.statusOf(e), attrs);
        }
    }

    /** FSINFO: this server's limits; nanosecond times; hard and symbolic links; settable times. */
    public Fsinfo3Res fsinfo(NfsFh3 root, Caller caller) {
        try {
            Fattr3 attrs = ctx.attributes(ctx.resolve(root, caller).stat());
            Nfs3Limits l = ctx.limits();
            return new Fsinfo3Res(Nfs3Status.NFS3_OK, attrs, l.maxRead(), l.maxRead(), 4096, l.maxWrite(),
                    l.maxWrite(), 4096, l.preferredReaddir(), Long.MAX_VALUE, new NfsTime3(0, 1),
                    Nfs3Constants.FSF3_LINK | Nfs3Constants.FSF3_SYMLINK | Nfs3Constants.FSF3_HOMOGENEOUS
                            | Nfs3Constants.FSF3_CANSETTIME);
        } catch (RuntimeException e) {
            return Fsinfo3Res.fail(NfsErrors.statusOf(e), null);
        }
    }

    /**
     * PATHCONF: NAME_MAX 255, long names refused rather than truncated, chown restricted, case
     * sensitive and preserving. java.nio cannot ask the file system for LINK_MAX; 32000 is what Linux
     * reports for ext4.
     */
    public Pathconf3Res pathconf(NfsFh3 object, Caller caller) {
        try {
            Fattr3 attrs = ctx.attributes(ctx.resolve(object, caller).stat());
            return new Pathconf3Res(Nfs3Status.NFS3_OK, attrs, 32000, Nfs3Limits.NAME_MAX, true, true, false, true);
        } catch (RuntimeException e) {
            return Pathconf3Res.fail(NfsErrors.statusOf(e), null);
        }
    }
}
