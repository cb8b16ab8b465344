package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.iwarp4j.nfs.internal.CountingHandles;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How often the server resolves a file handle (a stat and a {@code toRealPath} of the parent) for
 * the COMPOUND an NFSv4.1 client sends per READ, SEQUENCE, PUTFH, READ: once, as for an NFSv3
 * READ, not once for PUTFH, once for READ's checks and once more for the read itself (and
 * likewise for WRITE). And the
 * resolution PUTFH made is not used past the operation after it, where a WRITE may have changed
 * what it says.
 */
class Nfs4ReadResolutionTest {

    private static final int SIZE = 65536;

    @TempDir
    Path dir;
    Nfs4Harness h;
    final AtomicReference<CountingHandles> counting = new AtomicReference<>();
    byte[] content;
    byte[] fh;

    @BeforeEach
    void start() throws Exception {
        content = new byte[SIZE];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31 + 7);
        }
        Files.write(dir.resolve("f"), content);
        h = new Nfs4Harness(dir, Nfs4Settings.defaults(), null, export -> {
            counting.set(new CountingHandles(export));
            return counting.get().handles;
        });
        h.session();
        Reply r = h.sequenced(putrootfh(), lookup("f"), op(OP_GETFH));
        r.skipSequence();
        r.op(OP_PUTROOTFH);
        r.op(OP_LOOKUP);
        assertThat(r.op(OP_GETFH)).isEqualTo(NFS4_OK);
        fh = r.in.readOpaque(128);
    }

    @AfterEach
    void stop() {
        h.close();
    }

    /** The resolver's file-system calls {@code run} makes. */
    private long calls(Runnable run) {
        long before = counting.get().calls.get();
        run.run();
        return counting.get().calls.get() - before;
    }

    @Test
    void aReadAfterPutfhResolvesTheHandleOnlyOnce() {
        long putfhAlone = calls(() -> assertThat(h.sequenced(putfh(fh)).status).isEqualTo(NFS4_OK));
        assertThat(putfhAlone).as("one resolution costs file-system calls").isPositive();

        AtomicReference<Reply> read = new AtomicReference<>();
        long withRead = calls(() -> read.set(h.sequenced(putfh(fh), read(Stateid4.ANONYMOUS, 0, SIZE))));
        assertThat(withRead).as("SEQUENCE, PUTFH, READ: PUTFH's resolution serves the READ").isEqualTo(putfhAlone);

        Reply r = read.get();
        assertThat(r.status).isEqualTo(NFS4_OK);
        r.skipSequence();
        r.op(OP_PUTFH);
        assertThat(r.op(OP_READ)).isEqualTo(NFS4_OK);
        assertThat(r.in.readBoolean()).as("eof").isTrue();
        assertThat(r.in.readOpaque(Integer.MAX_VALUE)).isEqualTo(content);
    }

    @Test
    void aWriteAfterPutfhResolvesTheHandleOnlyOnce() throws Exception {
        long putfhAlone = calls(() -> assertThat(h.sequenced(putfh(fh)).status).isEqualTo(NFS4_OK));
        byte[] data = new byte[1000];
        Arrays.fill(data, (byte) 9);
        long withWrite = calls(() -> assertThat(h.sequenced(putfh(fh), write(Stateid4.ANONYMOUS, 0, UNSTABLE4, data))
                .status).isEqualTo(NFS4_OK));
        assertThat(withWrite).as("SEQUENCE, PUTFH, WRITE: PUTFH's resolution serves the WRITE").isEqualTo(putfhAlone);
        assertThat(Arrays.copyOf(Files.readAllBytes(dir.resolve("f")), data.length)).isEqualTo(data);
    }

    @Test
    void putfhsResolutionIsNotUsedPastTheNextOperation() {
        byte[] more = new byte[100];
        Arrays.fill(more, (byte) 5);
        Reply r = h.sequenced(putfh(fh), write(Stateid4.ANONYMOUS, SIZE, FILE_SYNC4, more), getattr(FATTR4_SIZE),
                read(Stateid4.ANONYMOUS, SIZE, 1000));
        assertThat(r.status).isEqualTo(NFS4_OK);
        r.skipSequence();
        r.op(OP_PUTFH);
        assertThat(r.op(OP_WRITE)).isEqualTo(NFS4_OK);
        assertThat(r.in.readInt()).as("count written").isEqualTo(more.length);
        r.in.readInt();
        r.in.readHyper();
        assertThat(r.op(OP_GETATTR)).isEqualTo(NFS4_OK);
        assertThat(Bitmap4.decode(r.in)).isEqualTo(Bitmap4.of(FATTR4_SIZE));
        assertThat(r.in.readInt()).isEqualTo(8);
        assertThat(r.in.readHyper()).as("the size after the WRITE, not PUTFH's").isEqualTo(SIZE + more.length);
        assertThat(r.op(OP_READ)).isEqualTo(NFS4_OK);
        assertThat(r.in.readBoolean()).as("eof").isTrue();
        assertThat(r.in.readOpaque(Integer.MAX_VALUE)).isEqualTo(more);
    }
}
