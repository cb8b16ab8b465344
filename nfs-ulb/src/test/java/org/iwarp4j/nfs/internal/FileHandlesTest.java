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
    /** At most: the remembered path's stat and its parent's, then the hint's stat and parent check. */
    private static final int CALLS_PER_RESOLUTION = 4;

    @TempDir
    Path dir;

    /** Counts every stat and realpath resolution makes. */
    static final class CountingProbe implements FileHandles.Probe {
        final AtomicLong calls = new AtomicLong();
        final AtomicLong realPaths = new AtomicLong();

        @Override
        public FileStat stat(Path path) throws IOException {
            calls.incrementAndGet();
            return FileStat.of(path);
        }

        @Override
        public Path realPath(Path path) throws IOException {
            calls.incrementAndGet();
            realPaths.incrementAndGet();
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
     * 5,000 files; 1,000 handles with the real root handle's export id and random inode numbers
     * (near the real ones, and anywhere): each is NFS3ERR_STALE after at most a few file-system
     * calls. Before handles carried a path, each forged handle walked the whole export.
     */
    @Test
    void forgedHandlesCostConstantWorkWhateverTheExportsSize() throws Exception {
        int directories = 10;
        int perDirectory = 500;
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
        Path file = dir.resolve("d7/242");
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
        NfsFh3 xFh = lookup(first, deep.getParent());
        NfsFh3 deepFh = lookup(first, deep);
        assertThat(first.resolve(deepFh).path()).isEqualTo(deep);

        FileHandles second = new FileHandles(new Export(dir, "/export"));
        assertThat(second.rootHandle()).isEqualTo(first.rootHandle());
        assertThat(second.resolve(nearFh).path()).isEqualTo(near);
        assertThat(second.handleOf(near, FileStat.of(near))).isEqualTo(nearFh);
        assertThat(statusOf(second, deepFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        // A client looks the name up again, in the directory whose handle still works (its path
        // fitted), and gets a handle that works.
        FileHandles.Resolved x = second.resolve(xFh);
        assertThat(x.path()).isEqualTo(deep.getParent());
        assertThat(second.resolve(second.handleOf(deep, FileStat.of(deep), x)).path()).isEqualTo(deep);
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
        handles.moved(aStat, FileStat.of(dir), b);
        assertThat(handles.resolve(aFh).path()).isEqualTo(b);
        assertThat(handles.resolve(innerFh).path()).isEqualTo(b.resolve("inner"));
        assertThat(handles.handleOf(b.resolve("inner"), FileStat.of(b.resolve("inner")))).isEqualTo(innerFh);

        FileHandles restarted = new FileHandles(new Export(dir, "/export"));
        assertThat(statusOf(restarted, innerFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
    }

    /** A handle for {@code path}, found in its parent directory as LOOKUP and READDIRPLUS do. */
    private static NfsFh3 lookup(FileHandles handles, Path path) throws IOException {
        Path parent = path.getParent();
        return handles.handleOf(path, FileStat.of(path), new FileHandles.Resolved(parent, FileStat.of(parent)));
    }

    /**
     * {@link FileHandles#preview} answers the octets handleOf will, without remembering the inode
     * or counting a handle made: for a new inode (its path), one already issued (the octets first
     * issued, even after a rename) and a removed one (its raised generation).
     */
    @Test
    void previewIsTheHandleToComeAndRemembersNothing() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        Path f = Files.createFile(sub.resolve("f"));
        FileHandles handles = new FileHandles(new Export(dir, "/export"));
        FileHandles.Resolved parent = new FileHandles.Resolved(sub, FileStat.of(sub));
        int known = handles.knownCount();
        long issued = handles.issued();

        NfsFh3 preview = handles.preview(f, FileStat.of(f));
        assertThat(handles.knownCount()).isEqualTo(known);
        assertThat(handles.issued()).isEqualTo(issued);
        NfsFh3 made = handles.handleOf(f, FileStat.of(f), parent);
        assertThat(preview).isEqualTo(made);
        assertThat(handles.knownCount()).isEqualTo(known + 1);

        Path g = sub.resolve("g");
        rename(handles, f, g);
        assertThat(handles.preview(g, FileStat.of(g))).as("the octets first issued").isEqualTo(made)
                .isEqualTo(handles.handleOf(g, FileStat.of(g), parent));

        FileStat gStat = FileStat.of(g);
        handles.removed(gStat);
        NfsFh3 afterRemoval = handles.preview(g, gStat);
        assertThat(afterRemoval).as("a raised generation").isNotEqualTo(made)
                .isEqualTo(handles.handleOf(g, gStat, parent));
    }

    /** RENAME through the server: the file system's, then the handles'. */
    private static void rename(FileHandles handles, Path from, Path to) throws IOException {
        FileStat moving = FileStat.of(from);
        Files.move(from, to);
        handles.moved(moving, FileStat.of(to.getParent()), to);
    }

    /**
     * A directory RENAME costs the same few entries whatever was looked up below it: 2,000
     * handles issued two levels below a directory renamed 200 times. Counted, not timed: the
     * server used to rewrite the remembered path of every handle it had issued on each directory
     * RENAME (2,000 entries visited per call here), so a client that had looked up many names
     * could make every RENAME cost the server work in proportion to them.
     */
    @Test
    void directoryRenameCostsConstantWorkWhateverIsKnownBelowIt() throws Exception {
        Path top = Files.createDirectory(dir.resolve("top"));
        Path mid = Files.createDirectory(top.resolve("mid"));
        int files = 2_000;
        for (int i = 0; i < files; i++) {
            Files.createFile(mid.resolve("file-with-a-name-too-long-to-fit-" + i));
        }
        FileHandles handles = new FileHandles(new Export(dir, "/export"));
        NfsFh3 topFh = lookup(handles, top);
        NfsFh3 midFh = lookup(handles, mid);
        NfsFh3[] fhs = new NfsFh3[files];
        for (int i = 0; i < files; i++) {
            fhs[i] = lookup(handles, mid.resolve("file-with-a-name-too-long-to-fit-" + i));
            assertThat(fhs[i].length()).as("no path fits").isEqualTo(HINT_OFFSET);
        }
        assertThat(handles.knownCount()).isEqualTo(files + 2);

        Path a = top;
        Path b = dir.resolve("elsewhere");
        Files.createDirectory(b);
        lookup(handles, b); // RENAME's target directory is always one the client has a handle for
        long before = handles.visits();
        for (int round = 0; round < 200; round++) {
            Path to = b.resolve("top" + round);
            rename(handles, a, to);
            a = to;
        }
        long perRename = (handles.visits() - before) / 200;
        assertThat(perRename).as("entries visited per directory RENAME").isLessThanOrEqualTo(3L);

        // Every handle below still names its object (no path fits in them: only the server's
        // memory can find them), and resolving one reads one entry per level, not more.
        assertThat(handles.resolve(topFh).path()).isEqualTo(a);
        assertThat(handles.resolve(midFh).path()).isEqualTo(a.resolve("mid"));
        for (int i = 0; i < files; i++) {
            long visits = handles.visits();
            assertThat(handles.resolve(fhs[i]).path()).isEqualTo(a.resolve("mid/file-with-a-name-too-long-to-fit-" + i));
            assertThat(handles.visits() - visits).as("entries read to resolve a handle 4 levels deep")
                    .isLessThanOrEqualTo(4L);
        }
    }

    /**
     * Handles survive renames at every level, made after what lies below was looked up: the
     * deepest directory, a middle one into another directory, then the top one; names too long
     * for any path to fit in a handle, so only the server's memory of where each inode lives
     * can find them.
     */
    @Test
    void handlesSurviveNestedRenamesOfAncestors() throws Exception {
        String n = "n".repeat(12);
        Path a = Files.createDirectory(dir.resolve("a" + n));
        Path b = Files.createDirectory(a.resolve("b" + n));
        Path c = Files.createDirectory(b.resolve("c" + n));
        Path d = Files.createDirectory(c.resolve("d" + n));
        Path f = Files.writeString(d.resolve("f" + n), "x");
        Path other = Files.createDirectory(dir.resolve("other" + n));
        FileHandles handles = new FileHandles(new Export(dir, "/export"));
        NfsFh3 aFh = lookup(handles, a);
        NfsFh3 bFh = lookup(handles, b);
        NfsFh3 cFh = lookup(handles, c);
        NfsFh3 dFh = lookup(handles, d);
        NfsFh3 fFh = lookup(handles, f);
        NfsFh3 otherFh = lookup(handles, other);
        assertThat(fFh.length()).isEqualTo(HINT_OFFSET);

        Path d2 = c.resolve("d2");
        rename(handles, d, d2);
        Path b2 = other.resolve("b2");
        rename(handles, b, b2);
        Path a2 = dir.resolve("a2");
        rename(handles, a, a2);
        Path other2 = a2.resolve("other2");
        rename(handles, other, other2);

        // b2 now lives under other2, which lives under a2: a chain of renames through the server.
        Path bNow = other2.resolve("b2");
        Path cNow = bNow.resolve("c" + n);
        Path dNow = cNow.resolve("d2");
        assertThat(handles.resolve(aFh).path()).isEqualTo(a2);
        assertThat(handles.resolve(otherFh).path()).isEqualTo(other2);
        assertThat(handles.resolve(bFh).path()).isEqualTo(bNow);
        assertThat(handles.resolve(cFh).path()).isEqualTo(cNow);
        assertThat(handles.resolve(dFh).path()).isEqualTo(dNow);
        assertThat(handles.resolve(fFh).path()).isEqualTo(dNow.resolve("f" + n));
        assertThat(Files.readString(handles.resolve(fFh).path())).isEqualTo("x");
        // The same octets, looked up at the new place.
        assertThat(lookup(handles, dNow.resolve("f" + n))).isEqualTo(fFh);
        assertThat(lookup(handles, cNow)).isEqualTo(cFh);

        // A directory moved behind the server's back: what lies below is stale, not searched for.
        Files.move(cNow, dir.resolve("hidden"));
        assertThat(statusOf(handles, fFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        assertThat(statusOf(handles, dFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        assertThat(handles.resolve(bFh).path()).isEqualTo(bNow);
    }

    /**
     * After a restart, a handle found through the path it carries teaches the server where its
     * object and the directories on the way live: a later rename of an ancestor through the
     * server keeps it working (one stat per directory of the carried path, no more).
     */
    @Test
    void handleFoundThroughItsPathAfterARestartSurvivesAnAncestorsRename() throws Exception {
        Path f = Files.createFile(Files.createDirectories(dir.resolve("a/b/c")).resolve("f"));
        NfsFh3 fFh = lookup(new FileHandles(new Export(dir, "/export")), f);
        assertThat(fFh.length()).isEqualTo(HINT_OFFSET + "a/b/c/f".length());

        CountingProbe probe = new CountingProbe();
        FileHandles restarted = new FileHandles(new Export(dir, "/export"), probe);
        long before = probe.calls.get();
        assertThat(restarted.resolve(fFh).path()).isEqualTo(f);
        // Nothing remembered: the carried path's stat and parent check, then a, a/b and a/b/c.
        assertThat(probe.calls.get() - before).isEqualTo(5L);

        Path z = dir.resolve("z");
        rename(restarted, dir.resolve("a"), z);
        Path b2 = z.resolve("b2");
        rename(restarted, z.resolve("b"), b2);
        before = probe.calls.get();
        assertThat(restarted.resolve(fFh).path()).isEqualTo(b2.resolve("c/f"));
        assertThat(probe.calls.get() - before).as("found where remembered: it and its directory").isEqualTo(2L);
    }

    /**
     * A handle 1,000 directories deep, whose place the server remembers, resolves with two stats
     * (the object and its directory) and no check of the directories on the way: that check ({@code Path.toRealPath}) reads every
     * prefix of the path, work in the square of the depth (26 ms here at 1,000 levels, 100 ms at
     * 2,000), which a client that made a deep chain of directories could ask for with every call.
     */
    @Test
    void aDeepHandleCostsTwoStatsWhateverItsDepth() throws Exception {
        CountingProbe probe = new CountingProbe();
        FileHandles handles = new FileHandles(new Export(dir, "/export"), probe);
        Path deepest = dir;
        NfsFh3 fh = null;
        for (int level = 0; level < 1000; level++) {
            deepest = Files.createDirectory(deepest.resolve("d"));
            fh = lookup(handles, deepest);
        }
        assertThat(fh.length()).as("too deep to carry its path").isEqualTo(HINT_OFFSET);
        long calls = probe.calls.get();
        long realPaths = probe.realPaths.get();
        assertThat(handles.resolve(fh).path()).isEqualTo(deepest);
        assertThat(probe.calls.get() - calls).isEqualTo(2L);
        assertThat(probe.realPaths.get() - realPaths).isZero();
    }

    /**
     * A directory replaced behind the server's back by a symbolic link: a remembered handle below
     * it is followed through the link only to its own inode (the directory was moved out and
     * linked back, as knfsd with no_subtree_check follows it); a link to anything else makes it
     * stale, and so does the handle's carried path, whose parents are checked for links.
     */
    @Test
    void aDirectoryReplacedByALinkBehindTheServersBack(@TempDir Path outside) throws Exception {
        Path f = Files.writeString(Files.createDirectories(dir.resolve("a/b")).resolve("f"), "x");
        FileHandles handles = new FileHandles(new Export(dir, "/export"));
        lookup(handles, dir.resolve("a"));
        lookup(handles, dir.resolve("a/b"));
        NfsFh3 fFh = lookup(handles, f);

        Files.move(dir.resolve("a"), outside.resolve("a"));
        Files.createSymbolicLink(dir.resolve("a"), outside.resolve("a"));
        assertThat(FileStat.of(handles.resolve(fFh).path()).ino()).isEqualTo(FileStat.of(outside.resolve("a/b/f")).ino());

        Files.delete(dir.resolve("a"));
        Path elsewhere = Files.createDirectories(outside.resolve("elsewhere/b"));
        Files.writeString(elsewhere.resolve("f"), "not the handle's file");
        Files.createSymbolicLink(dir.resolve("a"), outside.resolve("elsewhere"));
        assertThat(statusOf(handles, fFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);

        // A server that does not remember f finds it through the carried path a/b/f, with a link
        // on the way to f's own inode: stale, as the parents are checked.
        Files.delete(dir.resolve("a"));
        Files.createSymbolicLink(dir.resolve("a"), outside.resolve("a"));
        CountingProbe fresh = new CountingProbe();
        assertThat(statusOf(new FileHandles(new Export(dir, "/export"), fresh), fFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        assertThat(fresh.realPaths.get()).isEqualTo(1L);
    }

    /**
     * At most {@code maxKnown} inodes are remembered; the least recently used is forgotten. A
     * forgotten handle whose path fits is resolved through it; one whose path did not fit is
     * stale, and looking the name up again gives a handle that works. What is used stays.
     */
    @Test
    void rememberedInodesAreBounded() throws Exception {
        int bound = 16;
        Path shallow = Files.createDirectory(dir.resolve("s"));
        Path deep = Files.createDirectory(dir.resolve("d".repeat(40)));
        FileHandles handles = new FileHandles(new Export(dir, "/export"), bound);
        NfsFh3 shallowFh = lookup(handles, shallow);
        NfsFh3 deepDirFh = lookup(handles, deep);
        Path near = Files.createFile(shallow.resolve("near"));
        Path far = Files.createFile(deep.resolve("far"));
        NfsFh3 nearFh = lookup(handles, near);
        NfsFh3 farFh = lookup(handles, far);
        assertThat(farFh.length()).isEqualTo(HINT_OFFSET);
        // Kept in use all along: it must outlive everything issued after it.
        Path busy = Files.createFile(deep.resolve("busy"));
        NfsFh3 busyFh = lookup(handles, busy);

        for (int i = 0; i < 10 * bound; i++) {
            Path p = Files.createFile(deep.resolve("file-" + i));
            lookup(handles, p);
            assertThat(handles.knownCount()).isLessThanOrEqualTo(bound);
            assertThat(handles.resolve(busyFh).path()).isEqualTo(busy);
        }
        assertThat(handles.knownCount()).isEqualTo(bound);

        // Forgotten: the short path still finds its object, the long one could not be carried.
        assertThat(handles.resolve(nearFh).path()).isEqualTo(near);
        assertThat(handles.resolve(shallowFh).path()).isEqualTo(shallow);
        assertThat(statusOf(handles, farFh)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        NfsFh3 again = lookup(handles, far);
        assertThat(handles.resolve(again).path()).isEqualTo(far);
        // The directory kept in use with busy is remembered: its handle carries no path either.
        assertThat(deepDirFh.length()).isEqualTo(HINT_OFFSET);
        assertThat(handles.resolve(deepDirFh).path()).isEqualTo(deep);
        assertThat(lookup(handles, busy)).isEqualTo(busyFh);
        assertThat(handles.knownCount()).isEqualTo(bound);
    }

    /**
     * Forgetting never lets the handle of a removed object name a new one with the same inode
     * number: the removal raised the generation, and forgetting the inode keeps its generation as
     * its bucket's floor. (The object stays in place here to stand for a new file given the same
     * inode number and path, which the file system cannot be made to do on demand.)
     */
    @Test
    void forgettingARemovedInodeKeepsItsHandlesStale() throws Exception {
        int bound = 16;
        Path f = Files.createFile(dir.resolve("f"));
        FileHandles handles = new FileHandles(new Export(dir, "/export"), bound);
        NfsFh3 old = lookup(handles, f);
        handles.removed(FileStat.of(f));
        assertThat(statusOf(handles, old)).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        NfsFh3 reused = lookup(handles, f);
        assertThat(reused).isNotEqualTo(old);
        assertThat(handles.resolve(reused).path()).isEqualTo(f);

        for (int i = 0; i < 4 * bound; i++) {
            lookup(handles, Files.createFile(dir.resolve("other-" + i)));
        }
        assertThat(handles.knownCount()).isEqualTo(bound);
        assertThat(statusOf(handles, old)).as("removed object's handle, its inode forgotten")
                .isEqualTo(Nfs3Status.NFS3ERR_STALE);
        assertThat(handles.resolve(reused).path()).isEqualTo(f);
        assertThat(lookup(handles, f)).isEqualTo(reused);
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
