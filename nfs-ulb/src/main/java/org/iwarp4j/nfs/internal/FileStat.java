package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.NfsTime3;
import org.iwarp4j.nfs.v3.SpecData3;
import org.iwarp4j.nfs.v3.WccAttr;

/**
 * What stat(2) says about a file, read with java.nio without following a final symbolic link:
 * the {@code unix:*} attributes where the platform has them (Linux, macOS), else basic and POSIX
 * attributes with the file key's hash standing in for the inode number.
 *
 * @param type the file type
 * @param mode the permission bits with setuid, setgid and sticky (07777)
 * @param nlink link count
 * @param uid owner
 * @param gid group
 * @param size size in octets
 * @param rdev the device number of a device file
 * @param dev the device the file is on
 * @param ino the inode number
 * @param atime last access, nanoseconds since the epoch
 * @param mtime last modification
 * @param ctime last status change
 */
public record FileStat(Ftype3 type, int mode, int nlink, int uid, int gid, long size, long rdev, long dev, long ino,
                       long atime, long mtime, long ctime) {

    private static final int S_IFMT = 0170000;
    private static final boolean UNIX_VIEW = FileSystems.getDefault().supportedFileAttributeViews().contains("unix");
    private static final String UNIX_ATTRIBUTES = "unix:mode,ino,dev,rdev,nlink,uid,gid,size,lastAccessTime,"
            + "lastModifiedTime,ctime";

    /** Reads the attributes of {@code path} itself (a symbolic link is not followed). */
    public static FileStat of(Path path) throws IOException {
        if (UNIX_VIEW) {
            Map<String, Object> a = Files.readAttributes(path, UNIX_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) a.get("mode");
            return new FileStat(typeOf(mode), mode & 07777, (Integer) a.get("nlink"), (Integer) a.get("uid"),
                    (Integer) a.get("gid"), (Long) a.get("size"), (Long) a.get("rdev"), (Long) a.get("dev"),
                    (Long) a.get("ino"), nanos(a.get("lastAccessTime")), nanos(a.get("lastModifiedTime")),
                    nanos(a.get("ctime")));
        }
        BasicFileAttributes b = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        int mode = 0;
        try {
            PosixFileAttributes p = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            mode = permissionBits(p.permissions());
        } catch (UnsupportedOperationException e) {
            mode = 0755;
        }
        Ftype3 type = b.isDirectory() ? Ftype3.NF3DIR : b.isSymbolicLink() ? Ftype3.NF3LNK
                : b.isRegularFile() ? Ftype3.NF3REG : Ftype3.NF3FIFO;
        long ino = b.fileKey() != null ? b.fileKey().hashCode() & 0xFFFF_FFFFL : path.hashCode() & 0xFFFF_FFFFL;
        return new FileStat(type, mode, 1, 0, 0, b.size(), 0, 0, ino, nanos(b.lastAccessTime()),
                nanos(b.lastModifiedTime()), nanos(b.lastModifiedTime()));
    }

    private static long nanos(Object time) {
        return ((FileTime) time).to(TimeUnit.NANOSECONDS);
    }

    private static Ftype3 typeOf(int mode) {
        return switch (mode & S_IFMT) {
            case 0040000 -> Ftype3.NF3DIR;
            case 0120000 -> Ftype3.NF3LNK;
            case 0060000 -> Ftype3.NF3BLK;
            case 0020000 -> Ftype3.NF3CHR;
            case 0140000 -> Ftype3.NF3SOCK;
            case 0010000 -> Ftype3.NF3FIFO;
            default -> Ftype3.NF3REG;
        };
    }

    static int permissionBits(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= 0400 >> p.ordinal();
        }
        return mode;
    }

    /**
     * As fattr3 (RFC 1813 §2.6). java.nio has no block count, so {@code used} is the size rounded
     * up to 4096-octet blocks; fsid is the export's id, so the export looks like one file system.
     */
    public Fattr3 toFattr3(long fsid) {
        long used = (size + 4095) & ~4095L;
        return new Fattr3(type, mode, nlink, uid, gid, size, used, new SpecData3(major(rdev), minor(rdev)), fsid, ino,
                NfsTime3.ofEpochNanos(atime), NfsTime3.ofEpochNanos(mtime), NfsTime3.ofEpochNanos(ctime));
    }

    /** The wcc_attr subset (RFC 1813 §2.6). */
    public WccAttr toWccAttr() {
        return new WccAttr(size, NfsTime3.ofEpochNanos(mtime), NfsTime3.ofEpochNanos(ctime));
    }

    /** glibc's gnu_dev_major. */
    private static int major(long dev) {
        return (int) (((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL));
    }

    /** glibc's gnu_dev_minor. */
    private static int minor(long dev) {
        return (int) ((dev & 0xff) | ((dev >>> 12) & ~0xffL));
    }
}
