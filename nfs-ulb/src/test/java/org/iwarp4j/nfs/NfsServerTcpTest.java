package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.nfs.NfsTcpFixture.ascii;
import static org.iwarp4j.nfs.NfsTcpFixture.get;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.v3.Access3Res;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Entry3;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Fsinfo3Res;
import org.iwarp4j.nfs.v3.Fsstat3Res;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Getattr3Res;
import org.iwarp4j.nfs.v3.Link3Res;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Mknod3Args;
import org.iwarp4j.nfs.v3.Nfs3Constants;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.NfsTime3;
import org.iwarp4j.nfs.v3.Pathconf3Res;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.Readdir3Args;
import org.iwarp4j.nfs.v3.Readdir3Res;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Res;
import org.iwarp4j.nfs.v3.Readlink3Res;
import org.iwarp4j.nfs.v3.Rename3Res;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.SetTime3;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.WccRes3;
import org.iwarp4j.nfs.v3.Write3Res;
import org.iwarp4j.oncrpc.RpcGarbageArgsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every NFSv3 procedure (RFC 1813 §3.3) against real files, over loopback TCP, with the error cases. */
class NfsServerTcpTest {

    @TempDir
    Path dir;
    private NfsTcpFixture nfs;
    private NfsClient client;

    @BeforeEach
    void start() throws Exception {
        nfs = NfsTcpFixture.start(dir);
        client = nfs.client;
    }

    @AfterEach
    void stop() {
        nfs.close();
    }

    private NfsFh3 createFile(String name) {
        Create3Res r = get(client.create(Create3Args.guarded(new DirOpArgs3(nfs.root(), name), Sattr3.mode(0640))));
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        return r.obj();
    }

    private NfsFh3 mkdir(NfsFh3 parent, String name) {
        Create3Res r = get(client.mkdir(parent, name, Sattr3.mode(0755)));
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        return r.obj();
    }

    private Nfs3Status lookupStatus(NfsFh3 parent, String name) {
        return get(client.lookup(parent, name)).status();
    }

    @Test
    void nullProcedure() {
        assertThat(get(client.nullCall())).isNull();
    }

    /** GETATTR reports what the file system says (unix:* attributes); fsid is the export's id. */
    @Test
    void getattrOfTheRootMatchesTheFileSystem() throws Exception {
        Getattr3Res r = get(client.getattr(nfs.root()));
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        Fattr3 a = r.objAttributes();
        Map<String, Object> unix = Files.readAttributes(dir, "unix:ino,mode,nlink,uid,gid", LinkOption.NOFOLLOW_LINKS);
        assertThat(a.type()).isEqualTo(Ftype3.NF3DIR);
        assertThat(a.fileid()).isEqualTo((Long) unix.get("ino"));
        assertThat(a.mode()).isEqualTo((Integer) unix.get("mode") & 07777);
        assertThat(a.nlink()).isEqualTo((Integer) unix.get("nlink"));
        assertThat(a.uid()).isEqualTo((Integer) unix.get("uid"));
        assertThat(a.gid()).isEqualTo((Integer) unix.get("gid"));
        assertThat(a.mtime().toInstant()).isEqualTo(Files.getLastModifiedTime(dir).toInstant());
    }

    @Test
    void fsinfoFsstatPathconf() {
        Fsinfo3Res info = get(client.fsinfo(nfs.root()));
        assertThat(info.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(info.rtmax()).isEqualTo(1 << 20);
        assertThat(info.wtmax()).isEqualTo(1 << 20);
        assertThat(info.properties() & Nfs3Constants.FSF3_SYMLINK).isNotZero();
        assertThat(info.timeDelta()).isEqualTo(new NfsTime3(0, 1));
        Fsstat3Res stat = get(client.fsstat(nfs.root()));
        assertThat(stat.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(stat.tbytes()).isPositive().isGreaterThanOrEqualTo(stat.fbytes());
        Pathconf3Res pc = get(client.pathconf(nfs.root()));
        assertThat(pc.nameMax()).isEqualTo(255);
        assertThat(pc.noTrunc()).isTrue();
        assertThat(pc.casePreserving()).isTrue();
    }

    /** CREATE, WRITE (FILE_SYNC), READ back, GETATTR size, LOOKUP, ACCESS. */
    @Test
    void createWriteReadLookupAccess() throws Exception {
        NfsFh3 fh = createFile("hello.txt");
        Write3Res w = get(client.write(fh, 0, ascii("hello, NFS"), StableHow.FILE_SYNC));
        assertThat(w.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(w.count()).isEqualTo(10);
        assertThat(w.committed()).isEqualTo(StableHow.FILE_SYNC);
        assertThat(w.fileWcc().before().size()).isZero();
        assertThat(w.fileWcc().after().size()).isEqualTo(10);
        assertThat(Files.readString(dir.resolve("hello.txt"))).isEqualTo("hello, NFS");

        Read3Res r = get(client.read(fh, 7, 100));
        try {
            assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
            assertThat(r.data().toString(StandardCharsets.US_ASCII)).isEqualTo("NFS");
            assertThat(r.eof()).isTrue();
        } finally {
            r.release();
        }
        Read3Res part = get(client.read(fh, 0, 5));
        try {
            assertThat(part.eof()).isFalse();
        } finally {
            part.release();
        }
        Lookup3Res l = get(client.lookup(nfs.root(), "hello.txt"));
        assertThat(l.object()).isEqualTo(fh);
        assertThat(l.objAttributes().mode()).isEqualTo(0640);
        assertThat(l.dirAttributes().type()).isEqualTo(Ftype3.NF3DIR);
        Access3Res a = get(client.access(fh, Nfs3Constants.ACCESS3_READ | Nfs3Constants.ACCESS3_MODIFY));
        assertThat(a.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(a.access() & ~(Nfs3Constants.ACCESS3_READ | Nfs3Constants.ACCESS3_MODIFY)).isZero();
        assertThat(a.access() & Nfs3Constants.ACCESS3_READ).isNotZero();
    }

    /** CREATE's three modes (RFC 1813 §3.3.8). */
    @Test
    void createModes() throws Exception {
        NfsFh3 fh = createFile("f");
        assertThat(get(client.create(Create3Args.guarded(new DirOpArgs3(nfs.root(), "f"), Sattr3.NONE))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_EXIST);
        Files.writeString(dir.resolve("f"), "some content");
        Create3Res unchecked = get(client.create(Create3Args.unchecked(new DirOpArgs3(nfs.root(), "f"), Sattr3.size(0))));
        assertThat(unchecked.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(unchecked.obj()).isEqualTo(fh);
        assertThat(Files.size(dir.resolve("f"))).isZero();

        Create3Res ex = get(client.create(Create3Args.exclusive(new DirOpArgs3(nfs.root(), "x"), 0x1234_5678_9abc_def0L)));
        assertThat(ex.status()).isEqualTo(Nfs3Status.NFS3_OK);
        Create3Res retransmitted = get(client.create(Create3Args.exclusive(new DirOpArgs3(nfs.root(), "x"),
                0x1234_5678_9abc_def0L)));
        assertThat(retransmitted.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(retransmitted.obj()).isEqualTo(ex.obj());
        assertThat(get(client.create(Create3Args.exclusive(new DirOpArgs3(nfs.root(), "x"), 42))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_EXIST);
    }

    /** SETATTR mode, size, mtime; a ctime guard that does not match changes nothing (NFS3ERR_NOT_SYNC). */
    @Test
    void setattr() throws Exception {
        NfsFh3 fh = createFile("s");
        Files.writeString(dir.resolve("s"), "0123456789");
        WccRes3 r = get(client.setattr(new Setattr3Args(fh, new Sattr3(0600, null, null, 4L, SetTime3.DONT_CHANGE,
                SetTime3.client(new NfsTime3(1_000_000_000, 5))), null)));
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.wcc().before().size()).isEqualTo(10);
        assertThat(r.wcc().after().size()).isEqualTo(4);
        assertThat(r.wcc().after().mode()).isEqualTo(0600);
        assertThat(r.wcc().after().mtime()).isEqualTo(new NfsTime3(1_000_000_000, 5));
        assertThat(Files.readString(dir.resolve("s"))).isEqualTo("0123");

        WccRes3 guarded = get(client.setattr(new Setattr3Args(fh, Sattr3.mode(0777), new NfsTime3(1, 2))));
        assertThat(guarded.status()).isEqualTo(Nfs3Status.NFS3ERR_NOT_SYNC);
        assertThat(get(client.getattr(fh)).objAttributes().mode()).isEqualTo(0600);
        WccRes3 extend = get(client.setattr(new Setattr3Args(fh, Sattr3.size(100), null)));
        assertThat(extend.wcc().after().size()).isEqualTo(100);
    }

    /** NOENT, EXIST, NOTDIR, ISDIR, NOTEMPTY. */
    @Test
    void errorStatuses() {
        NfsFh3 file = createFile("file");
        NfsFh3 sub = mkdir(nfs.root(), "sub");
        createFileIn(sub, "inner");
        assertThat(lookupStatus(nfs.root(), "missing")).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
        assertThat(get(client.mkdir(nfs.root(), "sub", Sattr3.NONE)).status()).isEqualTo(Nfs3Status.NFS3ERR_EXIST);
        assertThat(lookupStatus(file, "x")).isEqualTo(Nfs3Status.NFS3ERR_NOTDIR);
        assertThat(get(client.rmdir(nfs.root(), "file")).status()).isEqualTo(Nfs3Status.NFS3ERR_NOTDIR);
        assertThat(get(client.remove(nfs.root(), "sub")).status()).isEqualTo(Nfs3Status.NFS3ERR_ISDIR);
        assertThat(get(client.rmdir(nfs.root(), "sub")).status()).isEqualTo(Nfs3Status.NFS3ERR_NOTEMPTY);
        Read3Res r = get(client.read(sub, 0, 10));
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3ERR_ISDIR);
        assertThat(get(client.write(sub, 0, ascii("x"), StableHow.UNSTABLE)).status()).isEqualTo(Nfs3Status.NFS3ERR_ISDIR);
        assertThat(get(client.remove(nfs.root(), "missing")).status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
        assertThat(lookupStatus(nfs.root(), "n".repeat(256))).isEqualTo(Nfs3Status.NFS3ERR_NAMETOOLONG);
        assertThat(get(client.mknod(new Mknod3Args(new DirOpArgs3(nfs.root(), "fifo"), Ftype3.NF3FIFO, Sattr3.NONE,
                null))).status()).isEqualTo(Nfs3Status.NFS3ERR_NOTSUPP);
    }

    private NfsFh3 createFileIn(NfsFh3 parent, String name) {
        Create3Res r = get(client.create(Create3Args.guarded(new DirOpArgs3(parent, name), Sattr3.NONE)));
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        return r.obj();
    }

    /** MKDIR, REMOVE, RMDIR; a removed file's handle is stale. */
    @Test
    void removeMakesHandlesStale() {
        NfsFh3 sub = mkdir(nfs.root(), "d");
        NfsFh3 f = createFileIn(sub, "f");
        WccRes3 removed = get(client.remove(sub, "f"));
        assertThat(removed.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(removed.wcc().after().type()).isEqualTo(Ftype3.NF3DIR);
        assertThat(get(client.getattr(f)).status()).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        assertThat(get(client.rmdir(nfs.root(), "d")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.getattr(sub)).status()).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        assertThat(Files.exists(dir.resolve("d"))).isFalse();
    }

    /** RENAME keeps handles valid (they name inodes); replaces a file; refuses a directory below itself. */
    @Test
    void rename() throws Exception {
        NfsFh3 a = mkdir(nfs.root(), "a");
        NfsFh3 inner = createFileIn(a, "inner");
        NfsFh3 b = mkdir(nfs.root(), "b");
        Rename3Res r = get(client.rename(nfs.root(), "a", b, "moved"));
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(Files.isDirectory(dir.resolve("b/moved"))).isTrue();
        assertThat(get(client.getattr(a)).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.write(inner, 0, ascii("still here"), StableHow.FILE_SYNC)).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(Files.readString(dir.resolve("b/moved/inner"))).isEqualTo("still here");
        assertThat(get(client.rename(b, "moved", a, "x")).status()).isEqualTo(Nfs3Status.NFS3ERR_INVAL);

        NfsFh3 one = createFile("one");
        NfsFh3 two = createFile("two");
        assertThat(get(client.rename(nfs.root(), "one", nfs.root(), "two")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.lookup(nfs.root(), "two")).object()).isEqualTo(one);
        assertThat(get(client.getattr(two)).status()).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        assertThat(get(client.rename(nfs.root(), "nothing", nfs.root(), "x")).status())
                .isEqualTo(Nfs3Status.NFS3ERR_NOENT);
        createFileIn(b, "full");
        mkdir(nfs.root(), "empty");
        assertThat(get(client.rename(nfs.root(), "empty", nfs.root(), "b")).status())
                .isEqualTo(Nfs3Status.NFS3ERR_NOTEMPTY);
    }

    /**
     * Handles survive renames of their ancestors at every level, made after the objects below were
     * looked up; the names are too long for any path to fit in a handle, so only the server's
     * memory of where each inode lives finds them.
     */
    @Test
    void handlesSurviveNestedRenamesOfAncestors() throws Exception {
        String n = "n".repeat(12);
        NfsFh3 a = mkdir(nfs.root(), "a" + n);
        NfsFh3 b = mkdir(a, "b" + n);
        NfsFh3 c = mkdir(b, "c" + n);
        NfsFh3 f = createFileIn(c, "f" + n);
        NfsFh3 other = mkdir(nfs.root(), "other");
        assertThat(f.length()).isEqualTo(32);
        assertThat(get(client.rename(b, "c" + n, b, "c2")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.rename(a, "b" + n, other, "b2")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.rename(nfs.root(), "a" + n, nfs.root(), "a2")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.rename(nfs.root(), "other", a, "other2")).status()).isEqualTo(Nfs3Status.NFS3_OK);

        assertThat(get(client.write(f, 0, ascii("deep"), StableHow.FILE_SYNC)).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(Files.readString(dir.resolve("a2/other2/b2/c2/f" + n))).isEqualTo("deep");
        for (NfsFh3 fh : List.of(a, b, c, other)) {
            assertThat(get(client.getattr(fh)).status()).isEqualTo(Nfs3Status.NFS3_OK);
        }
        assertThat(get(client.lookup(c, "f" + n)).object()).isEqualTo(f);
        assertThat(get(client.lookup(b, "c2")).object()).isEqualTo(c);
    }

    /**
     * With {@code maxKnownHandles(16)}, a server that issued many more handles has forgotten the
     * oldest: one whose path fits in the handle still works, one whose path did not fit is
     * NFS3ERR_STALE, and a LOOKUP of the name again gives a handle that works.
     */
    @Test
    void forgottenHandlesResolveThroughTheirPathOrAreStale(@TempDir Path exported) throws Exception {
        try (NfsServer server = NfsServer.builder(exported).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new java.net.InetSocketAddress("127.0.0.1", 0)).maxKnownHandles(16).start();
             NfsClient c = NfsClient.builder(new java.net.InetSocketAddress("127.0.0.1", server.tcpPort())).connect()) {
            NfsFh3 near = get(c.create(Create3Args.guarded(new DirOpArgs3(c.root(), "near"), Sattr3.NONE))).obj();
            NfsFh3 deep = get(c.mkdir(c.root(), "d".repeat(40), Sattr3.mode(0755))).obj();
            NfsFh3 far = get(c.create(Create3Args.guarded(new DirOpArgs3(deep, "far"), Sattr3.NONE))).obj();
            assertThat(far.length()).isEqualTo(32);
            for (int i = 0; i < 64; i++) {
                assertThat(get(c.create(Create3Args.guarded(new DirOpArgs3(deep, "f" + i), Sattr3.NONE))).status())
                        .isEqualTo(Nfs3Status.NFS3_OK);
            }
            assertThat(get(c.getattr(near)).status()).isEqualTo(Nfs3Status.NFS3_OK);
            assertThat(get(c.getattr(far)).status()).isEqualTo(Nfs3Status.NFS3ERR_STALE);
            Lookup3Res again = get(c.lookup(deep, "far"));
            assertThat(again.status()).isEqualTo(Nfs3Status.NFS3_OK);
            assertThat(get(c.getattr(again.object())).status()).isEqualTo(Nfs3Status.NFS3_OK);
        }
        assertThatThrownBy(() -> NfsServer.builder(exported).maxKnownHandles(15))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * With {@code maxListedNames(100)}: a directory within the bound is paged through one snapshot
     * (the same cookie verifier on every page), one larger than the bound is read anew for every
     * page (a new verifier each time, as nothing is kept) and still lists every entry exactly once.
     */
    @Test
    void listingSnapshotsAreBoundedByMaxListedNames(@TempDir Path exported) throws Exception {
        for (String d : List.of("small", "large")) {
            Files.createDirectory(exported.resolve(d));
            for (int i = 0; i < (d.equals("small") ? 60 : 300); i++) {
                Files.createFile(exported.resolve(d).resolve("n" + i));
            }
        }
        try (NfsServer server = NfsServer.builder(exported).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new java.net.InetSocketAddress("127.0.0.1", 0)).maxListedNames(100).start();
             NfsClient c = NfsClient.builder(new java.net.InetSocketAddress("127.0.0.1", server.tcpPort())).connect()) {
            for (String d : List.of("small", "large")) {
                NfsFh3 fh = get(c.lookup(c.root(), d)).object();
                Set<String> names = new HashSet<>();
                Set<Long> verifiers = new HashSet<>();
                long cookie = 0;
                long verifier = 0;
                int pages = 0;
                while (true) {
                    Readdir3Res r = get(c.readdir(new Readdir3Args(fh, cookie, verifier, 600)));
                    assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
                    pages++;
                    for (Entry3 e : r.entries()) {
                        assertThat(names.add(e.name())).as(e.name()).isTrue();
                        cookie = e.cookie();
                    }
                    verifier = r.cookieverf();
                    verifiers.add(verifier);
                    if (r.eof()) {
                        break;
                    }
                }
                assertThat(names).hasSize(d.equals("small") ? 62 : 302);
                assertThat(pages).isGreaterThan(2);
                assertThat(verifiers).as(d).hasSize(d.equals("small") ? 1 : pages);
            }
        }
        assertThatThrownBy(() -> NfsServer.builder(exported).maxListedNames(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void linkSymlinkReadlink() throws Exception {
        NfsFh3 f = createFile("target");
        Link3Res l = get(client.link(f, nfs.root(), "hard"));
        assertThat(l.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(l.fileAttributes().nlink()).isEqualTo(2);
        assertThat(Files.isSameFile(dir.resolve("hard"), dir.resolve("target"))).isTrue();
        Create3Res s = get(client.symlink(nfs.root(), "soft", "target"));
        assertThat(s.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(s.objAttributes().type()).isEqualTo(Ftype3.NF3LNK);
        Readlink3Res rl = get(client.readlink(s.obj()));
        assertThat(rl.data()).isEqualTo("target");
        assertThat(Files.readSymbolicLink(dir.resolve("soft")).toString()).isEqualTo("target");
        assertThat(get(client.readlink(f)).status()).isEqualTo(Nfs3Status.NFS3ERR_INVAL);
        assertThat(get(client.link(nfs.root(), nfs.root(), "dirlink")).status()).isEqualTo(Nfs3Status.NFS3ERR_ISDIR);
    }

    /**
     * java.nio makes a symbolic link only from a Path, which drops repeated and trailing slashes,
     * so READLINK answers "a/b" for "a//b" and "d" for "d/" (docs/nfs.md); "." and ".." stay. A
     * text with NUL cannot be a link's (NFS3ERR_INVAL, as knfsd's svc_fill_symlink_pathname), nor
     * can an empty one (NFS3ERR_INVAL, as nfsd3_proc_symlink; it was NFS3ERR_NOENT, the kernel's
     * symlink(2) error); neither leaves an entry.
     */
    @Test
    void symlinkTextsJavaNioChangesOrCannotStore() throws Exception {
        String[][] sentAndStoredTexts = {{"a//b", "a/b"}, {"d/", "d"}, {"a/./b/../c", "a/./b/../c"}};
        for (int i = 0; i < sentAndStoredTexts.length; i++) {
            String[] sentAndStored = sentAndStoredTexts[i];
            String name = "l" + i;
            Create3Res s = get(client.symlink(nfs.root(), name, sentAndStored[0]));
            assertThat(s.status()).isEqualTo(Nfs3Status.NFS3_OK);
            assertThat(get(client.readlink(s.obj())).data()).as(sentAndStored[0]).isEqualTo(sentAndStored[1]);
        }
        assertThat(get(client.symlink(nfs.root(), "nul", "x\0y")).status()).isEqualTo(Nfs3Status.NFS3ERR_INVAL);
        assertThat(get(client.symlink(nfs.root(), "empty", "")).status()).isEqualTo(Nfs3Status.NFS3ERR_INVAL);
        assertThat(dir.resolve("nul")).doesNotExist();
        assertThat(Files.exists(dir.resolve("empty"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    /** Paths never escape the export: "..", '/', symbolic links, replaced directories, foreign handles. */
    @Test
    void escapeAttempts(@TempDir Path outside) throws Exception {
        Files.writeString(outside.resolve("secret"), "do not read");
        assertThat(get(client.lookup(nfs.root(), "..")).object()).isEqualTo(nfs.root());
        assertThat(get(client.lookup(nfs.root(), ".")).object()).isEqualTo(nfs.root());
        for (String name : List.of("../secret", "a/b", "x\0y")) {
            assertThatThrownBy(() -> client.lookup(nfs.root(), name).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RpcGarbageArgsException.class);
        }
        assertThat(get(client.mkdir(nfs.root(), "..", Sattr3.NONE)).status()).isEqualTo(Nfs3Status.NFS3ERR_EXIST);

        // A symbolic link to the outside is only ever a link: LOOKUP through it is NOTDIR.
        Files.createSymbolicLink(dir.resolve("out"), outside);
        Lookup3Res link = get(client.lookup(nfs.root(), "out"));
        assertThat(link.objAttributes().type()).isEqualTo(Ftype3.NF3LNK);
        assertThat(lookupStatus(link.object(), "secret")).isEqualTo(Nfs3Status.NFS3ERR_NOTDIR);
        assertThat(get(client.read(link.object(), 0, 100)).status()).isEqualTo(Nfs3Status.NFS3ERR_INVAL);

        // A directory replaced behind the server's back by a link to the outside: its handle is stale.
        NfsFh3 sub = mkdir(nfs.root(), "sub");
        Files.delete(dir.resolve("sub"));
        Files.createSymbolicLink(dir.resolve("sub"), outside);
        assertThat(lookupStatus(sub, "secret")).isEqualTo(Nfs3Status.NFS3ERR_STALE);

        // Handles this server did not issue.
        byte[] forged = nfs.root().data();
        forged[5] ^= 0x55; // export id
        assertThat(get(client.getattr(new NfsFh3(forged))).status()).isEqualTo(Nfs3Status.NFS3ERR_STALE);
        assertThat(get(client.getattr(new NfsFh3(new byte[] {1, 2, 3}))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_BADHANDLE);
    }

    /**
     * A handle with the export id of the mounted root and a made-up inode number, sent as a raw
     * AUTH_NONE GETATTR: the reply on the wire is exactly an accepted RPC reply with NFS3ERR_STALE
     * (70) and nothing else (GETATTR3res carries no attributes on failure, RFC 1813 §3.3.1). The
     * export holds 1,000 files; what one such request costs the server is counted in
     * FileHandlesTest and FileHandlesOverTcpTest (a few file-system calls, no search).
     */
    @Test
    void forgedHandleIsStaleOnTheWire() throws Exception {
        for (int d = 0; d < 4; d++) {
            Path sub = Files.createDirectory(dir.resolve("d" + d));
            for (int i = 0; i < 250; i++) {
                Files.createFile(sub.resolve(Integer.toString(i)));
            }
        }
        Set<Long> real = new HashSet<>();
        try (var all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                real.add((Long) Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS));
            }
        }
        SplittableRandom random = new SplittableRandom(70);
        try (Socket socket = new Socket("127.0.0.1", nfs.server.tcpPort())) {
            socket.setSoTimeout(20_000);
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int xid = 1; xid <= 200; xid++) {
                long ino = random.nextLong(1, Long.MAX_VALUE);
                if (real.contains(ino)) {
                    continue;
                }
                byte[] fh = nfs.root().data();
                ByteBuffer.wrap(fh).putLong(20, ino);
                int padded = (fh.length + 3) & ~3;
                out.writeInt(0x8000_0000 | (44 + padded)); // last fragment; 11 words of header and length
                out.writeInt(xid);
                out.writeInt(0);       // CALL
                out.writeInt(2);       // RPC version
                out.writeInt(100003);  // NFS
                out.writeInt(3);
                out.writeInt(1);       // GETATTR
                out.writeLong(0);      // AUTH_NONE credential
                out.writeLong(0);      // AUTH_NONE verifier
                out.writeInt(fh.length);
                out.write(fh);
                out.write(new byte[padded - fh.length]);
                out.flush();
                int mark = in.readInt();
                assertThat(mark & 0x8000_0000).as("last fragment").isNotZero();
                byte[] reply = new byte[Math.min(mark & 0x7fff_ffff, 1024)];
                in.readFully(reply);
                ByteBuffer expected = ByteBuffer.allocate(28).putInt(xid).putInt(1) // REPLY
                        .putInt(0).putLong(0).putInt(0) // MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS
                        .putInt(Nfs3Status.NFS3ERR_STALE.value());
                assertThat(HexFormat.of().formatHex(reply)).as("reply to xid %d", xid)
                        .isEqualTo(HexFormat.of().formatHex(expected.array()));
            }
        }
        assertThat(get(client.getattr(nfs.root())).status()).isEqualTo(Nfs3Status.NFS3_OK);
    }

    /** READDIR and READDIRPLUS over 300 entries in many calls: every name exactly once, cookies continue. */
    @Test
    void readdirAndReaddirplusPage() throws Exception {
        NfsFh3 d = mkdir(nfs.root(), "many");
        for (int i = 0; i < 300; i++) {
            Files.createFile(dir.resolve("many/file-" + i));
        }
        Set<String> names = new HashSet<>();
        long cookie = 0;
        int calls = 0;
        while (true) {
            Readdir3Res r = get(client.readdir(new Readdir3Args(d, cookie, 0, 1024)));
            assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
            calls++;
            for (Entry3 e : r.entries()) {
                assertThat(names.add(e.name())).as(e.name()).isTrue();
                cookie = e.cookie();
            }
            if (r.eof()) {
                break;
            }
        }
        assertThat(names).hasSize(302).contains(".", "..", "file-0", "file-299");
        assertThat(calls).isGreaterThan(10);

        Set<String> plus = new HashSet<>();
        cookie = 0;
        while (true) {
            Readdirplus3Res r = get(client.readdirplus(new Readdirplus3Args(d, cookie, 0, 512, 4096)));
            for (EntryPlus3 e : r.entries()) {
                assertThat(plus.add(e.name())).isTrue();
                assertThat(e.nameHandle()).isNotNull();
                assertThat(e.nameAttributes().fileid()).isEqualTo(e.fileid());
                cookie = e.cookie();
            }
            if (r.eof()) {
                break;
            }
        }
        assertThat(plus).isEqualTo(names);
        assertThat(get(client.readdir(new Readdir3Args(d, 0, 0, 100))).status()).isEqualTo(Nfs3Status.NFS3ERR_TOOSMALL);
        assertThat(client.list("many")).hasSize(300);
    }

    /** A listing continues after its cookie even when entries before it were removed meanwhile. */
    @Test
    void cookiesSurviveChanges() throws Exception {
        NfsFh3 d = mkdir(nfs.root(), "c");
        for (int i = 0; i < 50; i++) {
            Files.createFile(dir.resolve("c/n" + i));
        }
        Readdir3Res first = get(client.readdir(new Readdir3Args(d, 0, 0, 600)));
        assertThat(first.eof()).isFalse();
        for (Entry3 e : first.entries()) {
            if (!e.name().startsWith(".")) {
                Files.delete(dir.resolve("c/" + e.name()));
            }
        }
        Set<String> rest = new HashSet<>();
        long cookie = first.entries().get(first.entries().size() - 1).cookie();
        while (true) {
            Readdir3Res r = get(client.readdir(new Readdir3Args(d, cookie, first.cookieverf(), 600)));
            assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
            r.entries().forEach(e -> rest.add(e.name()));
            if (r.eof()) {
                break;
            }
            cookie = r.entries().get(r.entries().size() - 1).cookie();
        }
        try (var remaining = Files.list(dir.resolve("c"))) {
            assertThat(rest).containsExactlyInAnyOrderElementsOf(
                    remaining.map(p -> p.getFileName().toString()).toList());
        }
    }

    /** UNSTABLE WRITE then COMMIT: same verifier; a restarted server has another, and old handles still work. */
    @Test
    void unstableWriteCommitAndRestart() throws Exception {
        NfsFh3 fh = createFile("u");
        Write3Res w1 = get(client.write(fh, 0, ascii("abc"), StableHow.UNSTABLE));
        Write3Res w2 = get(client.write(fh, 3, ascii("def"), StableHow.UNSTABLE));
        assertThat(w1.committed()).isEqualTo(StableHow.UNSTABLE);
        assertThat(w2.verf()).isEqualTo(w1.verf());
        Commit3Res c = get(client.commit(fh, 0, 0));
        assertThat(c.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(c.verf()).isEqualTo(w1.verf());
        assertThat(Files.readString(dir.resolve("u"))).isEqualTo("abcdef");

        nfs.close();
        nfs = NfsTcpFixture.start(dir);
        client = nfs.client;
        Commit3Res after = get(client.commit(fh, 0, 0));
        assertThat(after.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(after.verf()).isNotEqualTo(w1.verf());
        assertThat(nfs.root()).isEqualTo(nfs.server.rootHandle());
        Getattr3Res attrs = get(client.getattr(fh));
        assertThat(attrs.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(attrs.objAttributes().size()).isEqualTo(6);
    }
}
