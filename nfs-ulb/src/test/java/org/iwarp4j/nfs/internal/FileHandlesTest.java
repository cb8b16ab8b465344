package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.nfs.v3.Nfs3Constants;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File handles (RFC 1813 §2.5) resolved in work that does not grow with the export: a forged
 * handle costs a few file-system calls, counted through {@link FileHandles.Probe}.
 */
class FileHandlesTest {

    /** Offset of the inode number in a handle: version, type, 2 reserved, export id, device. */
    private static final int INODE_OFFSET = 20;
    /** Offset of the path hint. */
    private static final int HINT_OFFSET = 32;
    /** At most: the remembered path's stat and parent check, then the hint's. */
    private static final int CALLS_PER_RESOLUTION = 4;

    @TempDir
    Path dir;

    /** Counts every stat and realpath resolution makes. */
    static final class CountingProbe implements FileHandles.Probe {
        final AtomicLong calls = new AtomicLong();

        @Override
        public FileStat stat(Path path) throws IOException {
            calls.incrementAndGet();
            return FileStat.of(path);
        }

        @Override
        public Path realPath(Path path) throws IOException {
            calls.incrementAndGet();
            return path.toRealPath();
        }
    }

    private static NfsFh3 withInode(NfsFh3 fh, long ino) {
        byte[] b = fh.data();
        ByteBuffer.wrap(b).putLong(INODE_OFFSET, ino);
        return new NfsFh3(b);
    }

    private static Nfs3Status statusOf(FileHandles handles, NfsFh3 fh) {
        try {
            handles.resolve(fh);
            return Nfs3Status.NFS3_OK;
        } catch (NfsException e) {
            return e.status();
        }
    }

    /**
     * 100,000 files; 1,000 handles with the real root handle's export id and random inode numbers
     * (near the real ones, and anywhere): each is NFS3ERR_STALE after at most a few file-system
     * calls. Before handles carried a path, each forged handle walked the whole export.
     */
    @Test
    void forgedHandlesCostConstantWorkWhateverTheExportsSize() throws Exception {
        int directories = 10;
        int perDirectory = 10_000;
        long start = System.nanoTime();
        for (int d = 0; d < directories; d++) {
            Path sub = Files.createDirectory(dir.resolve("d" + d));
            for (int i = 0; i < perDirectory; i++) {
                Files.createFile(sub.resolve(Integer.toString(i)));
            }
        }
        System.out.printf("created %d files in %d ms%n", directories * perDirectory,
                (System.nanoTime() - start) / 1_000_000);
        Set<Long> real = new HashSet<>();
        long maxIno = 0;
        try (var all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                long ino = FileStat.of(p).ino();
                real.add(ino);
                maxIno = Math.max(maxIno, ino);
            }
        }
        assertThat(real).hasSize(directories * perDirectory + directories + 1);

        CountingProbe probe = new CountingProbe();
        FileHandles handles = new FileHandles(new Export(dir, "/export"), probe);
        NfsFh3 root = handles.rootHandle();
        SplittableRandom random = new SplittableRandom(1813);
        int forged = 0;
        while (forged < 1000) {
            long ino = forged % 2 == 0 ? random.nextLong(Math.max(1, maxIno + 100_000)) : random.nextLong();
            if (real.contains(ino)) {
                continue;
            }
            forged++;
            long before = probe.calls.get();
            assertThat(statusOf(handles, withInode(root, ino))).as("inode %d", ino).isEqualTo(Nfs3Status.NFS3ERR_STALE);
            assertThat(probe.calls.get() - before).as("file-system calls for inode %d", ino)
                    .isBetween(1L, (long) CALLS_PER_RESOLUTION);
        }
        assertThat(probe.calls.get()).isLessThanOrEqualTo(1000L * CALLS_PER_RESOLUTION);

        // The counter sees real work: a real file deep in the export still resolves, in a few calls.
        Path file = dir.resolve("d7/4242");
        NfsFh3 fh = handles.handleOf(file, FileStat.of(file));
        FileHandles restarted = new FileHandles(new Export(dir, "/export"), probe);
        long before = probe.calls.get();
        assertThat(restarted.resolve(fh).path()).isEqualTo(file);
        assertThat(probe.calls.get() - before).isBetween(1L, (long) CALLS_PER_RESOLUTION);
    }

    @Test
    void handlesFitFhsize3AndCarryShortPaths() throws Exception {
        FileHandles handles = new FileHandles(new Export(dir, "/export"));
        NfsFh3 root = handles.rootHandle();
        assertThat(root.length()).isEqualTo(HINT_OFFSET);
        Path shortPath = Files.createDirectories(dir.resolve("a/b"));
        NfsFh3 fh = handles.handleOf(shortPath, FileStat.of(shortPath));
        assertThat(fh.length()).isEqualTo(HINT_OFFSET + 3);
        assertThat(new String(fh.data(), HINT_OFFSET, 3, StandardCharsets.UTF_8)).isEqualTo("a/b");
        Path deep = Files.createDirectories(dir.resolve("x".repeat(20)).resolve("y".repeat(20)));
        NfsFh3 deepFh = handles.handleOf(deep, FileStat.of(deep));
        assertThat(deepFh.length()).isEqualTo(HINT_OFFSET);
        Path longest = Files.createDirectories(dir.resolve("z".repeat(Nfs3Constants.NFS3_FHSIZE - HINT_OFFSET)));
        assertThat(handles.handleOf(longest, FileStat.of(longest)).length()).isEqualTo(Nfs3Constants.NFS3_FHSIZE);
    }

    /** A restart keeps the handles of objects whose path fits in the handle; deeper ones become stale. */
    @Test
    void restart() throws Exception {
        Path near = Files.createFile(dir.resolve("near"));
        Path deep = Files.createDirectories(dir.resolve("x".repeat(30)).resolve("deep"));
        FileHandles first = new FileHandles(new Export(dir, "/export"));
        NfsFh3 nearFh = first.handleOf(near, FileStat.of(near));
        NfsFh3 deepFh = first.handleOf(deep, FileStat.of(deep));
        assertThat(first.resolve(deepFh).path()).isEqualTo(deep);

        FileHandles second = new FileHandles(new Export(dir, "/export"));
        assertThat(second.rootHandle()).isEqualTo(first.rootHandle());
        assertThat(second.resolve(nearFh).path()).isEqualTo(near);
        assertThat(second.handleOf(near, FileStat.of(near))).isEqualTo(nearFh);
        assertThat(statusOf(second, deepFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        // A client looks the name up again and gets a handle that works.
        assertThat(second.resolve(second.handleOf(deep, FileStat.of(deep))).path()).isEqualTo(deep);
    }

    /** RENAME through the server keeps the handle (same octets when issued again); after a restart it is stale. */
    @Test
    void renameThroughTheServer() throws Exception {
        Path a = Files.createDirectory(dir.resolve("a"));
        Path inner = Files.createFile(a.resolve("inner"));
        FileHandles handles = new FileHandles(new Export(dir, "/export"));
        NfsFh3 aFh = handles.handleOf(a, FileStat.of(a));
        NfsFh3 innerFh = handles.handleOf(inner, FileStat.of(inner));
        Path b = dir.resolve("b");
        FileStat aStat = FileStat.of(a);
        Files.move(a, b);
        handles.moved(aStat, a, b);
        assertThat(handles.resolve(aFh).path()).isEqualTo(b);
        assertThat(handles.resolve(innerFh).path()).isEqualTo(b.resolve("inner"));
        assertThat(handles.handleOf(b.resolve("inner"), FileStat.of(b.resolve("inner")))).isEqualTo(innerFh);

        FileHandles restarted = new FileHandles(new Export(dir, "/export"));
        assertThat(statusOf(restarted, innerFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
    }

    /**
     * A file moved behind the server's back is not searched for: its handle is stale (the client
     * looks the new name up); one replaced by a link to the outside too.
     */
    @Test
    void movedBehindTheServersBack(@TempDir Path outside) throws Exception {
        Path f = Files.createFile(dir.resolve("f"));
        Path sub = Files.createDirectory(dir.resolve("sub"));
        FileHandles handles = new FileHandles(new Export(dir, "/export"));
        NfsFh3 fh = handles.handleOf(f, FileStat.of(f));
        NfsFh3 subFh = handles.handleOf(sub, FileStat.of(sub));
        Files.move(f, dir.resolve("g"));
        assertThat(statusOf(handles, fh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        Path g = dir.resolve("g");
        assertThat(handles.resolve(handles.handleOf(g, FileStat.of(g))).path()).isEqualTo(g);

        Files.delete(sub);
        Files.createSymbolicLink(sub, outside);
        assertThat(statusOf(handles, subFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
    }

    /** The path a handle carries is checked: no "..", no link on the way, the inode must match. */
    @Test
    void forgedPathsDoNotLeaveTheExport(@TempDir Path outside) throws Exception {
        Path export = Files.createDirectory(dir.resolve("export"));
        Path secret = Files.writeString(dir.resolve("secret"), "x");
        Path secretInside = Files.createDirectory(outside.resolve("in"));
        Files.createSymbolicLink(export.resolve("link"), outside);
        FileHandles handles = new FileHandles(new Export(export, "/export"));
        NfsFh3 root = handles.rootHandle();
        FileStat secretStat = FileStat.of(secret);
        FileStat insideStat = FileStat.of(secretInside);

        assertThat(statusOf(handles, forged(root, secretStat, "../secret"))).isEqualTo(Nfs3Status.NFS3ERR_BADHANDLE);
        assertThat(statusOf(handles, forged(root, secretStat, "/secret"))).isEqualTo(Nfs3Status.NFS3ERR_BADHANDLE);
        assertThat(statusOf(handles, forged(root, secretStat, "a//b"))).isEqualTo(Nfs3Status.NFS3ERR_BADHANDLE);
        assertThat(statusOf(handles, forged(root, secretStat, "./x"))).isEqualTo(Nfs3Status.NFS3ERR_BADHANDLE);
        assertThat(statusOf(handles, forged(root, insideStat, "link/in"))).isEqualTo(Nfs3Status.NFS3ERR_STALE);

        byte[] notUtf8 = root.data();
        byte[] longer = java.util.Arrays.copyOf(notUtf8, HINT_OFFSET + 1);
        longer[HINT_OFFSET] = (byte) 0xFF;
        assertThat(statusOf(handles, new NfsFh3(longer))).isEqualTo(Nfs3Status.NFS3ERR_BADHANDLE);

        // The same forgery naming a real object of the export with its inode resolves: the path is
        // only a hint, what counts is what the server finds there.
        Path real = Files.createFile(export.resolve("real"));
        assertThat(handles.resolve(forged(root, FileStat.of(real), "real")).path()).isEqualTo(real);
    }

    /** Handles of the earlier format (version 1, from before this server's restart) are stale, not bad. */
    @Test
    void firstFormatHandlesAreStale() throws Exception {
        FileHandles handles = new FileHandles(new Export(dir, "/export"));
        byte[] v1 = handles.rootHandle().data();
        v1[0] = 1;
        assertThat(statusOf(handles, new NfsFh3(v1))).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        byte[] v9 = handles.rootHandle().data();
        v9[0] = 9;
        assertThat(statusOf(handles, new NfsFh3(v9))).isEqualTo(Nfs3Status.NFS3ERR_BADHANDLE);
    }

    /** The root handle with another object's type, device, inode and a path of ours. */
    private static NfsFh3 forged(NfsFh3 root, FileStat stat, String path) {
        byte[] hint = path.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(HINT_OFFSET + hint.length);
        b.put(root.data(), 0, HINT_OFFSET);
        b.put(1, (byte) stat.type().value());
        b.putLong(12, stat.dev()).putLong(INODE_OFFSET, stat.ino());
        b.put(HINT_OFFSET, hint);
        return new NfsFh3(b.array());
    }
}
