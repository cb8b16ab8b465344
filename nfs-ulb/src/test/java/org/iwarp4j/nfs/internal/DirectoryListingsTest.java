package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.v3.Entry3;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Readdir3Args;
import org.iwarp4j.nfs.v3.Readdir3Res;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Res;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NFSv3 READDIR and READDIRPLUS (RFC 1813 §3.3.16, §3.3.17) over {@link DirectoryListings}: the
 * work a page costs is counted (names read from the file system, directory reads), not timed. A
 * listing reads the directory once, at its first page; every later page reads no name. With no
 * snapshot kept — what the server did before, listing and sorting the whole directory for every
 * call — each page reads the whole directory, which the same counters show.
 */
class DirectoryListingsTest {

    private static final Caller ROOT = new Caller(0, 0, new int[0], true, new InetSocketAddress("127.0.0.1", 700));
    private static final ExportOptions RW = ExportOptions.builder().readWrite().rootSquash(false).build();

    @TempDir
    Path dir;

    private Nfs3Context context(int maxNames) throws IOException {
        Export export = new Export(dir, "/export");
        return new Nfs3Context(export, RW, Nfs3Limits.defaults(), new FileHandles(export),
                new DirectoryListings(maxNames));
    }

    /**
     * A context whose listings compare directory times with a clock {@code ahead} nanoseconds ahead
     * of the real one (an hour: every directory's times are settled; 0: a directory just made is not).
     */
    private Nfs3Context context(boolean reuse, AtomicLong ahead) throws IOException {
        Export export = new Export(dir, "/export");
        return new Nfs3Context(export, RW, Nfs3Limits.defaults(), new FileHandles(export),
                new DirectoryListings(DirectoryListings.DEFAULT_MAX_NAMES, reuse,
                        () -> System.currentTimeMillis() * 1_000_000L + ahead.get()));
    }

    private NfsFh3 directory(Nfs3Context ctx, String name, int entries) throws IOException {
        Path d = Files.createDirectory(dir.resolve(name));
        for (int i = 0; i < entries; i++) {
            Files.createFile(d.resolve("entry-" + i));
        }
        return ctx.handles().handleOf(d, FileStat.of(d));
    }

    /** Pages of READDIR from {@code cookie} with {@code verifier} until eof; the names, once each. */
    private record Listed(List<String> names, int pages, long verifier) {
    }

    private static Listed readdir(DirectoryOps ops, NfsFh3 d, long cookie, long verifier, int count) {
        List<String> names = new ArrayList<>();
        int pages = 0;
        while (true) {
            Readdir3Res r = ops.readdir(new Readdir3Args(d, cookie, verifier, count), ROOT);
            assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
            pages++;
            for (Entry3 e : r.entries()) {
                names.add(e.name());
                cookie = e.cookie();
            }
            verifier = r.cookieverf();
            if (r.eof()) {
                return new Listed(names, pages, verifier);
            }
        }
    }

    private static List<String> expected(int entries) {
        List<String> names = new ArrayList<>(List.of(".", ".."));
        for (int i = 0; i < entries; i++) {
            names.add("entry-" + i);
        }
        return names;
    }

    @Test
    void laterPagesReadNoNameFromTheFileSystem() throws Exception {
        try (Nfs3Context ctx = context(DirectoryListings.DEFAULT_MAX_NAMES)) {
            NfsFh3 d = directory(ctx, "big", 3000);
            DirectoryOps ops = new DirectoryOps(ctx);
            DirectoryListings listings = ctx.listings();

            Readdir3Res first = ops.readdir(new Readdir3Args(d, 0, 0, 1024), ROOT);
            assertThat(first.status()).isEqualTo(Nfs3Status.NFS3_OK);
            assertThat(first.eof()).isFalse();
            assertThat(first.cookieverf()).as("the snapshot's verifier").isNotZero();
            assertThat(listings.namesRead()).as("the first page reads the directory").isEqualTo(3000);

            long cookie = first.entries().get(first.entries().size() - 1).cookie();
            Listed rest = readdir(ops, d, cookie, first.cookieverf(), 1024);
            assertThat(rest.pages()).as("a page of 1 KiB holds a few dozen entries").isGreaterThan(50);
            assertThat(listings.namesRead()).as("no later page reads a name").isEqualTo(3000);
            assertThat(listings.reads()).isEqualTo(1);

            List<String> all = new ArrayList<>(first.entries().stream().map(Entry3::name).toList());
            all.addAll(rest.names());
            assertThat(all).as("every entry exactly once").doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected(3000));
            assertThat(rest.verifier()).isEqualTo(first.cookieverf());
        }
    }

    @Test
    void withoutSnapshotsEveryPageReadsTheWholeDirectory() throws Exception {
        // The old behaviour, for contrast: the counters above would have failed.
        try (Nfs3Context ctx = context(0)) {
            NfsFh3 d = directory(ctx, "big", 1000);
            Listed l = readdir(new DirectoryOps(ctx), d, 0, 0, 1024);
            assertThat(l.names()).containsExactlyInAnyOrderElementsOf(expected(1000));
            assertThat(ctx.listings().reads()).isEqualTo(l.pages());
            assertThat(ctx.listings().namesRead()).isEqualTo(1000L * l.pages());
            assertThat(ctx.listings().namesHeld()).isZero();
        }
    }

    /**
     * Two names whose cookies collide (a client can search for such names: the cookie is a 63-bit
     * hash of the name) are never split between two pages, or the second, after the first's
     * cookie, would never be listed: whatever the page size, READDIR and READDIRPLUS list every
     * name once. Fails with a page ending between them.
     */
    @Test
    void namesWhoseCookiesCollideAreListedWhateverThePageSize() throws Exception {
        Export export = new Export(dir, "/export");
        long twin = DirectoryListings.cookieOf("entry-20") + 1;
        try (Nfs3Context ctx = new Nfs3Context(export, RW, Nfs3Limits.defaults(), new FileHandles(export),
                new DirectoryListings(DirectoryListings.DEFAULT_MAX_NAMES, true, System::nanoTime,
                        name -> name.startsWith("twin-") ? twin : DirectoryListings.cookieOf(name)))) {
            NfsFh3 d = directory(ctx, "d", 40);
            Files.createFile(dir.resolve("d/twin-a"));
            Files.createFile(dir.resolve("d/twin-b"));
            List<String> all = expected(40);
            all.add("twin-a");
            all.add("twin-b");
            DirectoryOps ops = new DirectoryOps(ctx);
            for (int count = 200; count <= 1200; count += 4) {
                assertThat(readdir(ops, d, 0, 0, count).names()).as("count %d", count)
                        .containsExactlyInAnyOrderElementsOf(all);
            }
            // READDIRPLUS from where a page holds the two twins with their attributes and handles
            for (int count = 700; count <= 2400; count += 8) {
                List<String> plus = new ArrayList<>();
                long cookie = 0;
                long verifier = 0;
                while (true) {
                    Readdirplus3Res r = ops.readdirplus(new Readdirplus3Args(d, cookie, verifier, count, count), ROOT);
                    assertThat(r.status()).as("maxcount %d", count).isEqualTo(Nfs3Status.NFS3_OK);
                    r.entries().forEach(e -> plus.add(e.name()));
                    if (r.eof()) {
                        break;
                    }
                    cookie = r.entries().get(r.entries().size() - 1).cookie();
                    verifier = r.cookieverf();
                }
                assertThat(plus).as("READDIRPLUS, maxcount %d", count).containsExactlyInAnyOrderElementsOf(all);
            }
        }
    }

    /**
     * A client's count and maxcount are clamped to rtmax (as knfsd clamps them): a count of all
     * ones gets one reply of at most rtmax octets, eof false, not the whole directory.
     */
    @Test
    void readdirRepliesAreAtMostRtmaxWhateverTheCountAsked() throws Exception {
        Export export = new Export(dir, "/export");
        Nfs3Context ctx = new Nfs3Context(export, RW, new Nfs3Limits(4096, 4096, 1024), new FileHandles(export),
                new DirectoryListings(1000));
        NfsFh3 d = directory(ctx, "big", 400); // some 40 octets per entry: about 16 KiB of entries
        DirectoryOps ops = new DirectoryOps(ctx);
        Readdir3Res r = ops.readdir(new Readdir3Args(d, 0, 0, 0xFFFFFFFFL), ROOT);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.eof()).as("more than rtmax octets of entries: not all in one reply").isFalse();
        assertThat(r.entries()).isNotEmpty();
        assertThat(Readdir3Res.RESOK_OVERHEAD + r.entries().stream().mapToLong(Entry3::encodedLength).sum())
                .isLessThanOrEqualTo(4096);
        Readdirplus3Res p = ops.readdirplus(new Readdirplus3Args(d, 0, 0, 0xFFFFFFFFL, 0xFFFFFFFFL), ROOT);
        assertThat(p.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(p.eof()).isFalse();
        assertThat(p.entries()).isNotEmpty();
        assertThat(Readdirplus3Res.RESOK_OVERHEAD + p.entries().stream().mapToLong(EntryPlus3::encodedLength).sum())
                .isLessThanOrEqualTo(4096);
    }

    @Test
    void readdirplusPagesReadTheDirectoryOnce() throws Exception {
        try (Nfs3Context ctx = context(DirectoryListings.DEFAULT_MAX_NAMES)) {
            NfsFh3 d = directory(ctx, "plus", 1500);
            DirectoryOps ops = new DirectoryOps(ctx);
            Set<String> names = new HashSet<>();
            long cookie = 0;
            long verifier = 0;
            int pages = 0;
            while (true) {
                Readdirplus3Res r = ops.readdirplus(new Readdirplus3Args(d, cookie, verifier, 1024, 8192), ROOT);
                assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
                pages++;
                for (EntryPlus3 e : r.entries()) {
                    assertThat(names.add(e.name())).as(e.name()).isTrue();
                    assertThat(e.nameHandle()).isNotNull();
                    cookie = e.cookie();
                }
                verifier = r.cookieverf();
                if (r.eof()) {
                    break;
                }
            }
            assertThat(names).containsExactlyInAnyOrderElementsOf(expected(1500));
            assertThat(pages).isGreaterThan(20);
            assertThat(ctx.listings().reads()).isEqualTo(1);
            assertThat(ctx.listings().namesRead()).isEqualTo(1500);
        }
    }

    @Test
    void theCacheHoldsNoMoreNamesThanItsBoundAndEvictedListingsAreReadAgain() throws Exception {
        try (Nfs3Context ctx = context(500)) {
            DirectoryOps ops = new DirectoryOps(ctx);
            DirectoryListings listings = ctx.listings();
            List<NfsFh3> dirs = new ArrayList<>();
            List<Readdir3Res> firsts = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                NfsFh3 d = directory(ctx, "d" + i, 120);
                dirs.add(d);
                firsts.add(ops.readdir(new Readdir3Args(d, 0, 0, 1024), ROOT));
                assertThat(listings.namesHeld()).as("after %d directories", i + 1).isLessThanOrEqualTo(500);
            }
            assertThat(listings.snapshotsHeld()).isEqualTo(4);
            assertThat(listings.namesRead()).isEqualTo(12 * 120);

            // d0's snapshot was evicted: its listing continues after its cookie in a new read of d0
            Readdir3Res first = firsts.get(0);
            long cookie = first.entries().get(first.entries().size() - 1).cookie();
            Listed rest = readdir(ops, dirs.get(0), cookie, first.cookieverf(), 1024);
            List<String> all = new ArrayList<>(first.entries().stream().map(Entry3::name).toList());
            all.addAll(rest.names());
            assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected(120));
            assertThat(listings.reads()).as("read again once").isEqualTo(13);
            assertThat(rest.verifier()).isNotEqualTo(first.cookieverf());
            assertThat(listings.namesHeld()).isLessThanOrEqualTo(500);

            // d11's is still held: its listing reads nothing more
            Readdir3Res last = firsts.get(11);
            readdir(ops, dirs.get(11), last.entries().get(last.entries().size() - 1).cookie(), last.cookieverf(), 1024);
            assertThat(listings.reads()).isEqualTo(13);
        }
    }

    @Test
    void aDirectoryLargerThanTheBoundIsListedCorrectlyButNotKept() throws Exception {
        try (Nfs3Context ctx = context(100)) {
            NfsFh3 d = directory(ctx, "huge", 400);
            Listed l = readdir(new DirectoryOps(ctx), d, 0, 0, 1024);
            assertThat(l.names()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected(400));
            assertThat(ctx.listings().namesHeld()).isZero();
            assertThat(ctx.listings().reads()).isEqualTo(l.pages());
        }
    }

    @Test
    void aChangedDirectoryKeepsItsListingsSnapshotAndANewListingSeesTheChange() throws Exception {
        try (Nfs3Context ctx = context(DirectoryListings.DEFAULT_MAX_NAMES)) {
            NfsFh3 d = directory(ctx, "c", 200);
            DirectoryOps ops = new DirectoryOps(ctx);
            Readdir3Res first = ops.readdir(new Readdir3Args(d, 0, 0, 1024), ROOT);
            Set<String> seen = new HashSet<>();
            first.entries().forEach(e -> seen.add(e.name()));
            // an entry not listed yet is removed, a new one is added
            String removed = expected(200).stream().filter(n -> !seen.contains(n)).findFirst().orElseThrow();
            Files.delete(dir.resolve("c").resolve(removed));
            Files.createFile(dir.resolve("c").resolve("added"));

            Listed rest = readdir(ops, d, first.entries().get(first.entries().size() - 1).cookie(),
                    first.cookieverf(), 1024);
            assertThat(rest.verifier()).as("the listing's snapshot").isEqualTo(first.cookieverf());
            assertThat(rest.names()).as("a vanished entry is left out").doesNotContain(removed)
                    .doesNotContain("added");
            assertThat(ctx.listings().reads()).isEqualTo(1);
            List<String> all = new ArrayList<>(seen);
            all.addAll(rest.names());
            List<String> now = new ArrayList<>(expected(200));
            now.remove(removed);
            assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(now);

            // a new listing (cookie 0) reads the directory again, however soon after the change
            Listed fresh = readdir(ops, d, 0, 0, 1024);
            now.add("added");
            assertThat(fresh.names()).containsExactlyInAnyOrderElementsOf(now);
            assertThat(fresh.verifier()).isNotEqualTo(first.cookieverf());

            // an unchanged directory keeps its snapshot and verifier
            long held = ctx.listings().namesHeld();
            Listed again = readdir(ops, d, 0, 0, 1024);
            assertThat(again.verifier()).isEqualTo(fresh.verifier());
            assertThat(ctx.listings().namesHeld()).isEqualTo(held);
        }
    }

    @Test
    void aVerifierTheServerNeverIssuedIsNoBadCookie() throws Exception {
        try (Nfs3Context ctx = context(DirectoryListings.DEFAULT_MAX_NAMES)) {
            NfsFh3 d = directory(ctx, "v", 100);
            DirectoryOps ops = new DirectoryOps(ctx);
            Readdir3Res first = ops.readdir(new Readdir3Args(d, 0, 0, 600), ROOT);
            long cookie = first.entries().get(first.entries().size() - 1).cookie();
            // as after a restart: name-hash cookies mean the same in any read of the directory
            Listed rest = readdir(ops, d, cookie, first.cookieverf() ^ 0x5555, 600);
            List<String> all = new ArrayList<>(first.entries().stream().map(Entry3::name).toList());
            all.addAll(rest.names());
            assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected(100));
        }
    }

    @Test
    void manyEntriesGoneSinceTheSnapshotGetTheDirectoryReadAgainOnce() throws Exception {
        try (Nfs3Context ctx = context(DirectoryListings.DEFAULT_MAX_NAMES)) {
            NfsFh3 d = directory(ctx, "gone", 1000);
            DirectoryOps ops = new DirectoryOps(ctx);
            Readdir3Res first = ops.readdir(new Readdir3Args(d, 0, 0, 1024), ROOT);
            Set<String> seen = new HashSet<>();
            first.entries().forEach(e -> seen.add(e.name()));
            List<String> kept = new ArrayList<>(seen);
            int deleted = 0;
            for (String n : expected(1000)) {
                if (!seen.contains(n) && deleted < 900) {
                    Files.delete(dir.resolve("gone").resolve(n));
                    deleted++;
                } else if (!seen.contains(n)) {
                    kept.add(n);
                }
            }
            Listed rest = readdir(ops, d, first.entries().get(first.entries().size() - 1).cookie(),
                    first.cookieverf(), 1024);
            List<String> all = new ArrayList<>(first.entries().stream().map(Entry3::name).toList());
            all.addAll(rest.names());
            assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(kept);
            assertThat(ctx.listings().reads()).as("read again once, not skipping 900 names per page").isEqualTo(2);
            assertThat(rest.verifier()).isNotEqualTo(first.cookieverf());
            assertThat(ctx.listings().namesHeld()).as("the stale snapshot is dropped").isEqualTo(1000 - 900);
        }
    }

    private static final long AN_HOUR = TimeUnit.HOURS.toNanos(1);

    /**
     * A client that starts listing a large directory over and over (cookie 0, or a verifier the
     * server never issued) costs the server a stat and the page while the directory is unchanged:
     * no name is read from the file system after the first listing.
     */
    @Test
    void aNewListingOfAnUnchangedDirectoryReadsNoName() throws Exception {
        try (Nfs3Context ctx = context(true, new AtomicLong(AN_HOUR))) {
            NfsFh3 d = directory(ctx, "big", 2000);
            DirectoryOps ops = new DirectoryOps(ctx);
            DirectoryListings listings = ctx.listings();
            Listed first = readdir(ops, d, 0, 0, 8192);
            assertThat(first.names()).containsExactlyInAnyOrderElementsOf(expected(2000));
            assertThat(listings.reads()).isEqualTo(1);

            for (int i = 0; i < 20; i++) {
                Readdir3Res r = ops.readdir(new Readdir3Args(d, 0, 0, 1024), ROOT);
                assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
                assertThat(r.cookieverf()).isEqualTo(first.verifier());
                Readdirplus3Res p = ops.readdirplus(new Readdirplus3Args(d, 0, 0, 1024, 8192), ROOT);
                assertThat(p.status()).isEqualTo(Nfs3Status.NFS3_OK);
                // a made-up verifier: the unchanged directory's snapshot, not a new read
                Readdir3Res made = ops.readdir(new Readdir3Args(d, 3 + i, 0x5555_0000L + i, 1024), ROOT);
                assertThat(made.status()).isEqualTo(Nfs3Status.NFS3_OK);
            }
            assertThat(listings.reads()).as("the directory read once").isEqualTo(1);
            assertThat(listings.namesRead()).isEqualTo(2000);
            assertThat(listings.reuses()).isEqualTo(60);

            Listed again = readdir(ops, d, 0, 0, 8192);
            assertThat(again.names()).isEqualTo(first.names());
            assertThat(again.verifier()).isEqualTo(first.verifier());
        }
    }

    /**
     * Before each listing the directory's mtime is set to an old value of its own, which no change
     * can give it: so that two changes within one clock tick of this fast test cannot leave the
     * times as they were (the settling rule, with a real clock, is what rules that out in use).
     */
    @Test
    void aNameAddedRemovedOrRenamedAfterASettledSnapshotIsInTheNextListing() throws Exception {
        try (Nfs3Context ctx = context(true, new AtomicLong(AN_HOUR))) {
            NfsFh3 d = directory(ctx, "c", 300);
            DirectoryOps ops = new DirectoryOps(ctx);
            Path c = dir.resolve("c");
            List<String> now = expected(300);
            Files.setLastModifiedTime(c, FileTime.fromMillis(1_000_000));
            assertThat(readdir(ops, d, 0, 0, 8192).names()).containsExactlyInAnyOrderElementsOf(now);

            Files.createFile(c.resolve("added"));
            now.add("added");
            assertThat(readdir(ops, d, 0, 0, 8192).names()).containsExactlyInAnyOrderElementsOf(now);
            Files.setLastModifiedTime(c, FileTime.fromMillis(2_000_000));
            readdir(ops, d, 0, 0, 8192);
            Files.delete(c.resolve("entry-7"));
            now.remove("entry-7");
            assertThat(readdir(ops, d, 0, 0, 8192).names()).containsExactlyInAnyOrderElementsOf(now);
            Files.setLastModifiedTime(c, FileTime.fromMillis(3_000_000));
            readdir(ops, d, 0, 0, 8192);
            Files.move(c.resolve("entry-8"), c.resolve("renamed"));
            now.remove("entry-8");
            now.add("renamed");
            assertThat(readdir(ops, d, 0, 0, 8192).names()).containsExactlyInAnyOrderElementsOf(now);
            long reads = ctx.listings().reads();
            assertThat(reads).as("every listing after a change read the directory").isEqualTo(6);
            assertThat(readdir(ops, d, 0, 0, 8192).names()).containsExactlyInAnyOrderElementsOf(now);
            assertThat(ctx.listings().reads()).as("and none without one").isEqualTo(reads);
        }
    }

    /**
     * A snapshot read while the directory's times were younger than {@link
     * DirectoryListings#SETTLED_AFTER} may have missed a change made in the same clock tick, so the
     * next new listing reads the directory again; a read made once the times have settled is reused.
     */
    @Test
    void aSnapshotReadWhileTheDirectorysTimesWereFreshIsNotReused() throws Exception {
        AtomicLong ahead = new AtomicLong(0);
        try (Nfs3Context ctx = context(true, ahead)) {
            NfsFh3 d = directory(ctx, "fresh", 100);
            DirectoryOps ops = new DirectoryOps(ctx);
            Listed first = readdir(ops, d, 0, 0, 8192);
            Listed second = readdir(ops, d, 0, 0, 8192);
            assertThat(ctx.listings().reads()).as("times just set: read again").isEqualTo(2);
            assertThat(second.verifier()).as("the same names keep their snapshot").isEqualTo(first.verifier());

            ahead.set(AN_HOUR);
            readdir(ops, d, 0, 0, 8192);
            assertThat(ctx.listings().reads()).as("the unsettled snapshot is not trusted later either").isEqualTo(3);
            Listed fourth = readdir(ops, d, 0, 0, 8192);
            assertThat(ctx.listings().reads()).as("the settled read is").isEqualTo(3);
            assertThat(fourth.names()).containsExactlyInAnyOrderElementsOf(expected(100));
            assertThat(fourth.verifier()).isEqualTo(first.verifier());
        }
    }

    @Test
    void withReuseOffEveryNewListingReadsTheDirectory() throws Exception {
        try (Nfs3Context ctx = context(false, new AtomicLong(AN_HOUR))) {
            NfsFh3 d = directory(ctx, "off", 100);
            DirectoryOps ops = new DirectoryOps(ctx);
            for (int i = 0; i < 3; i++) {
                assertThat(readdir(ops, d, 0, 0, 8192).names()).containsExactlyInAnyOrderElementsOf(expected(100));
            }
            assertThat(ctx.listings().reads()).isEqualTo(3);
            assertThat(ctx.listings().reuses()).isZero();
        }
    }
}
