package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.iwarp4j.nfs.internal.DirectoryListings;
import org.iwarp4j.nfs.internal.FileHandles;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.testkit.NeedsRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NFSv4 READDIR (RFC 8881 §18.23) through COMPOUND octets: a directory larger than a page is listed
 * with every entry exactly once, read from the file system once (counted, not timed: later pages
 * read no name); the cookie verifier names the snapshot; a file handle is made for an entry only
 * when FATTR4_FILEHANDLE is asked for, and only for the entries returned; reserved cookies and
 * cookie 0 with a verifier are NFS4ERR_BAD_COOKIE.
 */
class Nfs4ReaddirTest {

    private static final int ENTRIES = 1200;

    @TempDir
    Path dir;
    Nfs4Harness h;

    @BeforeEach
    void start() throws Exception {
        h = new Nfs4Harness(dir);
        h.session();
        for (int i = 0; i < ENTRIES; i++) {
            Files.createFile(dir.resolve("entry-" + i));
        }
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private record Page(long verifier, List<String> names, List<Long> cookies, List<byte[]> values, boolean eof) {
    }

    private Page readdir(long cookie, long verifier, int maxcount, int... attributes) {
        Consumer<XdrEncoder> readdir = e -> {
            e.writeInt(OP_READDIR).writeHyper(cookie).writeHyper(verifier).writeUnsignedInt(maxcount)
                    .writeUnsignedInt(maxcount);
            Bitmap4.of(attributes).encode(e);
        };
        Reply r = h.sequenced(putrootfh(), readdir);
        r.skipSequence();
        assertThat(r.op(OP_PUTROOTFH)).isEqualTo(NFS4_OK);
        assertThat(r.op(OP_READDIR)).isEqualTo(NFS4_OK);
        long v = r.in.readHyper();
        List<String> names = new ArrayList<>();
        List<Long> cookies = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        while (r.in.readBoolean()) {
            cookies.add(r.in.readHyper());
            names.add(r.in.readString(255));
            Bitmap4 returned = Bitmap4.decode(r.in);
            if (!returned.equals(Bitmap4.of(FATTR4_RDATTR_ERROR))) { // an entry gone since the snapshot
                assertThat(returned).isEqualTo(Bitmap4.of(attributes));
            }
            values.add(r.in.readOpaque(4096));
        }
        return new Page(v, names, cookies, values, r.in.readBoolean());
    }

    private List<String> expected() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < ENTRIES; i++) {
            names.add("entry-" + i);
        }
        return names;
    }

    @Test
    void pagesListEveryEntryOnceAndReadTheDirectoryOnce() {
        DirectoryListings listings = h.base.listings();
        List<String> seen = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        int pages = 0;
        Page first = null;
        while (true) {
            Page p = readdir(cookie, verifier, 1024, FATTR4_FILEID);
            if (first == null) {
                first = p;
                assertThat(listings.namesRead()).as("the first page reads the directory").isEqualTo(ENTRIES);
            }
            pages++;
            seen.addAll(p.names());
            assertThat(p.verifier()).isEqualTo(first.verifier()).isNotZero();
            if (p.eof()) {
                break;
            }
            cookie = p.cookies().get(p.cookies().size() - 1);
            verifier = p.verifier();
        }
        assertThat(pages).isGreaterThan(20);
        assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected());
        assertThat(listings.namesRead()).as("later pages read no name").isEqualTo(ENTRIES);
        assertThat(listings.reads()).isEqualTo(1);
    }

    @Test
    void aListingContinuesAfterItsCookieWhenItsSnapshotIsGone() throws Exception {
        Page first = readdir(0, 0, 1024, FATTR4_FILEID);
        Files.createFile(dir.resolve("late"));
        List<String> seen = new ArrayList<>(first.names());
        long cookie = first.cookies().get(first.cookies().size() - 1);
        // a verifier the server never issued (as after a restart): read again, no NFS4ERR_BAD_COOKIE
        long verifier = first.verifier() ^ 0x5555;
        while (true) {
            Page p = readdir(cookie, verifier, 1024, FATTR4_FILEID);
            seen.addAll(p.names());
            if (p.eof()) {
                break;
            }
            cookie = p.cookies().get(p.cookies().size() - 1);
            verifier = p.verifier();
        }
        assertThat(h.base.listings().reads()).isEqualTo(2);
        List<String> all = expected();
        if (Long.compareUnsigned(DirectoryListings.cookieOf("late"), first.cookies().get(first.cookies().size() - 1)) > 0) {
            all.add("late"); // after the cookie in hash order, so in the new read
        }
        assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void noFileHandleIsMadeUnlessAskedFor() throws Exception {
        long before = h.base.handles().issued();
        Page plain = readdir(0, 0, 64 * 1024, FATTR4_TYPE, FATTR4_SIZE, FATTR4_FILEID, FATTR4_RDATTR_ERROR);
        assertThat(plain.names()).isNotEmpty();
        assertThat(h.base.handles().issued()).as("handles made by READDIR without FATTR4_FILEHANDLE")
                .isEqualTo(before);

        int knownBefore = h.base.handles().knownCount();
        Page withHandles = readdir(0, 0, 64 * 1024, FATTR4_FILEID, FATTR4_FILEHANDLE);
        // one per entry returned, none for the entry that was sized but did not fit
        assertThat(withHandles.eof()).isFalse();
        assertThat(h.base.handles().issued() - before).isEqualTo(withHandles.names().size());
        assertThat(h.base.handles().knownCount() - knownBefore).as("inodes the server remembers")
                .isEqualTo(withHandles.names().size());
        for (int i = 0; i < withHandles.values().size(); i++) {
            XdrDecoder v = new XdrDecoder(Unpooled.wrappedBuffer(withHandles.values().get(i)));
            // in attribute order: filehandle (19), then fileid (20)
            byte[] fh = v.readOpaque(NFS4_FHSIZE);
            assertThat(v.readHyper()).as("fileid").isEqualTo(Files.readAttributes(dir.resolve(withHandles.names().get(i)),
                    "unix:ino").get("ino"));
            assertThat(v.remaining()).isZero();
            // the handle sent is the one the server made and resolves
            assertThat(h.base.handles().resolve(new NfsFh3(fh)).path()).isEqualTo(dir.resolve(withHandles.names().get(i)));
        }

        // the next page goes on after the last entry answered and makes handles for its own entries
        long cookie = withHandles.cookies().get(withHandles.cookies().size() - 1);
        Page next = readdir(cookie, withHandles.verifier(), 64 * 1024, FATTR4_FILEID, FATTR4_FILEHANDLE);
        assertThat(next.names()).isNotEmpty().doesNotContainAnyElementsOf(withHandles.names());
        assertThat(h.base.handles().knownCount() - knownBefore)
                .isEqualTo(withHandles.names().size() + next.names().size());
    }

    /**
     * Cookies 1 and 2 are reserved, and a listing begins with cookie 0 and verifier 0 (RFC 8881
     * §18.23.3); knfsd answers the other combinations NFS4ERR_BAD_COOKIE, which ends the COMPOUND.
     */
    @Test
    void reservedCookiesAndCookieZeroWithAVerifierAreBadCookies() {
        Page first = readdir(0, 0, 1024, FATTR4_FILEID);
        long issued = first.verifier();
        long[][] bad = {{0, issued}, {0, 1}, {1, 0}, {2, 0}, {1, issued}, {2, issued}};
        for (long[] b : bad) {
            Consumer<XdrEncoder> readdir = e -> {
                e.writeInt(OP_READDIR).writeHyper(b[0]).writeHyper(b[1]).writeUnsignedInt(1024)
                        .writeUnsignedInt(1024);
                Bitmap4.of(FATTR4_FILEID).encode(e);
            };
            Reply r = h.sequenced(putrootfh(), readdir);
            String what = "cookie " + b[0] + " verifier " + Long.toHexString(b[1]);
            assertThat(r.status).as(what).isEqualTo(NFS4ERR_BAD_COOKIE);
            assertThat(r.count).as("SEQUENCE, PUTROOTFH, READDIR").isEqualTo(3);
            r.skipSequence();
            assertThat(r.op(OP_PUTROOTFH)).isEqualTo(NFS4_OK);
            assertThat(r.op(OP_READDIR)).as(what).isEqualTo(NFS4ERR_BAD_COOKIE);
            assertThat(r.in.remaining()).as("nothing after the error").isZero();
        }
        assertThat(h.base.listings().reads()).as("no directory read for a bad cookie").isEqualTo(1);
        // the verifier goes with a cookie the server gave: a later page is answered
        long last = first.cookies().get(first.cookies().size() - 1);
        Page second = readdir(last, issued, 1024, FATTR4_FILEID);
        assertThat(second.names()).isNotEmpty().doesNotContainAnyElementsOf(first.names());
    }

    @Test
    void entriesGoneSinceTheSnapshotAreLeftOutOrAnsweredWithRdattrError() throws Exception {
        Page first = readdir(0, 0, 1024, FATTR4_FILEID);
        long cookie = first.cookies().get(first.cookies().size() - 1);
        List<String> kept = new ArrayList<>(first.names());
        List<String> gone = new ArrayList<>();
        for (String n : expected()) {
            if (!first.names().contains(n)) {
                if (gone.size() < 1000) {
                    Files.delete(dir.resolve(n));
                    gone.add(n);
                } else {
                    kept.add(n);
                }
            }
        }
        // asked for rdattr_error: the gone entries come back with NFS4ERR_NOENT, from the snapshot
        Page errors = readdir(cookie, first.verifier(), 64 * 1024, FATTR4_RDATTR_ERROR, FATTR4_FILEID);
        assertThat(errors.verifier()).isEqualTo(first.verifier());
        assertThat(errors.names()).containsAnyElementsOf(gone);
        for (int i = 0; i < errors.names().size(); i++) {
            byte[] noent = java.nio.ByteBuffer.allocate(4).putInt(NFS4ERR_NOENT).array();
            if (gone.contains(errors.names().get(i))) {
                assertThat(errors.values().get(i)).as(errors.names().get(i)).isEqualTo(noent);
            } else {
                assertThat(errors.values().get(i)).as("rdattr_error NFS4_OK and fileid").hasSize(12);
            }
        }
        assertThat(h.base.listings().reads()).isEqualTo(1);

        // not asked for: left out; past 128 of them the directory is read again (once)
        List<String> seen = new ArrayList<>(first.names());
        long verifier = first.verifier();
        while (true) {
            Page p = readdir(cookie, verifier, 1024, FATTR4_FILEID);
            seen.addAll(p.names());
            if (p.eof()) {
                break;
            }
            cookie = p.cookies().get(p.cookies().size() - 1);
            verifier = p.verifier();
        }
        assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(kept);
        assertThat(h.base.listings().reads()).isEqualTo(2);
    }

    /**
     * Two names whose cookies collide are never split between two READDIR replies (the next reply
     * starts after the last cookie, so the second would never be listed): listing from the name
     * just before them in cookie order, every maxcount gets both or neither of them, or
     * NFS4ERR_TOOSMALL where only one would fit; fails with a reply ending between them.
     */
    @Test
    void namesWhoseCookiesCollideAreNeverSplitBetweenReplies() throws Exception {
        h.close();
        long before = DirectoryListings.cookieOf("entry-20");
        h = new Nfs4Harness(dir, Nfs4Settings.defaults(), null, FileHandles::new,
                new DirectoryListings(DirectoryListings.DEFAULT_MAX_NAMES, true, System::nanoTime,
                        name -> name.startsWith("twin-") ? before + 1 : DirectoryListings.cookieOf(name)));
        h.session();
        Files.createFile(dir.resolve("twin-a"));
        Files.createFile(dir.resolve("twin-b"));
        int bothOrNeither = 0;
        for (int maxcount = 16; maxcount <= 400; maxcount += 4) {
            int m = maxcount;
            Reply r = h.sequenced(putrootfh(), e -> {
                e.writeInt(OP_READDIR).writeHyper(before).writeHyper(0).writeUnsignedInt(m).writeUnsignedInt(m);
                Bitmap4.of(FATTR4_FILEID).encode(e);
            });
            r.skipSequence();
            assertThat(r.op(OP_PUTROOTFH)).isEqualTo(NFS4_OK);
            int status = r.op(OP_READDIR);
            if (status == NFS4ERR_TOOSMALL) {
                continue;
            }
            assertThat(status).isEqualTo(NFS4_OK);
            r.in.readHyper();
            List<String> names = new ArrayList<>();
            while (r.in.readBoolean()) {
                r.in.readHyper();
                names.add(r.in.readString(255));
                Bitmap4.decode(r.in);
                r.in.readOpaque(4096);
            }
            long twins = names.stream().filter(n -> n.startsWith("twin-")).count();
            assertThat(twins).as("maxcount %d: %s", maxcount, names).isIn(0L, 2L);
            bothOrNeither++;
        }
        assertThat(bothOrNeither).as("replies that held entries").isGreaterThan(50);
    }

    /**
     * A new listing stats the directory itself rather than trusting the attributes the COMPOUND's
     * current file handle was resolved with: a RENAME earlier in the same COMPOUND changed the
     * directory, and the READDIR after it lists the new name, although the directory's snapshot
     * was settled (a clock an hour ahead) and would otherwise be reused.
     */
    @Test
    void aReaddirAfterARenameInTheSameCompoundListsTheNewName() throws Exception {
        h.close();
        h = new Nfs4Harness(dir, Nfs4Settings.defaults(), null, FileHandles::new,
                new DirectoryListings(DirectoryListings.DEFAULT_MAX_NAMES, true,
                        () -> System.currentTimeMillis() * 1_000_000L + TimeUnit.HOURS.toNanos(1)));
        h.session();
        // an mtime no change can give the directory, so that the rename cannot leave its times as they were
        Files.setLastModifiedTime(dir, FileTime.fromMillis(1_000_000));
        Page first = readdir(0, 0, 64 * 1024, FATTR4_FILEID);
        assertThat(first.names()).contains("entry-0").doesNotContain("renamed-0");
        readdir(0, 0, 64 * 1024, FATTR4_FILEID);
        assertThat(h.base.listings().reuses()).as("unchanged: the snapshot reused").isEqualTo(1);

        Reply r = h.sequenced(putrootfh(), op(OP_SAVEFH),
                e -> e.writeInt(OP_RENAME).writeString("entry-0", 1024).writeString("renamed-0", 1024),
                e -> {
                    e.writeInt(OP_READDIR).writeHyper(0).writeHyper(0).writeUnsignedInt(64 * 1024)
                            .writeUnsignedInt(64 * 1024);
                    Bitmap4.of(FATTR4_FILEID).encode(e);
                });
        r.skipSequence();
        assertThat(r.op(OP_PUTROOTFH)).isEqualTo(NFS4_OK);
        assertThat(r.op(OP_SAVEFH)).isEqualTo(NFS4_OK);
        assertThat(r.op(OP_RENAME)).isEqualTo(NFS4_OK);
        r.in.skip(2 * (4 + 8 + 8)); // source_cinfo, target_cinfo
        assertThat(r.op(OP_READDIR)).isEqualTo(NFS4_OK);
        r.in.readHyper();
        List<String> names = new ArrayList<>();
        while (r.in.readBoolean()) {
            r.in.readHyper();
            names.add(r.in.readString(255));
            Bitmap4.decode(r.in);
            r.in.readOpaque(4096);
        }
        assertThat(names).contains("renamed-0").doesNotContain("entry-0");
        assertThat(h.base.listings().reads()).isEqualTo(2);
    }

    /**
     * An entry's attributes and file handle need search permission on the directory, as a LOOKUP
     * of its name would; the names alone need only read permission. Without search permission an
     * entry carries only rdattr_error NFS4ERR_ACCESS if that was asked for, else the READDIR fails
     * with NFS4ERR_ACCESS (RFC 8881 §18.23.3), as knfsd answers.
     */
    @Test
    @NeedsRoot
    void attributesAndHandlesOfEntriesNeedSearchPermission() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path listable = Files.createDirectory(dir.resolve("listable"));
        Files.writeString(listable.resolve("f"), "data");
        Files.setPosixFilePermissions(listable.resolve("f"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setAttribute(listable, "unix:uid", 2000);
        Files.setAttribute(listable, "unix:gid", 2000);
        Files.setPosixFilePermissions(listable, PosixFilePermissions.fromString("rwxr--r--"));
        h.uid = 1000;

        Reply withError = readdirOf("listable", FATTR4_FILEHANDLE, FATTR4_SIZE, FATTR4_MODE, FATTR4_RDATTR_ERROR);
        assertThat(withError.op(OP_READDIR)).isEqualTo(NFS4_OK);
        withError.in.readHyper();
        assertThat(withError.in.readBoolean()).isTrue();
        withError.in.readHyper();
        assertThat(withError.in.readString(255)).isEqualTo("f");
        assertThat(Bitmap4.decode(withError.in)).as("no handle, no attributes").isEqualTo(Bitmap4.of(FATTR4_RDATTR_ERROR));
        assertThat(withError.in.readOpaque(4096)).isEqualTo(ByteBuffer.allocate(4).putInt(NFS4ERR_ACCESS).array());
        assertThat(withError.in.readBoolean()).isFalse();

        Reply without = readdirOf("listable", FATTR4_FILEHANDLE, FATTR4_SIZE, FATTR4_MODE);
        assertThat(without.status).isEqualTo(NFS4ERR_ACCESS);
        assertThat(without.op(OP_READDIR)).isEqualTo(NFS4ERR_ACCESS);

        Reply names = readdirOf("listable");
        assertThat(names.op(OP_READDIR)).as("names need no search permission").isEqualTo(NFS4_OK);
        names.in.readHyper();
        assertThat(names.in.readBoolean()).isTrue();
        names.in.readHyper();
        assertThat(names.in.readString(255)).isEqualTo("f");
        assertThat(Bitmap4.decode(names.in).isEmpty()).isTrue();
        assertThat(names.in.readOpaque(4096)).isEmpty();

        h.uid = 2000;
        Reply owner = readdirOf("listable", FATTR4_SIZE, FATTR4_RDATTR_ERROR);
        assertThat(owner.op(OP_READDIR)).as("the owner may search").isEqualTo(NFS4_OK);
        owner.in.readHyper();
        assertThat(owner.in.readBoolean()).isTrue();
        owner.in.readHyper();
        owner.in.readString(255);
        assertThat(Bitmap4.decode(owner.in)).isEqualTo(Bitmap4.of(FATTR4_SIZE, FATTR4_RDATTR_ERROR));
    }

    /** PUTROOTFH, LOOKUP {@code name}, READDIR of it from the start; the reply is at READDIR's result. */
    private Reply readdirOf(String name, int... attributes) {
        Reply r = h.sequenced(putrootfh(), lookup(name), e -> {
            e.writeInt(OP_READDIR).writeHyper(0).writeHyper(0).writeUnsignedInt(4096).writeUnsignedInt(4096);
            Bitmap4.of(attributes).encode(e);
        });
        r.skipSequence();
        assertThat(r.op(OP_PUTROOTFH)).isEqualTo(NFS4_OK);
        assertThat(r.op(OP_LOOKUP)).isEqualTo(NFS4_OK);
        return r;
    }

    /**
     * The space attributes of every entry come from the export's file store, looked up once per
     * server: on Linux a lookup parses the mount table, and a READDIR reply holds thousands of
     * entries.
     */
    @Test
    void spaceAttributesOfEveryEntryCostOneFileStoreLookupPerServer() {
        for (int i = 0; i < 2; i++) {
            Page p = readdir(0, 0, 256 * 1024, FATTR4_SPACE_AVAIL, FATTR4_SPACE_TOTAL);
            assertThat(p.names()).hasSize(ENTRIES);
            assertThat(p.values()).allSatisfy(v -> assertThat(v).hasSize(16));
        }
        assertThat(h.base.exportStoreLookups()).isEqualTo(1);
    }
}
