package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.iwarp4j.nfs.internal.HookedHandles;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NFSv4.1's side of the race {@code NamespaceRaceTest} runs against NFSv3: a COMPOUND keeps PUTFH's
 * resolution for the operation after it, and between the two operations another session may
 * RENAME the directory away and put a SYMLINK to outside the export in its place. The operation
 * must then resolve the handle again ({@link CompoundState#current()} compares the namespace
 * lock's generation), not create its file through the link. The swap's two operations may come
 * both before OPEN or on either side of it; without the generation check OPEN then creates its
 * file outside, or fails on the path that no longer exists — either fails the test.
 */
class Nfs4NamespaceRaceTest {

    private static final long WAIT_MILLIS = 10_000;

    @TempDir
    Path tmp;

    private Path export;
    private Path outside;
    private HookedHandles hooked;
    private Nfs4Harness h;
    private byte[] u;
    private byte[] d;

    @BeforeEach
    void start() throws Exception {
        export = Files.createDirectory(tmp.resolve("export"));
        outside = Files.createDirectory(tmp.resolve("outside"));
        Files.createDirectories(export.resolve("u/d"));
        h = new Nfs4Harness(export, Nfs4Settings.defaults(), null, e -> {
            hooked = new HookedHandles(e, Path.of("u", "d")); // the last stat of d's resolution
            return hooked.handles;
        });
        h.session();
        Reply r = h.sequenced(putrootfh(), lookup("u"), op(OP_GETFH), lookup("d"), op(OP_GETFH));
        r.skipSequence();
        r.op(OP_PUTROOTFH);
        r.op(OP_LOOKUP);
        assertThat(r.op(OP_GETFH)).isEqualTo(NFS4_OK);
        u = r.in.readOpaque(NFS4_FHSIZE);
        r.op(OP_LOOKUP);
        assertThat(r.op(OP_GETFH)).isEqualTo(NFS4_OK);
        d = r.in.readOpaque(NFS4_FHSIZE);
    }

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    /**
     * From another thread, on slot 1: RENAME u/d to u/d2 and CREATE u/d as a symbolic link to the
     * directory outside, in one COMPOUND; its status.
     */
    private int swap() {
        List<Consumer<XdrEncoder>> ops = List.of(sequence(h.sessionId, 1, 1), putfh(u), op(OP_SAVEFH),
                e -> e.writeInt(OP_RENAME).writeString("d", 1024).writeString("d2", 1024),
                e -> {
                    e.writeInt(OP_CREATE).writeEnum(NF4LNK).writeString(outside.toString(), 4096)
                            .writeString("d", 1024);
                    Bitmap4.EMPTY.encode(e);
                    e.writeUnsignedInt(0);
                });
        ByteBuf in = args(1, "swap", ops);
        try {
            XdrMessage out = h.processor.compound(h.rpc(), new XdrDecoder(in));
            ByteBuf octets = out.stream();
            out.release();
            try {
                return octets.getInt(0);
            } finally {
                octets.release();
            }
        } finally {
            in.release();
        }
    }

    @Test
    void anOpenCreatingInADirectorySwappedAfterPutfhCreatesInTheClientsDirectoryNotOutside() throws Exception {
        CompletableFuture<Integer> swapped = new CompletableFuture<>();
        // At PUTFH's stat of u/d, under its shared hold: the swap starts and waits for the lock, so
        // it runs once PUTFH lets go, before or around OPEN, never before PUTFH's resolution.
        hooked.atNextStat(() -> {
            CompletableFuture.supplyAsync(this::swap).whenComplete((status, err) -> {
                if (err != null) {
                    swapped.completeExceptionally(err);
                } else {
                    swapped.complete(status);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
            while (!swapped.isDone() && h.base.namespace().waiting() == 0) {
                assertThat(System.nanoTime()).as("the swap finishes or waits").isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        });
        Reply open = h.sequenced(putfh(d), open("owner", "new", OPEN4_SHARE_ACCESS_BOTH, 0, true));
        assertThat(swapped.get(WAIT_MILLIS, TimeUnit.MILLISECONDS)).as("the swap").isEqualTo(NFS4_OK);

        assertThat(open.status).as("OPEN in the client's directory, wherever its name went").isEqualTo(NFS4_OK);
        assertThat(outside.resolve("new")).as("a file outside the export").doesNotExist();
        assertThat(export.resolve("u/d2/new")).as("the client's file, in its renamed directory").isRegularFile();
        assertThat(Files.isSymbolicLink(export.resolve("u/d"))).as("the swap happened").isTrue();
    }
}
