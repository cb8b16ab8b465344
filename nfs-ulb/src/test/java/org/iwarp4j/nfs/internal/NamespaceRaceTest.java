package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.iwarp4j.nfs.v3.StableHow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that swaps a directory for a symbolic link to outside the export (RENAME it away,
 * SYMLINK in its place) while another of its calls is between resolving a handle below that
 * directory and acting on the handle's path: the call must not reach the file outside. The swap
 * runs, through the server, at the moment the handle's resolution stats the file's directory (a
 * probe of the file handles), when the resolution has found the file where the handle says; the test then waits until the swap has either finished or is held up by the
 * server's {@link NamespaceLock}, and lets the call go on.
 */
class NamespaceRaceTest {

    private static final long WAIT_MILLIS = Nfs3OverTcp.WAIT_MILLIS;

    @TempDir
    Path tmp;

    private Path export;
    private Path outside;
    private HookedHandles hooked;
    private Nfs3OverTcp nfs;
    private Nfs3Context ctx;
    private NfsClient client;
    private NfsFh3 u;
    private NfsFh3 victim;

    @BeforeEach
    void start() throws IOException {
        export = Files.createDirectory(tmp.resolve("export"));
        outside = Files.createDirectory(tmp.resolve("outside"));
        Files.writeString(outside.resolve("victim"), "outside the export");
        Files.setPosixFilePermissions(outside.resolve("victim"), PosixFilePermissions.fromString("rw-------"));
        Path d = Files.createDirectories(export.resolve("u/d"));
        Files.writeString(d.resolve("victim"), "the client's own file");
        Files.setPosixFilePermissions(d.resolve("victim"), PosixFilePermissions.fromString("rw-------"));

        Export e = new Export(export, "/export");
        hooked = new HookedHandles(e, Path.of("u", "d")); // the last stat of the victim's resolution
        nfs = Nfs3OverTcp.start(e, hooked.handles);
        ctx = nfs.ctx;
        client = nfs.client;
        u = get(client.lookup(client.root(), "u")).object();
        NfsFh3 dHandle = get(client.lookup(u, "d")).object();
        victim = get(client.lookup(dHandle, "victim")).object();
    }

    @AfterEach
    void stop() {
        if (nfs != null) {
            nfs.close();
        }
    }

    private static <T> T get(CompletableFuture<T> f) {
        return Nfs3OverTcp.get(f);
    }

    /**
     * Arms the swap: at the next stat of the victim's directory by the file handles, RENAME u/d to u/d2 and
     * SYMLINK u/d to the directory outside, through the server; the stat returns once the swap is
     * done or waits for the namespace lock.
     */
    private CompletableFuture<Void> armSwap() {
        CompletableFuture<Void> swapped = new CompletableFuture<>();
        hooked.atNextStat(() -> {
            CompletableFuture.runAsync(() -> {
                assertThat(get(client.rename(u, "d", u, "d2")).status()).isEqualTo(Nfs3Status.NFS3_OK);
                assertThat(get(client.symlink(u, "d", outside.toString())).status()).isEqualTo(Nfs3Status.NFS3_OK);
            }).whenComplete((v, err) -> {
                if (err != null) {
                    swapped.completeExceptionally(err);
                } else {
                    swapped.complete(null);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
            while (!swapped.isDone() && ctx.namespace().waiting() == 0) {
                assertThat(System.nanoTime()).as("the swap finishes or waits").isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        });
        return swapped;
    }

    @Test
    void aSetattrRacingASwapOfItsDirectoryChangesTheClientsFileNotTheOneOutside() throws Exception {
        CompletableFuture<Void> swapped = armSwap();
        Nfs3Status status = get(client.setattr(new Setattr3Args(victim, Sattr3.mode(0666), null))).status();
        get(swapped);

        assertThat(status).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(outside.resolve("victim"))))
                .as("the file outside the export").isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(export.resolve("u/d2/victim"))))
                .as("the client's file, renamed with its directory").isEqualTo("rw-rw-rw-");
        assertThat(Files.isSymbolicLink(export.resolve("u/d"))).as("the swap happened after").isTrue();
    }

    /**
     * WRITE holds the namespace lock only to open its channel: its resolution may come before the
     * swap, and the path it resolved then leads outside. The open finds the path naming another
     * inode and answers NFS3ERR_JUKEBOX; the client's retry resolves the handle again (the server
     * renamed the directory, so it knows where the file is) and writes the client's own file.
     */
    @Test
    void aWriteWhosePathWasSwappedAfterItsResolutionIsRetriedNotWrittenOutside() throws Exception {
        CompletableFuture<Void> swapped = armSwap();
        Nfs3Status first = get(client.write(victim, 0, Unpooled.copiedBuffer("XX", StandardCharsets.US_ASCII),
                StableHow.FILE_SYNC)).status();
        get(swapped);
        assertThat(Files.readString(outside.resolve("victim"))).as("the file outside the export")
                .isEqualTo("outside the export");
        assertThat(first).as("the path named another inode when the channel was opened")
                .isEqualTo(Nfs3Status.NFS3ERR_JUKEBOX);

        Nfs3Status retry = get(client.write(victim, 0, Unpooled.copiedBuffer("XX", StandardCharsets.US_ASCII),
                StableHow.FILE_SYNC)).status();
        assertThat(retry).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(Files.readString(export.resolve("u/d2/victim"))).isEqualTo("XXe client's own file");
        assertThat(Files.readString(outside.resolve("victim"))).isEqualTo("outside the export");
    }
}
