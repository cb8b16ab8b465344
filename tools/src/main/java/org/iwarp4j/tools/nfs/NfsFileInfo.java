package org.iwarp4j.tools.nfs;

import java.time.Instant;

/**
 * What the nfs commands show of a file, whichever NFS version told them: the ls type letter
 * ({@code d}, {@code -}, {@code l}, ...), the permission bits, links, owner ids (-1 when the version
 * did not return them as numbers), size, mtime (null if unknown), and the owner and group as the
 * server named them (NFSv4's owner and owner_group strings, RFC 8881 §5.8.2.26/27; null in NFSv3).
 */
public record NfsFileInfo(String name, char type, int mode, long links, long uid, long gid, long size, Instant mtime,
                          String owner, String group) {

    /** Numeric owners only (NFSv3). */
    public NfsFileInfo(String name, char type, int mode, long links, long uid, long gid, long size, Instant mtime) {
        this(name, type, mode, links, uid, gid, size, mtime, null, null);
    }

    /** This information under another name. */
    public NfsFileInfo withName(String newName) {
        return new NfsFileInfo(newName, type, mode, links, uid, gid, size, mtime, owner, group);
    }

    /** The owner as ls shows it: the name the server gave, else the uid, else "-". */
    public String ownerText() {
        return owner != null ? owner : uid < 0 ? "-" : Long.toString(uid);
    }

    /** The group as ls shows it: the name the server gave, else the gid, else "-". */
    public String groupText() {
        return group != null ? group : gid < 0 ? "-" : Long.toString(gid);
    }

    /** An NFSv3 file's attributes (RFC 1813 §2.6 fattr3). */
    public static NfsFileInfo of(String name, org.iwarp4j.nfs.v3.Fattr3 a) {
        char type = switch (a.type()) {
            case NF3DIR -> 'd';
            case NF3LNK -> 'l';
            case NF3BLK -> 'b';
            case NF3CHR -> 'c';
            case NF3SOCK -> 's';
            case NF3FIFO -> 'p';
            default -> '-';
        };
        return new NfsFileInfo(name, type, a.mode(), Integer.toUnsignedLong(a.nlink()), Integer.toUnsignedLong(a.uid()),
                Integer.toUnsignedLong(a.gid()), a.size(), a.mtime().toInstant());
    }

    public boolean isDirectory() {
        return type == 'd';
    }

    public boolean isRegularFile() {
        return type == '-';
    }
}
