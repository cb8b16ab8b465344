package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.ReadOnlyFileSystemException;
import java.util.Map;
import org.iwarp4j.nfs.v3.Nfs3Status;

/**
 * Maps Java's file-system exceptions to nfsstat3 (RFC 1813 §2.6). java.nio reports most errno
 * values as a {@link FileSystemException} whose reason is the C library's strerror text, so those
 * are matched by that text (glibc's wording); anything unrecognised is NFS3ERR_IO.
 */
public final class NfsErrors {

    private static final Map<String, Nfs3Status> BY_REASON = Map.ofEntries(
            Map.entry("Is a directory", Nfs3Status.NFS3ERR_ISDIR),
            Map.entry("Not a directory", Nfs3Status.NFS3ERR_NOTDIR),
            Map.entry("Directory not empty", Nfs3Status.NFS3ERR_NOTEMPTY),
            Map.entry("No space left on device", Nfs3Status.NFS3ERR_NOSPC),
            Map.entry("Read-only file system", Nfs3Status.NFS3ERR_ROFS),
            Map.entry("File name too long", Nfs3Status.NFS3ERR_NAMETOOLONG),
            Map.entry("Invalid argument", Nfs3Status.NFS3ERR_INVAL),
            Map.entry("Too many links", Nfs3Status.NFS3ERR_MLINK),
            Map.entry("Invalid cross-device link", Nfs3Status.NFS3ERR_XDEV),
            Map.entry("Operation not permitted", Nfs3Status.NFS3ERR_PERM),
            Map.entry("Permission denied", Nfs3Status.NFS3ERR_ACCES),
            Map.entry("Disk quota exceeded", Nfs3Status.NFS3ERR_DQUOT),
            Map.entry("File too large", Nfs3Status.NFS3ERR_FBIG),
            Map.entry("No such file or directory", Nfs3Status.NFS3ERR_NOENT),
            Map.entry("File exists", Nfs3Status.NFS3ERR_EXIST),
            Map.entry("Too many levels of symbolic links", Nfs3Status.NFS3ERR_INVAL),
            Map.entry("Stale file handle", Nfs3Status.NFS3ERR_STALE));

    private NfsErrors() {
    }

    /** The status for an I/O failure. */
    public static Nfs3Status statusOf(IOException e) {
        if (e instanceof NoSuchFileException) {
            return Nfs3Status.NFS3ERR_NOENT;
        }
        if (e instanceof FileAlreadyExistsException) {
            return Nfs3Status.NFS3ERR_EXIST;
        }
        if (e instanceof DirectoryNotEmptyException) {
            return Nfs3Status.NFS3ERR_NOTEMPTY;
        }
        if (e instanceof NotDirectoryException) {
            return Nfs3Status.NFS3ERR_NOTDIR;
        }
        if (e instanceof NotLinkException || e instanceof FileSystemLoopException) {
            return Nfs3Status.NFS3ERR_INVAL;
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            Nfs3Status byReason = BY_REASON.get(fse.getReason());
            if (byReason != null) {
                return byReason;
            }
        }
        if (e instanceof AccessDeniedException) {
            return Nfs3Status.NFS3ERR_ACCES;
        }
        return Nfs3Status.NFS3ERR_IO;
    }

    /** The status for any failure of an operation. */
    public static Nfs3Status statusOf(Throwable t) {
        if (t instanceof NfsException e) {
            return e.status();
        }
        if (t instanceof IOException e) {
            return statusOf(e);
        }
        if (t instanceof ReadOnlyFileSystemException) {
            return Nfs3Status.NFS3ERR_ROFS;
        }
        if (t instanceof UnsupportedOperationException) {
            return Nfs3Status.NFS3ERR_NOTSUPP;
        }
        if (t instanceof SecurityException) {
            return Nfs3Status.NFS3ERR_ACCES;
        }
        return Nfs3Status.NFS3ERR_SERVERFAULT;
    }
}
