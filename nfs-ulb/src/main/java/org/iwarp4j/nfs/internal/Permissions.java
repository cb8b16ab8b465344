package org.iwarp4j.nfs.internal;

import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Nfs3Status;

/**
 * The Unix permission rules the server applies for a {@link Caller}, as the kernel would if the
 * server could act as the caller (a Java process cannot setfsuid): one class of the mode bits
 * decides — owner if the uid matches, else group if the caller is in the file's group, else
 * other — and uid 0 may read and write anything and execute what has some execute bit (search
 * any directory).
 *
 * <p>Refusals are NFS3ERR_ACCES where the kernel says EACCES (mode bits) and NFS3ERR_PERM where
 * it says EPERM (only the owner or root may: chmod, chown, setting times, the sticky bit).
 */
public final class Permissions {

    public static final int READ = 4;
    public static final int WRITE = 2;
    public static final int EXECUTE = 1;

    private static final int S_ISUID = 04000;
    private static final int S_ISGID = 02000;
    private static final int S_ISVTX = 01000;

    private Permissions() {
    }

    /** Whether the mode bits give {@code caller} every access in {@code want} (READ|WRITE|EXECUTE). */
    public static boolean permits(Caller caller, FileStat file, int want) {
        if (caller.isRoot()) {
            return (want & EXECUTE) == 0 || file.type() == Ftype3.NF3DIR || (file.mode() & 0111) != 0;
        }
        int bits;
        if (caller.uid() == file.uid()) {
            bits = file.mode() >> 6;
        } else if (caller.inGroup(file.gid())) {
            bits = file.mode() >> 3;
        } else {
            bits = file.mode();
        }
        return (bits & want & 7) == want;
    }

    public static boolean isOwnerOrRoot(Caller caller, FileStat file) {
        return caller.isRoot() || caller.uid() == file.uid();
    }

    /** NFS3ERR_ACCES unless the mode bits permit {@code want}. */
    public static void require(Caller caller, FileStat file, int want, Object what) {
        if (!permits(caller, file, want)) {
            throw new NfsException(Nfs3Status.NFS3ERR_ACCES, caller + " may not " + verb(want) + " " + what);
        }
    }

    /**
     * As {@link #require}, but the owner may always: knfsd's owner override for READ, WRITE and
     * truncation, so that a client that opened a file and then made it mode 0 (fchmod) can still
     * use it — access checks are made at open on a local file system, on every call over NFS.
     */
    public static void requireOrOwner(Caller caller, FileStat file, int want, Object what) {
        if (caller.uid() != file.uid()) {
            require(caller, file, want, what);
        }
    }

    /**
     * READ: read permission, or execute permission alone (knfsd's "read if exec": a client runs a
     * program by reading it, and the client checks the execute bit itself); the owner always.
     */
    public static void requireRead(Caller caller, FileStat file, Object what) {
        if (caller.uid() != file.uid() && !permits(caller, file, READ) && !permits(caller, file, EXECUTE)) {
            throw new NfsException(Nfs3Status.NFS3ERR_ACCES, caller + " may not read " + what);
        }
    }

    /**
     * Removing or renaming {@code victim} from {@code dir}: in a sticky directory (mode 01000,
     * e.g. /tmp) only the victim's owner, the directory's owner or root may (EPERM otherwise).
     */
    public static void requireMayDelete(Caller caller, FileStat dir, FileStat victim, Object what) {
        if ((dir.mode() & S_ISVTX) != 0 && !caller.isRoot() && caller.uid() != victim.uid()
                && caller.uid() != dir.uid()) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, caller + " may not remove " + what
                    + " from a sticky directory");
        }
    }

    /**
     * LINK of a file the caller does not own: refused unless it could read and write it and it is
     * a regular file without setuid, or setgid with group execute — Linux's protected_hardlinks
     * (on by default), which stops users pinning others' files (EPERM).
     */
    public static void requireMayLink(Caller caller, FileStat file, Object what) {
        if (isOwnerOrRoot(caller, file)) {
            return;
        }
        boolean safe = file.type() == Ftype3.NF3REG && (file.mode() & S_ISUID) == 0
                && (file.mode() & (S_ISGID | 0010)) != (S_ISGID | 0010) && permits(caller, file, READ | WRITE);
        if (!safe) {
            throw new NfsException(Nfs3Status.NFS3ERR_PERM, caller + " may not link " + what);
        }
    }

    /** The mode a chmod by {@code caller} really sets: setgid is dropped for a group it is not in. */
    public static int chmodMode(Caller caller, FileStat file, int mode) {
        if (!caller.isRoot() && !caller.inGroup(file.gid())) {
            return mode & ~S_ISGID;
        }
        return mode;
    }

    /**
     * The mode of a directory {@code caller} just made, asked for with {@code requested}: knfsd
     * passes it to vfs_mkdir, which keeps only the permission bits and the sticky bit, and
     * inode_init_owner adds setgid when the parent is setgid, whoever the caller (the new
     * directory inherits the parent's group, and passes it on). The kernel has already done the
     * latter for the server's own mkdir, so {@code made}, the new directory's stat, shows it: a
     * chmod to the requested mode alone would drop it, as a Linux client always sends a mode.
     */
    public static int mkdirMode(int requested, FileStat made) {
        return requested & (0777 | S_ISVTX) | made.mode() & S_ISGID;
    }

    /**
     * The mode a regular file is left with after {@code caller} wrote to it or changed its size:
     * without setuid, and without setgid if group execute is set (setgid without it is the
     * mandatory-locking marker, kept), unless the caller is root after squashing. The server writes
     * as its own process, which may be root with CAP_FSETID, so the kernel never clears the bits
     * for it as it does for an unprivileged writer (file_remove_privs, should_remove_suid; on
     * truncate too, even by the owner); knfsd drops CAP_FSETID for a non-root caller
     * (nfsd_setuser), so there the same WRITE clears them. Without this a caller allowed to write a
     * setuid file of another user could put its own code in it and run it as that user. Answers
     * the file's mode unchanged when nothing is to be cleared.
     */
    public static int modeAfterWrite(Caller caller, FileStat file) {
        int mode = file.mode() & 07777;
        if (caller.isRoot() || file.type() != Ftype3.NF3REG) {
            return mode;
        }
        mode &= ~S_ISUID;
        if ((mode & 0010) != 0) {
            mode &= ~S_ISGID;
        }
        return mode;
    }

    private static String verb(int want) {
        StringBuilder b = new StringBuilder();
        if ((want & READ) != 0) {
            b.append("read");
        }
        if ((want & WRITE) != 0) {
            b.append(b.length() > 0 ? "+" : "").append("write");
        }
        if ((want & EXECUTE) != 0) {
            b.append(b.length() > 0 ? "+" : "").append("search/execute");
        }
        return b.toString();
    }
}
