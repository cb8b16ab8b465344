package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.v3.Commit3Args;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.Write3Args;
import org.iwarp4j.nfs.v3.Write3Res;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write verifier (RFC 1813 §3.3.7, §3.3.21) changes on any failed write or force, so that
 * every client with unstable data learns of it, not only the one whose COMMIT met the error
 * (Linux reports a write-back error once per open file description, and clients share one); and
 * a COMMIT whose channel is closed under it is done again on a fresh one (NFS3_OK, not
 * NFS3ERR_IO). Failures are injected through {@link FaultyFileIo}.
 */
class WriteVerifierTest {

    private static final Caller A = new Caller(0, 0, new int[0], true, new InetSocketAddress("127.0.0.1", 700));
    private static final Caller B = new Caller(0, 0, new int[0], true, new InetSocketAddress("127.0.0.2", 701));
    private static final ExportOptions RW = ExportOptions.builder().readWrite().rootSquash(false).build();

    @TempDir
    Path dir;

    private Nfs3Context ctx;
    private DataOps ops;
    private NfsFh3 fh;
    private long ino;

    @BeforeEach
    void setUp() throws IOException {
        ctx = new Nfs3Context(new Export(dir, "/export"), RW, Nfs3Limits.defaults());
        ops = new DataOps(ctx);
        Path f = Files.write(dir.resolve("shared"), new byte[0]);
        FileStat stat = FileStat.of(f);
        ino = stat.ino();
        fh = ctx.handles().handleOf(f, stat);
    }

    @org.junit.jupiter.api.AfterEach
    void tearDown() {
        ctx.close();
    }

    private Write3Res write(Caller caller, long offset, String text, StableHow stable) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        return ops.write(new Write3Args(fh, offset, b.length, stable, Unpooled.wrappedBuffer(b)), caller);
    }

    private Write3Res writeOk(Caller caller, long offset, String text) {
        Write3Res w = write(caller, offset, text, StableHow.UNSTABLE);
        assertThat(w.status()).isEqualTo(Nfs3Status.NFS3_OK);
        return w;
    }

    private Commit3Res commit(Caller caller) {
        return ops.commit(new Commit3Args(fh, 0, 0), caller);
    }

    @Test
    void aFailedCommitGivesTheOtherClientsCommitAndLaterWritesANewVerifier() {
        long v = writeOk(A, 0, "aaaa").verf();
        assertThat(writeOk(B, 4, "bbbb").verf()).isEqualTo(v);
        new FaultyFileIo() {
            @Override
            protected void beforeForce(int n, FileChannel channel) throws IOException {
                if (n == 1) {
                    throw new IOException("Input/output error (write-back failed)");
                }
            }
        }.install(ctx);

        assertThat(commit(B).status()).as("B's COMMIT meets the write-back error").isEqualTo(Nfs3Status.NFS3ERR_IO);
        Commit3Res a = commit(A);
        assertThat(a.status()).as("A's COMMIT on the same descriptor sees no error").isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(a.verf()).as("but answers a verifier other than its WRITEs', so A resends").isNotEqualTo(v);
        assertThat(writeOk(A, 0, "aaaa").verf()).as("a WRITE after the failure").isEqualTo(a.verf());
        assertThat(commit(A).verf()).as("and its COMMIT").isEqualTo(a.verf());
    }

    @Test
    void aFailedWriteGivesEveryLaterReplyANewVerifier() {
        long v = writeOk(A, 0, "aaaa").verf();
        new FaultyFileIo() {
            @Override
            protected void beforeWrite(int n) throws IOException {
                if (n == 1) {
                    throw new IOException("No space left on device");
                }
            }
        }.install(ctx);

        assertThat(write(B, 4, "bbbb", StableHow.UNSTABLE).status()).isEqualTo(Nfs3Status.NFS3ERR_IO);
        Commit3Res a = commit(A);
        assertThat(a.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(a.verf()).as("A's COMMIT after B's failed WRITE").isNotEqualTo(v);
        assertThat(writeOk(B, 4, "bbbb").verf()).as("a WRITE after the failure").isEqualTo(a.verf());
    }

    @Test
    void aStableWriteDuringWhichAForceOfTheFileFailedIsNotAcknowledged() {
        writeOk(A, 0, "aaaa");
        new FaultyFileIo() {
            @Override
            protected void beforeWrite(int n) {
                if (n == 2) {
                    // between B's data reaching the page cache and B's force, A's COMMIT meets the
                    // write-back error, which may be B's data's: B's force then sees none
                    assertThat(commit(A).status()).isEqualTo(Nfs3Status.NFS3ERR_IO);
                }
            }

            @Override
            protected void beforeForce(int n, FileChannel channel) throws IOException {
                if (n == 1) {
                    throw new IOException("Input/output error (write-back failed)");
                }
            }
        }.install(ctx);
        assertThat(writeOk(A, 0, "aaaa").status()).isEqualTo(Nfs3Status.NFS3_OK); // write 1

        assertThat(write(B, 4, "bbbb", StableHow.FILE_SYNC).status()).as("B's FILE_SYNC WRITE (write 2)")
                .isEqualTo(Nfs3Status.NFS3ERR_IO);
        assertThat(write(B, 4, "bbbb", StableHow.FILE_SYNC).status()).as("written again, with no failure meanwhile")
                .isEqualTo(Nfs3Status.NFS3_OK);
    }

    @Test
    void aCommitWhoseChannelIsClosedBeforeItsForceIsDoneOnAFreshOne() {
        long v = writeOk(A, 0, "aaaa").verf();
        new FaultyFileIo() {
            @Override
            protected void beforeForce(int n, FileChannel channel) {
                if (n == 1) {
                    // another request closes the cached channel (OpenFiles making room, or
                    // reopening it writable) after this COMMIT took it
                    ctx.openFiles().forget(ino);
                    assertThat(channel.isOpen()).isFalse();
                }
            }
        }.install(ctx);

        Commit3Res c = commit(A);
        assertThat(c.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(c.verf()).as("no fsync ran on the closed channel: nothing to resend").isEqualTo(v);
    }

    @Test
    void aCommitWhoseChannelIsClosedDuringItsForceAnswersANewVerifier() {
        long v = writeOk(A, 0, "aaaa").verf();
        new FaultyFileIo() {
            @Override
            protected void beforeForce(int n, FileChannel channel) throws IOException {
                if (n == 1) {
                    // Java reports a channel closed during a failed force so, not the force's
                    // error, which the closed descriptor consumed
                    ctx.openFiles().forget(ino);
                    throw new AsynchronousCloseException();
                }
            }
        }.install(ctx);

        Commit3Res c = commit(A);
        assertThat(c.status()).as("done again on a fresh channel").isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(c.verf()).as("the first force's outcome is unknown").isNotEqualTo(v);
    }

    @Test
    void aCommitRacingAFailingForceOfTheSameFileAnswersTheNewVerifier() throws Exception {
        long v = writeOk(A, 0, "aaaa").verf();
        assertThat(writeOk(B, 4, "bbbb").verf()).isEqualTo(v);
        CountDownLatch failing = new CountDownLatch(1);
        CountDownLatch fail = new CountDownLatch(1);
        new FaultyFileIo() {
            @Override
            protected void beforeForce(int n, FileChannel channel) throws IOException {
                if (n == 1) {
                    // B's fsync has consumed the error and not yet returned
                    failing.countDown();
                    try {
                        assertThat(fail.await(10, TimeUnit.SECONDS)).isTrue();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IOException("Input/output error (write-back failed)");
                }
            }
        }.install(ctx);
        CompletableFuture<Commit3Res> b = new CompletableFuture<>();
        Thread tb = new Thread(() -> b.complete(commit(B)));
        tb.start();
        assertThat(failing.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Commit3Res> a = new CompletableFuture<>();
        Thread ta = new Thread(() -> a.complete(commit(A)));
        ta.start();
        // A's COMMIT waits for B's force to end, so must not be answered before it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ta.getState() != Thread.State.BLOCKED && !a.isDone() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(a.isDone()).as("A's COMMIT answered while B's failing force was under way").isFalse();
        assertThat(ta.getState()).isEqualTo(Thread.State.BLOCKED);
        fail.countDown();

        assertThat(b.get(10, TimeUnit.SECONDS).status()).isEqualTo(Nfs3Status.NFS3ERR_IO);
        Commit3Res ca = a.get(10, TimeUnit.SECONDS);
        assertThat(ca.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(ca.verf()).isNotEqualTo(v);
        tb.join(10_000);
        ta.join(10_000);
    }
}
