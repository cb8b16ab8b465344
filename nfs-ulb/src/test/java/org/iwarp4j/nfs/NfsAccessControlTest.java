package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.nfs.NfsTcpFixture.ascii;
import static org.iwarp4j.nfs.NfsTcpFixture.get;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_DELETE;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_EXTEND;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_LOOKUP;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_MODIFY;
import static org.iwarp4j.nfs.v3.Nfs3Constants.ACCESS3_READ;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.internal.NfsRdmaSettings;
import org.iwarp4j.nfs.mount.MountStat3;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Fsinfo3Res;
import org.iwarp4j.nfs.v3.Getattr3Res;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Nfs3Constants;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.NfsTime3;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.Readdir3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Res;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.SetTime3;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.testkit.NeedsRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The export's access control ({@link ExportOptions}, knfsd's exports(5) rules) seen by clients,
 * each rule over TCP and over RPC-over-RDMA (MOUNT over TCP in both, RFC 8267 §5.1): the statuses
 * are the ones decoded from the server's replies, the files' owners the ones on disk. The tests
 * run as root, so they give files to other users with chown (as another user they are skipped:
 * {@link NeedsRoot}); each rule has a control showing the same call succeeding where the rule
 * allows it.
 */
@NeedsRoot
class NfsAccessControlTest {

    enum Transport { TCP, RDMA }

    private static final int ALICE = 1000;
    private static final int BOB = 1001;

    @TempDir
    Path dir;
    private Rnic serverRnic;
    private Rnic clientRnic;
    private final List<AutoCloseable> open = new ArrayList<>();
    /** FIFOs a test made, whose blocked opens (a server worker's) {@link #stop} releases. */
    private final List<Path> fifos = new ArrayList<>();
    private NfsServer server;

    @BeforeEach
    void rnics() throws IOException {
        serverRnic = Rnic.builder().name("server").build();
        clientRnic = Rnic.builder().name("client").build();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void stop() throws Exception {
        for (Path fifo : fifos) {
            unblockOpens(fifo);
        }
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        clientRnic.close();
        serverRnic.close();
    }

    private NfsServer serve(ExportOptions options) throws IOException {
        server = NfsServer.builder(dir).exportOptions(options).tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                .rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(serverRnic).workerThreads(2).start();
        open.add(server);
        return server;
    }

    private NfsClient.Builder clientBuilder(Transport transport) {
        NfsClient.Builder b = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                .timeout(Duration.ofSeconds(20));
        if (transport == Transport.RDMA) {
            b.rdma(clientRnic, new InetSocketAddress("127.0.0.1", server.rdmaPort()));
        }
        return b;
    }

    private NfsClient client(Transport transport, int uid, int gid) throws IOException {
        NfsClient c = clientBuilder(transport).credential(new AuthSys(0, "test", uid, gid, new int[0])).connect();
        open.add(c);
        return c;
    }

    private NfsClient client(Transport transport, OpaqueAuth credential) throws IOException {
        NfsClient c = clientBuilder(transport).credential(credential).connect();
        open.add(c);
        return c;
    }

    /** An RPC client for NFS alone, without MNT: a caller that has a handle from elsewhere. */
    private RpcClient rawNfs(Transport transport) {
        CompletableFuture<? extends RpcClientTransport> connecting = transport == Transport.TCP
                ? RpcTcpClientTransport.connect(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                : RpcRdmaRequester.connect(clientRnic, new InetSocketAddress("127.0.0.1", server.rdmaPort()),
                        NfsRdmaSettings.forNfs(RpcRdmaSettings.defaults()));
        RpcClient rpc = RpcClient.builder(get(connecting)).credential(new AuthSys(0, "test", ALICE, ALICE, new int[0]))
                .timeout(Duration.ofSeconds(20)).build();
        open.add(rpc);
        return rpc;
    }

    private Path file(String name, String content, int uid, int gid, String mode) throws IOException {
        Path p = Files.writeString(dir.resolve(name), content);
        own(p, uid, gid, mode);
        return p;
    }

    private static void own(Path p, int uid, int gid, String mode) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    }

    private static int uidOf(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    private static int gidOf(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS);
    }

    /** READ's status; the data read, if any, as text in {@code text[0]}. */
    private static Nfs3Status read(NfsClient c, NfsFh3 fh, String[] text) {
        Read3Res r = get(c.read(fh, 0, 4096));
        try {
            if (r.data() != null && text != null) {
                text[0] = r.data().toString(StandardCharsets.UTF_8);
            }
            return r.status();
        } finally {
            if (r.data() != null) {
                r.data().release();
            }
        }
    }

    private static Create3Res create(NfsClient c, NfsFh3 dir, String name) {
        return get(c.create(Create3Args.guarded(new DirOpArgs3(dir, name), Sattr3.mode(0644))));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void readOnlyExportRefusesEveryChangeWithRofs(Transport transport) throws Exception {
        Path f = file("f", "unchanged", 0, 0, "rw-rw-rw-");
        Files.createDirectory(dir.resolve("d"));
        own(dir, 0, 0, "rwxrwxrwx");
        serve(ExportOptions.builder().rootSquash(false).build());
        NfsClient c = client(transport, 0, 0);
        NfsFh3 root = c.root();
        NfsFh3 fh = c.lookupPath("f");

        assertThat(get(c.write(fh, 0, ascii("changed"), StableHow.FILE_SYNC)).status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(create(c, root, "new").status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.mkdir(root, "newdir", Sattr3.mode(0755))).status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.symlink(root, "ln", "f")).status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.remove(root, "f")).status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.rmdir(root, "d")).status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.rename(root, "f", root, "g")).status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.link(fh, root, "hard")).status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.setattr(new Setattr3Args(fh, Sattr3.mode(0600), null))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.setattr(new Setattr3Args(fh, Sattr3.size(0), null))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        assertThat(get(c.commit(fh, 0, 0)).status()).isEqualTo(Nfs3Status.NFS3ERR_ROFS);
        // ACCESS tells the truth: reading yes, changing no
        assertThat(get(c.access(fh, ACCESS3_READ | ACCESS3_MODIFY | ACCESS3_EXTEND)).access()).isEqualTo(ACCESS3_READ);
        assertThat(get(c.access(root, ACCESS3_LOOKUP | ACCESS3_MODIFY | ACCESS3_DELETE)).access())
                .isEqualTo(ACCESS3_LOOKUP);
        String[] text = new String[1];
        assertThat(read(c, fh, text)).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(text[0]).isEqualTo("unchanged");

        assertThat(Files.readString(f)).isEqualTo("unchanged");
        assertThat(Files.getPosixFilePermissions(f)).isEqualTo(PosixFilePermissions.fromString("rw-rw-rw-"));
        try (var entries = Files.list(dir)) {
            assertThat(entries.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("f", "d");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void rootSquashMakesUidZeroNobody(Transport transport) throws Exception {
        file("alices", "alice's secret", ALICE, ALICE, "rw-------");
        Path shared = Files.createDirectory(dir.resolve("shared"));
        own(shared, 0, 0, "rwxrwxrwx");
        serve(ExportOptions.builder().readWrite().build());
        NfsClient root = client(transport, 0, 0);

        NfsFh3 secret = root.lookupPath("alices");
        assertThat(read(root, secret, null)).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(get(root.access(secret, ACCESS3_READ | ACCESS3_MODIFY)).access()).isZero();
        assertThat(get(root.write(secret, 0, ascii("x"), StableHow.FILE_SYNC)).status())
                .isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(get(root.setattr(new Setattr3Args(secret, Sattr3.mode(0666), null))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_PERM);
        // the export root is root's 0755: a squashed root may not create there
        assertThat(create(root, root.root(), "x").status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);

        Create3Res made = create(root, root.lookupPath("shared"), "made-by-root");
        assertThat(made.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(made.objAttributes().uid()).isEqualTo(ExportOptions.NOBODY);
        assertThat(made.objAttributes().gid()).isEqualTo(ExportOptions.NOBODY);
        assertThat(uidOf(shared.resolve("made-by-root"))).isEqualTo(ExportOptions.NOBODY);
        assertThat(gidOf(shared.resolve("made-by-root"))).isEqualTo(ExportOptions.NOBODY);
        assertThat(Files.readString(dir.resolve("alices"))).isEqualTo("alice's secret");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void withoutRootSquashUidZeroIsRoot(Transport transport) throws Exception {
        file("alices", "alice's secret", ALICE, ALICE, "rw-------");
        serve(ExportOptions.builder().readWrite().rootSquash(false).build());
        NfsClient root = client(transport, 0, 0);

        String[] text = new String[1];
        assertThat(read(root, root.lookupPath("alices"), text)).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(text[0]).isEqualTo("alice's secret");
        Create3Res made = create(root, root.root(), "made-by-root");
        assertThat(made.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(uidOf(dir.resolve("made-by-root"))).isZero();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void allSquashMakesEveryoneTheAnonymousUser(Transport transport) throws Exception {
        file("alices", "alice's secret", ALICE, ALICE, "rw-------");
        file("anons", "anon's", 2000, 3000, "rw-------");
        own(dir, 0, 0, "rwxrwxrwx");
        serve(ExportOptions.builder().readWrite().allSquash(true).anonUid(2000).anonGid(3000).build());
        NfsClient alice = client(transport, ALICE, ALICE);

        assertThat(read(alice, alice.lookupPath("alices"), null)).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        String[] text = new String[1];
        assertThat(read(alice, alice.lookupPath("anons"), text)).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(text[0]).isEqualTo("anon's");
        assertThat(create(alice, alice.root(), "made").status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(uidOf(dir.resolve("made"))).isEqualTo(2000);
        assertThat(gidOf(dir.resolve("made"))).isEqualTo(3000);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void authNoneActsAsTheAnonymousUser(Transport transport) throws Exception {
        file("roots", "root's", 0, 0, "rw-------");
        own(dir, 0, 0, "rwxrwxrwx");
        serve(ExportOptions.builder().readWrite().rootSquash(false).anonUid(4000).anonGid(4001).build());
        NfsClient anonymous = client(transport, OpaqueAuth.NONE);

        assertThat(read(anonymous, anonymous.lookupPath("roots"), null)).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(create(anonymous, anonymous.root(), "made").status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(uidOf(dir.resolve("made"))).isEqualTo(4000);
        assertThat(gidOf(dir.resolve("made"))).isEqualTo(4001);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aClientOutsideTheListIsRefusedAtMountAndOnEveryCall(Transport transport) throws Exception {
        file("f", "data", 0, 0, "rw-r--r--");
        serve(ExportOptions.builder().readWrite().rootSquash(false).client("192.0.2.0/24").build());

        assertThatThrownBy(() -> client(transport, ALICE, ALICE)).isInstanceOf(NfsMountException.class)
                .extracting(e -> ((NfsMountException) e).status()).isEqualTo(MountStat3.MNT3ERR_ACCES);
        // a valid handle obtained elsewhere does not help
        NfsFh3 root = server.rootHandle();
        RpcClient rpc = rawNfs(transport);
        assertThat(get(rpc.call(Nfs3Constants.PROGRAM, Nfs3Constants.VERSION, Nfs3Constants.NFSPROC3_GETATTR,
                root::encode, Getattr3Res::decode)).status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(get(rpc.call(Nfs3Constants.PROGRAM, Nfs3Constants.VERSION, Nfs3Constants.NFSPROC3_FSINFO,
                root::encode, Fsinfo3Res::decode)).status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(get(rpc.call(Nfs3Constants.PROGRAM, Nfs3Constants.VERSION, Nfs3Constants.NFSPROC3_LOOKUP,
                new DirOpArgs3(root, "f")::encode, Lookup3Res::decode)).status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        Create3Args create = Create3Args.unchecked(new DirOpArgs3(root, "planted"), Sattr3.NONE);
        assertThat(get(rpc.call(Nfs3Constants.PROGRAM, Nfs3Constants.VERSION, Nfs3Constants.NFSPROC3_CREATE,
                create::encode, Create3Res::decode)).status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(dir.resolve("planted")).doesNotExist();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aListedClientIsAdmitted(Transport transport) throws Exception {
        file("f", "data", 0, 0, "rw-r--r--");
        serve(ExportOptions.builder().client("192.0.2.0/24").client("127.0.0.1").build());
        NfsClient c = client(transport, ALICE, ALICE);
        String[] text = new String[1];
        assertThat(read(c, c.lookupPath("f"), text)).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(text[0]).isEqualTo("data");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void anAuthSysUserMayReadItsOwnFileAndNotAnothers(Transport transport) throws Exception {
        file("alices", "alice's", ALICE, ALICE, "rw-------");
        file("bobs", "bob's", BOB, BOB, "rw-------");
        file("group", "group's", BOB, 500, "rw-r-----");
        Path bobsDir = Files.createDirectory(dir.resolve("bobsdir"));
        file("bobsdir/inside", "x", BOB, BOB, "rw-r--r--");
        own(bobsDir, BOB, BOB, "rwx------");
        serve(ExportOptions.defaults());
        NfsClient alice = client(transport, ALICE, ALICE);
        NfsClient aliceInGroup = connect(transport, new AuthSys(0, "test", ALICE, ALICE, new int[] {500}));

        String[] text = new String[1];
        assertThat(read(alice, alice.lookupPath("alices"), text)).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(text[0]).isEqualTo("alice's");
        NfsFh3 bobs = alice.lookupPath("bobs");
        assertThat(read(alice, bobs, null)).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(get(alice.access(bobs, ACCESS3_READ)).access()).isZero();
        assertThat(get(alice.access(alice.lookupPath("alices"), ACCESS3_READ)).access()).isEqualTo(ACCESS3_READ);
        // group permission through an auxiliary gid
        NfsFh3 group = alice.lookupPath("group");
        assertThat(read(alice, group, null)).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(read(aliceInGroup, group, text)).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(text[0]).isEqualTo("group's");
        // another's 0700 directory: no search, no listing
        NfsFh3 dirHandle = alice.lookupPath("bobsdir");
        assertThat(get(alice.lookup(dirHandle, "inside")).status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(get(alice.readdir(new Readdir3Args(dirHandle, 0, 0, 4096))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        // a directory others may read but not search: names, but no attributes or handles
        own(bobsDir, BOB, BOB, "rwxr--r--");
        Readdirplus3Res listing = get(alice.readdirplus(new Readdirplus3Args(dirHandle, 0, 0, 4096, 32768)));
        assertThat(listing.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(listing.entries()).extracting(EntryPlus3::name).contains("inside");
        assertThat(listing.entries()).allSatisfy(e -> {
            assertThat(e.nameAttributes()).isNull();
            assertThat(e.nameHandle()).isNull();
        });
        assertThat(get(alice.lookup(dirHandle, "inside")).status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void onlyTheOwnerMayChangeModeAndTimesAndOnlyWritersTheData(Transport transport) throws Exception {
        Path bobs = file("bobs", "bob's", BOB, BOB, "rw-r--r--");
        file("alices", "alice's", ALICE, ALICE, "r--------");
        Path sticky = Files.createDirectory(dir.resolve("tmp"));
        own(sticky, 0, 0, "rwxrwxrwx");
        Files.setAttribute(sticky, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        file("tmp/bobs", "b", BOB, BOB, "rw-rw-rw-");
        serve(ExportOptions.builder().readWrite().build());
        NfsClient alice = client(transport, ALICE, ALICE);

        NfsFh3 fh = alice.lookupPath("bobs");
        assertThat(get(alice.write(fh, 0, ascii("alice"), StableHow.FILE_SYNC)).status())
                .isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(get(alice.setattr(new Setattr3Args(fh, Sattr3.size(0), null))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(get(alice.setattr(new Setattr3Args(fh, Sattr3.mode(0666), null))).status())
                .isEqualTo(Nfs3Status.NFS3ERR_PERM);
        assertThat(get(alice.setattr(new Setattr3Args(fh, new Sattr3(null, ALICE, null, null, SetTime3.DONT_CHANGE,
                SetTime3.DONT_CHANGE), null))).status()).isEqualTo(Nfs3Status.NFS3ERR_PERM);
        assertThat(get(alice.setattr(new Setattr3Args(fh, new Sattr3(null, null, null, null, SetTime3.DONT_CHANGE,
                SetTime3.client(new NfsTime3(1, 0))), null))).status()).isEqualTo(Nfs3Status.NFS3ERR_PERM);
        // "now" needs ownership or write permission: bob's 0644 file is neither alice's
        assertThat(get(alice.setattr(new Setattr3Args(fh, new Sattr3(null, null, null, null, SetTime3.SERVER_TIME,
                SetTime3.SERVER_TIME), null))).status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        assertThat(Files.getLastModifiedTime(bobs).toMillis()).isNotEqualTo(1000L);
        assertThat(Files.readString(bobs)).isEqualTo("bob's");
        assertThat(Files.getPosixFilePermissions(bobs)).isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(uidOf(bobs)).isEqualTo(BOB);
        // in a sticky directory, a world-writable entry is still only its owner's to remove
        NfsFh3 tmp = alice.lookupPath("tmp");
        assertThat(get(alice.remove(tmp, "bobs")).status()).isEqualTo(Nfs3Status.NFS3ERR_PERM);
        assertThat(sticky.resolve("bobs")).exists();

        // the owner may chmod, and write its own 0400 file (knfsd's owner override)
        NfsFh3 mine = alice.lookupPath("alices");
        assertThat(get(alice.write(mine, 0, ascii("ALICE"), StableHow.FILE_SYNC)).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(alice.setattr(new Setattr3Args(mine, Sattr3.mode(0640), null))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(Files.readString(dir.resolve("alices"))).isEqualTo("ALICE's");
        assertThat(Files.getPosixFilePermissions(dir.resolve("alices")))
                .isEqualTo(PosixFilePermissions.fromString("rw-r-----"));
    }

    private static int modeOf(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    private static Path setMode(Path p, int mode) throws IOException {
        Files.setAttribute(p, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
        return p;
    }

    /**
     * The server writes as its own process (root here, with CAP_FSETID), so the kernel would not
     * clear setuid and setgid for it; knfsd drops CAP_FSETID for a non-root caller and the bits go,
     * as they go for an unprivileged local writer. Otherwise bob, allowed to write alice's 06775
     * program, would put his code in it and run it as alice.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aWriteByAnotherUserClearsSetuidAndSetgid(Transport transport) throws Exception {
        Path prog = setMode(file("prog", "#!/bin/true\n", ALICE, ALICE, "rwxrwxr-x"), 06775);
        serve(ExportOptions.builder().readWrite().build());
        NfsClient bob = client(transport, BOB, ALICE);

        org.iwarp4j.nfs.v3.Write3Res w = get(bob.write(bob.lookupPath("prog"), 0, ascii("#!/bin/sh"),
                StableHow.UNSTABLE));

        assertThat(w.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(modeOf(prog)).isEqualTo(0775);
        assertThat(w.fileWcc().after().mode() & 07777).isEqualTo(0775); // the reply shows it
        assertThat(uidOf(prog)).isEqualTo(ALICE);
    }

    /** A size change by a caller that is not root clears them too, even by the owner (Linux's truncate). */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aSizeChangeByANonRootCallerClearsSetuidAndSetgid(Transport transport) throws Exception {
        Path prog = setMode(file("prog", "#!/bin/true\n", ALICE, ALICE, "rwxrwxr-x"), 06775);
        Path own = setMode(file("own", "#!/bin/true\n", ALICE, ALICE, "rwxrwxr-x"), 06775);
        serve(ExportOptions.builder().readWrite().build());
        NfsClient bob = client(transport, BOB, ALICE);
        NfsClient alice = client(transport, ALICE, ALICE);

        assertThat(get(bob.setattr(new Setattr3Args(bob.lookupPath("prog"), Sattr3.size(0), null))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(alice.setattr(new Setattr3Args(alice.lookupPath("own"), Sattr3.size(100), null))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);

        assertThat(Files.size(prog)).isZero();
        assertThat(modeOf(prog)).isEqualTo(0775);
        assertThat(modeOf(own)).isEqualTo(0775);
    }

    /** Root (not squashed) keeps them, as with knfsd; setgid without group execute is kept for anyone. */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void rootKeepsSetuidAndSetgidWithoutGroupExecuteIsKept(Transport transport) throws Exception {
        Path prog = setMode(file("prog", "#!/bin/true\n", ALICE, ALICE, "rwxrwxr-x"), 06775);
        Path locking = setMode(file("locking", "data", ALICE, ALICE, "rw-rw-r--"), 02664);
        serve(ExportOptions.builder().readWrite().rootSquash(false).build());
        NfsClient root = client(transport, 0, 0);
        NfsClient bob = client(transport, BOB, ALICE);

        assertThat(get(root.write(root.lookupPath("prog"), 0, ascii("#!/bin/sh"), StableHow.FILE_SYNC)).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(root.setattr(new Setattr3Args(root.lookupPath("prog"), Sattr3.size(2), null))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(bob.write(bob.lookupPath("locking"), 0, ascii("DATA"), StableHow.FILE_SYNC)).status())
                .isEqualTo(Nfs3Status.NFS3_OK);

        assertThat(modeOf(prog)).isEqualTo(06775);
        assertThat(modeOf(locking)).isEqualTo(02664);
        assertThat(Files.readString(locking)).isEqualTo("DATA");
    }

    /**
     * A chown or chgrp to the values a file already has is no no-op for a server running as root:
     * lchown clears setuid and setgid (chown_common) and changes the ctime. Linux's chown_ok and
     * chgrp_ok let only the owner do even that, so bob may not strip alice's setuid bit; alice may.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void onlyTheOwnerMayChownOrChgrpEvenToTheCurrentValues(Transport transport) throws Exception {
        Path prog = setMode(file("prog", "#!/bin/true\n", ALICE, ALICE, "rwxr-xr-x"), 04755);
        serve(ExportOptions.builder().readWrite().build());
        NfsClient bob = connect(transport, new AuthSys(0, "test", BOB, BOB, new int[] {ALICE}));
        NfsFh3 fh = bob.lookupPath("prog");

        assertThat(get(bob.setattr(new Setattr3Args(fh, new Sattr3(null, ALICE, null, null, SetTime3.DONT_CHANGE,
                SetTime3.DONT_CHANGE), null))).status()).as("uid unchanged").isEqualTo(Nfs3Status.NFS3ERR_PERM);
        assertThat(get(bob.setattr(new Setattr3Args(fh, new Sattr3(null, null, ALICE, null, SetTime3.DONT_CHANGE,
                SetTime3.DONT_CHANGE), null))).status()).as("gid unchanged, one of bob's groups")
                .isEqualTo(Nfs3Status.NFS3ERR_PERM);
        assertThat(modeOf(prog)).isEqualTo(04755);

        NfsClient alice = client(transport, ALICE, ALICE);
        assertThat(get(alice.setattr(new Setattr3Args(fh, new Sattr3(null, ALICE, ALICE, null, SetTime3.DONT_CHANGE,
                SetTime3.DONT_CHANGE), null))).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(uidOf(prog)).isEqualTo(ALICE);
        assertThat(modeOf(prog)).as("the owner's chown clears setuid, as Linux's").isEqualTo(0755);
    }

    /**
     * A directory made in a setgid directory is setgid too, whatever its creator's groups
     * (inode_init_owner): knfsd passes the mode to vfs_mkdir and sets it no more, where this server
     * made the directory and then chmodded it to the mode asked for, which dropped the bit that
     * passes the group on. vfs_mkdir takes no setuid or setgid from the mode asked for.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aDirectoryMadeInASetgidDirectoryIsSetgid(Transport transport) throws Exception {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        own(shared, 0, 500, "rwxrwxr-x");
        setMode(shared, 02775);
        own(dir, 0, 0, "rwxrwxrwx");
        serve(ExportOptions.builder().readWrite().build());
        NfsClient alice = connect(transport, new AuthSys(0, "test", ALICE, ALICE, new int[] {500}));

        assertThat(get(alice.mkdir(alice.lookupPath("shared"), "sub", Sattr3.mode(0775))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(gidOf(shared.resolve("sub"))).isEqualTo(500);
        assertThat(modeOf(shared.resolve("sub"))).isEqualTo(02775);
        assertThat(get(alice.mkdir(alice.root(), "plain", Sattr3.mode(06775))).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(modeOf(dir.resolve("plain"))).as("no setuid or setgid from the mode asked for").isEqualTo(0775);
    }

    /**
     * ACCESS answers what the operations allow: changing a directory's entries needs write and
     * search permission (knfsd's nfs3_diraccess: MODIFY, EXTEND and DELETE are EXEC|WRITE), so
     * a directory others may write but not search grants them none of the three.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void accessOnADirectoryGrantsChangesOnlyWithWriteAndSearchPermission(Transport transport) throws Exception {
        Path bobs = Files.createDirectory(dir.resolve("bobs"));
        own(bobs, BOB, BOB, "rwxrwx-w-");
        Path open = Files.createDirectory(dir.resolve("open"));
        own(open, BOB, BOB, "rwxrwx-wx");
        serve(ExportOptions.builder().readWrite().build());
        NfsClient alice = client(transport, ALICE, ALICE);
        NfsFh3 writeOnly = alice.lookupPath("bobs");
        int change = ACCESS3_MODIFY | ACCESS3_EXTEND | ACCESS3_DELETE;

        assertThat(get(alice.access(writeOnly, change)).access()).isZero();
        assertThat(create(alice, writeOnly, "x").status()).isEqualTo(Nfs3Status.NFS3ERR_ACCES);
        NfsFh3 writeAndSearch = alice.lookupPath("open");
        assertThat(get(alice.access(writeAndSearch, change)).access()).isEqualTo(change);
        assertThat(create(alice, writeAndSearch, "x").status()).isEqualTo(Nfs3Status.NFS3_OK);
    }

    /**
     * A new object is its creator's alone until it gets the mode asked for: made with java.nio's
     * default it was 0644 (0755), root's until the chown, and an EXCLUSIVE create's file stayed
     * so until the client's SETATTR — for good if the client died first. Made 0600 (0700) now,
     * which is also what a CREATE or MKDIR asking for no mode leaves (knfsd would leave 0).
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void newObjectsAreTheirCreatorsAloneUntilGivenTheModeAskedFor(Transport transport) throws Exception {
        own(dir, 0, 0, "rwxrwxrwx");
        serve(ExportOptions.builder().readWrite().build());
        NfsClient alice = client(transport, ALICE, ALICE);

        Create3Res exclusive = get(alice.create(Create3Args.exclusive(new DirOpArgs3(alice.root(), "excl"), 42)));
        assertThat(exclusive.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(uidOf(dir.resolve("excl"))).isEqualTo(ALICE);
        assertThat(modeOf(dir.resolve("excl"))).isEqualTo(0600);
        assertThat(get(alice.mkdir(alice.root(), "d", Sattr3.NONE)).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(modeOf(dir.resolve("d"))).isEqualTo(0700);
        assertThat(get(alice.mkdir(alice.root(), "asked", Sattr3.mode(0755))).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(modeOf(dir.resolve("asked"))).isEqualTo(0755);
    }

    /** A FIFO made by mkfifo(1) (java.nio cannot make one), given to {@code uid}:{@code gid} with {@code mode}. */
    private Path fifo(String name, int uid, int gid, String mode) throws Exception {
        Path p = dir.resolve(name);
        Process mkfifo = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).as("mkfifo ran").isTrue();
        assertThat(mkfifo.exitValue()).as("mkfifo's status").isZero();
        fifos.add(p);
        own(p, uid, gid, mode);
        return p;
    }

    /**
     * Releases an open(O_RDONLY) of {@code fifo} blocked for want of a writer, such as a server
     * worker's: an O_RDWR open of a FIFO never blocks on Linux, and counts as the writer.
     */
    private static void unblockOpens(Path fifo) throws IOException {
        if (Files.exists(fifo, LinkOption.NOFOLLOW_LINKS)) {
            FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
        }
    }

    /** The call's result, which must come within 5 s: a server worker blocked in an open would never answer it. */
    private static <T> T answered(CompletableFuture<T> call) {
        return assertThat(call).as("answered within 5 s").succeedsWithin(Duration.ofSeconds(5)).actual();
    }

    /**
     * SETATTR of a FIFO's mode by its owner: knfsd's notify_change never opens the object, while
     * java.nio's chmod without following links opens it O_RDONLY first, which for a FIFO without
     * a writer blocks for good — and the worker holds the namespace lock, so the CREATE after it
     * waited too. The mode is now set with chmod(2) on the path. Times cannot be set without
     * such an open (java.nio has no path-based call for both): NFS3ERR_NOTSUPP, and nothing blocks.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void setattrOfAFifoNeverOpensIt(Transport transport) throws Exception {
        Path fifo = fifo("fifo", ALICE, ALICE, "rw-r--r--");
        own(dir, 0, 0, "rwxrwxrwx");
        serve(ExportOptions.builder().readWrite().build());
        NfsClient alice = client(transport, ALICE, ALICE);
        NfsFh3 fh = alice.lookupPath("fifo");

        assertThat(answered(alice.setattr(new Setattr3Args(fh, Sattr3.mode(0600), null))).status())
                .isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(modeOf(fifo)).isEqualTo(0600);
        assertThat(answered(alice.setattr(new Setattr3Args(fh, new Sattr3(0640, null, null, null,
                SetTime3.SERVER_TIME, SetTime3.SERVER_TIME), null))).status()).isEqualTo(Nfs3Status.NFS3ERR_NOTSUPP);
        assertThat(modeOf(fifo)).as("nothing of a refused SETATTR is set").isEqualTo(0600);
        assertThat(answered(alice.create(Create3Args.guarded(new DirOpArgs3(alice.root(), "after"), Sattr3.mode(0644))))
                .status()).isEqualTo(Nfs3Status.NFS3_OK);
    }

    private NfsClient connect(Transport transport, AuthSys credential) throws IOException {
        NfsClient c = clientBuilder(transport).credential(credential).connect();
        open.add(c);
        return c;
    }
}
