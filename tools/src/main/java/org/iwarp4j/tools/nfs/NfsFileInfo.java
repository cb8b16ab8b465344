package org.iwarp4j.tools.nfs;

import java.time.Instant;

/**
 * What the nfs commands show of a file, whichever NFS version told them: the ls type letter
 * ({@code d}, {@code -}, {@code l}, ...), the permission bits, links, owner ids (-1 when the version
 * did not return them as numbers), size, mtime (null if unknown).
 */
public record NfsFileInfo(String name, char type, int mode, long links, long uid, long gid, long size, Instant mtime) {

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
