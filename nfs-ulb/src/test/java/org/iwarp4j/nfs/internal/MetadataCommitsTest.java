package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.Nfs3OverTcp.get;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Names and attributes an NFSv3 operation changed are on stable storage before its reply: each
 * changed directory and object is forced, after the operation let go of the namespace lock (a
 * slow disk holds up no other operation) and before the client has the reply; a force that fails
 * is NFS3ERR_IO. The forces are recorded by a seam in place of {@code fsync}.
 */
class MetadataCommitsTest {

    @TempDir
    Path dir;

    private Nfs3OverTcp nfs;
    private NfsClient client;
    private NfsFh3 root;
    private Path export;
    private final List<Path> forced = new CopyOnWriteArrayList<>();
    private final AtomicBoolean forcedUnderTheLock = new AtomicBoolean();
    private final AtomicBoolean failForces = new AtomicBoolean();

    @BeforeEach
    void start() throws IOException {
        export = dir.toRealPath();
        Files.createDirectory(export.resolve("sub"));
        Files.writeString(export.resolve("f"), "data");
        Export e = new Export(export, "/export");
        nfs = Nfs3OverTcp.start(e, new FileHandles(e));
        client = nfs.client;
        root = client.root();
        nfs.ctx.metadata().forcing((path, channel) -> {
            if (nfs.ctx.namespace().held()) {
                forcedUnderTheLock.set(true);
            }
            if (failForces.get()) {
                throw new IOException("a failing disk, for the test");
            }
            forced.add(path);
        });
    }

    @AfterEach
    void stop() {
        if (nfs != null) {
            nfs.close();
        }
    }

    private NfsFh3 handle(NfsFh3 in, String name) {
        return get(client.lookup(in, name)).object();
    }

    @Test
    void eachChangeOfNamesOrAttributesIsForcedBeforeTheReplyAndOutsideTheLock() {
        assertThat(get(client.create(Create3Args.guarded(new DirOpArgs3(root, "new"), Sattr3.mode(0640)))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(forced).as("CREATE: the directory and the new file").containsExactly(export, export.resolve("new"));

        forced.clear();
        assertThat(get(client.mkdir(root, "d", Sattr3.mode(0755))).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(forced).as("MKDIR").containsExactly(export, export.resolve("d"));

        forced.clear();
        assertThat(get(client.symlink(root, "l", "f")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(forced).as("SYMLINK: its directory (a link cannot be opened to be forced)").containsExactly(export);

        forced.clear();
        NfsFh3 sub = handle(root, "sub");
        assertThat(get(client.rename(root, "new", sub, "moved")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(forced).as("RENAME: both directories").containsExactly(export, export.resolve("sub"));

        forced.clear();
        NfsFh3 f = handle(root, "f");
        assertThat(get(client.link(f, sub, "f2")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(forced).as("LINK: the directory and the file (its link count)")
                .containsExactly(export.resolve("sub"), export.resolve("sub/f2"));

        forced.clear();
        assertThat(get(client.setattr(new Setattr3Args(f, Sattr3.mode(0600), null))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(forced).as("SETATTR").containsExactly(export.resolve("f"));

        forced.clear();
        assertThat(get(client.remove(sub, "f2")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.rmdir(root, "d")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(forced).as("REMOVE, RMDIR: the directories").containsExactly(export.resolve("sub"), export);

        forced.clear();
        get(client.lookup(root, "f"));
        get(client.getattr(f));
        assertThat(forced).as("nothing changed, nothing forced").isEmpty();
        assertThat(forcedUnderTheLock).as("no force while the namespace lock was held").isFalse();
    }

    /**
     * A file the server may not open once its mode is 0 (a server not running as root; the seam
     * refuses the open, since the tests may run as root): the SETATTR that made it so succeeded,
     * and its directory is forced in its place.
     */
    @Test
    void aFileTheServerMayNotOpenHasItsDirectoryForcedInstead() throws IOException {
        nfs.ctx.metadata().opening((path, how) -> {
            if (path.endsWith("f")) {
                throw new java.nio.file.AccessDeniedException(path.toString());
            }
            return java.nio.channels.FileChannel.open(path, how);
        });
        NfsFh3 f = handle(root, "f");
        assertThat(get(client.setattr(new Setattr3Args(f, Sattr3.mode(0), null))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(Files.getPosixFilePermissions(export.resolve("f"))).isEmpty();
        assertThat(forced).containsExactly(export);
    }

    @Test
    void aChangeThatCannotBeMadeStableIsAnIoError() {
        failForces.set(true);
        assertThat(get(client.mkdir(root, "d", Sattr3.mode(0755))).status()).isEqualTo(Nfs3Status.NFS3ERR_IO);
        assertThat(get(client.setattr(new Setattr3Args(handle(root, "f"), Sattr3.mode(0600), null))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_IO);
        failForces.set(false);
        assertThat(get(client.rmdir(root, "d")).status()).as("the directory was made; only its force failed")
                .isEqualTo(Nfs3Status.NFS3_OK);
    }
}
