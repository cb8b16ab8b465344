package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Read3Args;
import org.iwarp4j.nfs.v3.Read3Res;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * READ data lands in buffers the server keeps ({@link Nfs3Context#readBuffer}): a stream of 1 MiB
 * READs reuses the same memory once each result is released (no 1 MiB allocation, zeroing and page
 * faults per READ), a result still held is never lent again, and the server keeps at most
 * {@link Nfs3Context#KEPT_READ_BUFFERS} however many READs are outstanding.
 */
class ReadBuffersTest {

    private static final Caller ROOT = new Caller(0, 0, new int[0], true, new InetSocketAddress("127.0.0.1", 700));
    private static final ExportOptions RW = ExportOptions.builder().readWrite().rootSquash(false).build();
    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    private byte[] content;

    private NfsFh3 file(Nfs3Context ctx, int size) throws IOException {
        content = new byte[size];
        new Random(42).nextBytes(content);
        Path f = Files.write(dir.resolve("data"), content);
        return ctx.handles().handleOf(f, FileStat.of(f));
    }

    private void assertContent(Read3Res r, long offset, int length) {
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.data().readableBytes()).isEqualTo(length);
        byte[] got = new byte[length];
        r.data().getBytes(r.data().readerIndex(), got);
        byte[] want = java.util.Arrays.copyOfRange(content, (int) offset, (int) offset + length);
        assertThat(got).isEqualTo(want);
    }

    @Test
    void aReleasedReadsMemoryServesTheNextRead() throws IOException {
        try (Nfs3Context ctx = new Nfs3Context(new Export(dir, "/export"), RW, Nfs3Limits.defaults())) {
            NfsFh3 fh = file(ctx, 4 * MIB);
            DataOps ops = new DataOps(ctx);
            Set<Long> addresses = new HashSet<>();
            for (int i = 0; i < 12; i++) {
                long offset = (i % 4) * (long) MIB;
                Read3Res r = ops.read(new Read3Args(fh, offset, MIB), ROOT);
                try {
                    assertContent(r, offset, MIB);
                    addresses.add(r.data().memoryAddress());
                } finally {
                    r.release();
                }
            }
            assertThat(addresses).as("memory of 12 READs of 1 MiB, each released before the next").hasSize(1);
            assertThat(ctx.keptReadBuffers()).isEqualTo(1);
        }
    }

    @Test
    void heldReadsKeepTheirDataAndTheServerKeepsAtMostItsBound() throws IOException {
        try (Nfs3Context ctx = new Nfs3Context(new Export(dir, "/export"), RW, Nfs3Limits.defaults())) {
            NfsFh3 fh = file(ctx, 2 * MIB + 100);
            DataOps ops = new DataOps(ctx);
            List<Read3Res> held = new ArrayList<>();
            int outstanding = Nfs3Context.KEPT_READ_BUFFERS + 4;
            try {
                for (int i = 0; i < outstanding; i++) { // as a client keeping that many READs in flight
                    held.add(ops.read(new Read3Args(fh, (i % 2) * (long) MIB, MIB), ROOT));
                }
                assertThat(ctx.keptReadBuffers()).as("the bound").isEqualTo(Nfs3Context.KEPT_READ_BUFFERS);
                Set<Long> addresses = new HashSet<>();
                for (int i = 0; i < outstanding; i++) {
                    assertContent(held.get(i), (i % 2) * (long) MIB, MIB); // none overwritten by a later READ
                    addresses.add(held.get(i).data().memoryAddress());
                }
                assertThat(addresses).as("distinct memory for every READ still held").hasSize(outstanding);
                Read3Res tail = ops.read(new Read3Args(fh, 2L * MIB, MIB), ROOT); // short at the end of the file
                try {
                    assertContent(tail, 2L * MIB, 100);
                    assertThat(tail.eof()).isTrue();
                } finally {
                    tail.release();
                }
            } finally {
                held.forEach(Read3Res::release);
            }
            assertThat(ctx.keptReadBuffers()).isEqualTo(Nfs3Context.KEPT_READ_BUFFERS);
        }
    }
}
