package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.ReadOnlyFileSystemException;
import java.nio.file.StandardCopyOption;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Java's file-system exceptions to nfsstat3 (RFC 1813 §2.6), one row per errno text glibc uses. */
class NfsErrorsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "Is a directory, NFS3ERR_ISDIR",
            "Not a directory, NFS3ERR_NOTDIR",
            "Directory not empty, NFS3ERR_NOTEMPTY",
            "No space left on device, NFS3ERR_NOSPC",
            "Read-only file system, NFS3ERR_ROFS",
            "File name too long, NFS3ERR_NAMETOOLONG",
            "Invalid argument, NFS3ERR_INVAL",
            "Too many links, NFS3ERR_MLINK",
            "Invalid cross-device link, NFS3ERR_XDEV",
            "Operation not permitted, NFS3ERR_PERM",
            "Disk quota exceeded, NFS3ERR_DQUOT",
            "File too large, NFS3ERR_FBIG",
            "Stale file handle, NFS3ERR_STALE",
            "Input/output error, NFS3ERR_IO"})
    void byStrerrorText(String reason, Nfs3Status status) {
        assertThat(NfsErrors.statusOf(new FileSystemException("/x", null, reason))).isEqualTo(status);
    }

    @Test
    void byExceptionType() {
        assertThat(NfsErrors.statusOf(new NoSuchFileException("/x"))).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
        assertThat(NfsErrors.statusOf(new FileAlreadyExistsException("/x"))).isEqualTo(Nfs3Status.NFS3ERR_EXIST);
        assertThat(NfsErrors.statusOf(new DirectoryNotEmptyException("/x"))).isEqualTo(Nfs3Status.NFS3ERR_NOTEMPTY);
        assertThat(NfsErrors.statusOf(new NotDirectoryException("/x"))).isEqualTo(Nfs3Status.NFS3ERR_NOTDIR);
        assertThat(NfsErrors.statusOf(new AccessDeniedException("/x"))).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(NfsErrors.statusOf((Throwable) new ReadOnlyFileSystemException())).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(NfsErrors.statusOf(new IOException("?"))).isEqualTo(Nfs3Status.NFS3ERR_IO);
        assertThat(NfsErrors.statusOf((Throwable) new IllegalStateException())).isEqualTo(Nfs3Status.NFS3ERR_SERVERFAULT);
        assertThat(NfsErrors.statusOf((Throwable) new NfsException(Nfs3Status.NFS3ERR_JUKEBOX, "busy")))
                .isEqualTo(Nfs3Status.NFS3ERR_JUKEBOX);
    }

    /** What this JVM really throws for rename(2) errors lands on the right status. */
    @Test
    void realRenameErrors(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("a/b"));
        Files.createDirectories(dir.resolve("full/x"));
        Files.createFile(dir.resolve("file"));
        assertThat(statusOfMove(dir.resolve("a"), dir.resolve("a/b/c"))).isEqualTo(Nfs3Status.NFS3ERR_INVAL);
        assertThat(statusOfMove(dir.resolve("a"), dir.resolve("full"))).isEqualTo(Nfs3Status.NFS3ERR_NOTEMPTY);
        assertThat(statusOfMove(dir.resolve("a"), dir.resolve("file"))).isEqualTo(Nfs3Status.NFS3ERR_NOTDIR);
        assertThat(statusOfMove(dir.resolve("file"), dir.resolve("a"))).isEqualTo(Nfs3Status.NFS3ERR_ISDIR);
    }

    private static Nfs3Status statusOfMove(Path from, Path to) {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
            return Nfs3Status.NFS3_OK;
        } catch (IOException e) {
            return NfsErrors.statusOf(e);
        }
    }
}
