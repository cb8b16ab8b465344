package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.testkit.NeedsRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file operations of RFC 8881 §18 through COMPOUND octets: handles, names, attributes, OPEN
 * and CLOSE with their stateids, READ, WRITE and COMMIT, byte-range locks, and their errors.
 */
class Nfs4FileOpsTest {

    @TempDir
    Path dir;
    Nfs4Harness h;

    @BeforeEach
    void start() throws Exception {
        h = new Nfs4Harness(dir);
        h.session();
    }

    /** FIFOs a test made, whose blocked opens (the server's) {@link #stop} releases. */
    private final List<Path> fifos = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (Path fifo : fifos) {
            // an O_RDWR open of a FIFO never blocks on Linux and counts as the writer an
            // open(O_RDONLY) blocked waiting for
            if (Files.exists(fifo, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                java.nio.channels.FileChannel.open(fifo, java.nio.file.StandardOpenOption.READ,
                        java.nio.file.StandardOpenOption.WRITE).close();
            }
        }
        h.close();
    }

    private Reply seq(java.util.function.Consumer<org.iwarp4j.oncrpc.XdrEncoder>... ops) {
        Reply r = h.sequenced(ops);
        assertThat(r.in.readFixedOpaque(16)).isEqualTo(h.sessionId);
        r.in.skip(20);
        return r;
    }

    @Test
    void getattrOfTheRootAnswersTheAskedSupportedAttributesInOrder() throws Exception {
        Reply r = seq(putrootfh(), op(OP_GETFH), getattr(FATTR4_MOUNTED_ON_FILEID, FATTR4_TYPE, FATTR4_SIZE,
                FATTR4_FSID, FATTR4_FS_LOCATIONS, FATTR4_MODE, FATTR4_OWNER, FATTR4_LEASE_TIME));
        r.op(OP_PUTROOTFH);
        assertThat(r.op(OP_GETFH)).isEqualTo(NFS4_OK);
        byte[] fh = r.in.readOpaque(128);
        assertThat(fh).isEqualTo(h.base.handles().rootHandle().data());
        assertThat(r.op(OP_GETATTR)).isEqualTo(NFS4_OK);
        Bitmap4 answered = Bitmap4.decode(r.in);
        assertThat(answered).as("fs_locations is not supported, so left out")
                .isEqualTo(Bitmap4.of(FATTR4_TYPE, FATTR4_SIZE, FATTR4_FSID, FATTR4_MODE, FATTR4_OWNER,
                        FATTR4_LEASE_TIME, FATTR4_MOUNTED_ON_FILEID));
        int length = r.in.readInt();
        assertThat(r.in.readInt()).isEqualTo(NF4DIR);
        r.in.readHyper();
        assertThat(r.in.readHyper()).isEqualTo(h.base.export().id());
        assertThat(r.in.readHyper()).isZero();
        assertThat(r.in.readInt()).as("lease_time").isEqualTo(90);
        assertThat(r.in.readInt()).isEqualTo((Integer) Files.getAttribute(dir, "unix:mode") & 07777);
        assertThat(r.in.readString(64)).isEqualTo(String.valueOf(Files.getAttribute(dir, "unix:uid")));
        assertThat(r.in.readHyper()).isEqualTo(((Number) Files.getAttribute(dir, "unix:ino")).longValue());
        assertThat(length).isEqualTo(4 + 8 + 16 + 4 + 4 + ((String.valueOf(Files.getAttribute(dir, "unix:uid"))
                .length() + 3) & ~3) + 4 + 8);
        assertThat(r.in.isEmpty()).isTrue();
    }

    /**
     * NFSv4.1's WRITE and COMMIT answer the NFSv3 server's write verifier (RFC 8881 §18.32.3,
     * §18.3.3), and a failed force changes it for every later reply, so that each client with
     * unstable data writes it again, not only the one whose COMMIT met the error.
     */
    @Test
    void aFailedCommitGivesLaterCommitsAndWritesANewVerifier() throws Exception {
        Reply o = seq(putrootfh(), open("owner", "f", OPEN4_SHARE_ACCESS_BOTH, 0, true), op(OP_GETFH));
        o.op(OP_PUTROOTFH);
        assertThat(o.op(OP_OPEN)).isEqualTo(NFS4_OK);
        Stateid4 s = o.openBody();
        o.op(OP_GETFH);
        byte[] fh = o.in.readOpaque(128);
        Reply w = seq(putfh(fh), write(s, 0, UNSTABLE4, new byte[] {1, 2, 3}));
        w.op(OP_PUTFH);
        assertThat(w.op(OP_WRITE)).isEqualTo(NFS4_OK);
        w.in.skip(8);
        long verifier = w.in.readHyper();
        new org.iwarp4j.nfs.internal.FaultyFileIo() {
            @Override
            protected void beforeForce(int n, java.nio.channels.FileChannel channel) throws java.io.IOException {
                if (n == 1) {
                    throw new java.io.IOException("Input/output error (write-back failed)");
                }
            }
        }.install(h.base);
        java.util.function.Consumer<org.iwarp4j.oncrpc.XdrEncoder> commit = e -> e.writeInt(OP_COMMIT).writeHyper(0)
                .writeInt(0);

        assertThat(seq(putfh(fh), commit).status).isEqualTo(NFS4ERR_IO);
        Reply c = seq(putfh(fh), commit);
        c.op(OP_PUTFH);
        assertThat(c.op(OP_COMMIT)).isEqualTo(NFS4_OK);
        long after = c.in.readHyper();
        assertThat(after).as("COMMIT after the failed one").isNotEqualTo(verifier);
        Reply w2 = seq(putfh(fh), write(s, 0, UNSTABLE4, new byte[] {1, 2, 3}));
        w2.op(OP_PUTFH);
        assertThat(w2.op(OP_WRITE)).isEqualTo(NFS4_OK);
        w2.in.skip(8);
        assertThat(w2.in.readHyper()).as("WRITE after the failure").isEqualTo(after);
    }

    @Test
    void lookupLookuppAndTheirErrors() throws Exception {
        Files.createDirectories(dir.resolve("a/b"));
        Files.writeString(dir.resolve("a/file"), "x");
        Reply r = seq(putrootfh(), lookup("a"), lookup("b"), op(OP_LOOKUPP), op(OP_GETFH));
        assertThat(r.status).isEqualTo(NFS4_OK);
        r.op(OP_PUTROOTFH);
        r.op(OP_LOOKUP);
        r.op(OP_LOOKUP);
        r.op(OP_LOOKUPP);
        r.op(OP_GETFH);
        byte[] a = r.in.readOpaque(128);
        Reply a2 = seq(putrootfh(), lookup("a"), op(OP_GETFH));
        a2.op(OP_PUTROOTFH);
        a2.op(OP_LOOKUP);
        a2.op(OP_GETFH);
        assertThat(a2.in.readOpaque(128)).isEqualTo(a);

        assertThat(seq(putrootfh(), op(OP_LOOKUPP)).status).as("above the root").isEqualTo(NFS4ERR_NOENT);
        assertThat(seq(putrootfh(), lookup("missing")).status).isEqualTo(NFS4ERR_NOENT);
        assertThat(seq(putrootfh(), lookup("..")).status).isEqualTo(NFS4ERR_BADNAME);
        assertThat(seq(putrootfh(), lookup("a/b")).status).isEqualTo(NFS4ERR_BADNAME);
        assertThat(seq(putrootfh(), lookup("")).status).isEqualTo(NFS4ERR_INVAL);
        assertThat(seq(putrootfh(), lookup("n".repeat(256))).status).isEqualTo(NFS4ERR_NAMETOOLONG);
        assertThat(seq(putrootfh(), lookup("a"), lookup("file"), lookup("x")).status).isEqualTo(NFS4ERR_NOTDIR);
        assertThat(seq(lookup("a")).status).isEqualTo(NFS4ERR_NOFILEHANDLE);
        assertThat(seq(putfh(new byte[] {9, 9, 9})).status).isEqualTo(NFS4ERR_BADHANDLE);
        assertThat(seq(op(OP_RESTOREFH)).status).isEqualTo(NFS4ERR_RESTOREFH);
    }

    @Test
    void openWriteCommitReadClose() throws Exception {
        byte[] data = "hello NFSv4".getBytes(StandardCharsets.UTF_8);
        Reply o = seq(putrootfh(), open("owner", "f", OPEN4_SHARE_ACCESS_BOTH, 0, true), op(OP_GETFH));
        o.op(OP_PUTROOTFH);
        assertThat(o.op(OP_OPEN)).isEqualTo(NFS4_OK);
        Stateid4 s = o.openBody();
        assertThat(s.seqid()).isEqualTo(1);
        o.op(OP_GETFH);
        byte[] fh = o.in.readOpaque(128);
        assertThat(Files.getAttribute(dir.resolve("f"), "unix:mode")).isEqualTo(0100644);

        Reply w = seq(putfh(fh), write(s, 0, UNSTABLE4, data), e -> e.writeInt(OP_COMMIT).writeHyper(0).writeInt(0));
        w.op(OP_PUTFH);
        assertThat(w.op(OP_WRITE)).isEqualTo(NFS4_OK);
        assertThat(w.in.readInt()).isEqualTo(data.length);
        assertThat(w.in.readEnum()).isEqualTo(UNSTABLE4);
        long verifier = w.in.readHyper();
        assertThat(w.op(OP_COMMIT)).isEqualTo(NFS4_OK);
        assertThat(w.in.readHyper()).as("COMMIT's verifier is WRITE's").isEqualTo(verifier);
        assertThat(dir.resolve("f")).hasBinaryContent(data);

        Reply rd = seq(putfh(fh), read(s, 6, 100), read(Stateid4.CURRENT, 0, 5));
        rd.op(OP_PUTFH);
        assertThat(rd.op(OP_READ)).isEqualTo(NFS4_OK);
        assertThat(rd.in.readBoolean()).as("eof").isTrue();
        assertThat(new String(rd.in.readOpaque(100), StandardCharsets.UTF_8)).isEqualTo("NFSv4");
        assertThat(rd.op(OP_READ)).as("the current stateid is none after PUTFH").isEqualTo(NFS4ERR_BAD_STATEID);

        Reply c = seq(putfh(fh), close(s));
        c.op(OP_PUTFH);
        assertThat(c.op(OP_CLOSE)).isEqualTo(NFS4_OK);
        Reply again = seq(putfh(fh), close(s));
        again.op(OP_PUTFH);
        assertThat(again.op(OP_CLOSE)).as("closed").isEqualTo(NFS4ERR_BAD_STATEID);
    }

    private byte[] fhOf(String name) {
        Reply r = seq(putrootfh(), lookup(name), op(OP_GETFH));
        r.op(OP_PUTROOTFH);
        r.op(OP_LOOKUP);
        r.op(OP_GETFH);
        return r.in.readOpaque(128);
    }

    private Stateid4 openFile(String owner, String name, int access, int deny) {
        Reply o = seq(putrootfh(), open(owner, name, access, deny, true));
        o.op(OP_PUTROOTFH);
        assertThat(o.op(OP_OPEN)).isEqualTo(NFS4_OK);
        return o.openBody();
    }

    @Test
    void stateidSeqidsAndOthersAreChecked() throws Exception {
        Stateid4 first = openFile("owner", "f", OPEN4_SHARE_ACCESS_READ, 0);
        Stateid4 second = openFile("owner", "f", OPEN4_SHARE_ACCESS_BOTH, 0);
        assertThat(second.sameOther(first)).as("the owner's open is upgraded").isTrue();
        assertThat(second.seqid()).isEqualTo(2);
        byte[] fh = fhOf("f");
        assertThat(seq(putfh(fh), read(first, 0, 1)).status).isEqualTo(NFS4ERR_OLD_STATEID);
        assertThat(seq(putfh(fh), read(second.withSeqid(3), 0, 1)).status).isEqualTo(NFS4ERR_BAD_STATEID);
        assertThat(seq(putfh(fh), read(second.withSeqid(0), 0, 1)).status).as("seqid 0: the current").isEqualTo(NFS4_OK);
        byte[] other = second.other();
        other[11] ^= 1;
        assertThat(seq(putfh(fh), read(new Stateid4(1, other), 0, 1)).status).isEqualTo(NFS4ERR_BAD_STATEID);
        other[0] ^= 1;
        assertThat(seq(putfh(fh), read(new Stateid4(1, other), 0, 1)).status).isEqualTo(NFS4ERR_STALE_STATEID);
        assertThat(seq(putfh(fh), read(Stateid4.ANONYMOUS, 0, 1)).status).isEqualTo(NFS4_OK);

        Reply test = seq(e -> {
            e.writeInt(OP_TEST_STATEID).writeUnsignedInt(3);
            second.encode(e);
            first.encode(e);
            new Stateid4(1, other).encode(e);
        });
        assertThat(test.op(OP_TEST_STATEID)).isEqualTo(NFS4_OK);
        assertThat(test.in.readIntArray(3)).containsExactly(NFS4_OK, NFS4ERR_OLD_STATEID, NFS4ERR_STALE_STATEID);
    }

    @Test
    void writeNeedsAnOpenForWritingAndShareDenyIsEnforced() throws Exception {
        Stateid4 readOnly = openFile("reader", "f", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE);
        byte[] fh = fhOf("f");
        assertThat(seq(putfh(fh), write(readOnly, 0, FILE_SYNC4, new byte[1])).status).isEqualTo(NFS4ERR_OPENMODE);
        Reply other = seq(putrootfh(), open("writer", "f", OPEN4_SHARE_ACCESS_WRITE, 0, false));
        other.op(OP_PUTROOTFH);
        assertThat(other.op(OP_OPEN)).isEqualTo(NFS4ERR_SHARE_DENIED);
        assertThat(seq(putfh(fh), write(Stateid4.ANONYMOUS, 0, FILE_SYNC4, new byte[1])).status)
                .as("anonymous WRITE against DENY_WRITE").isEqualTo(NFS4ERR_LOCKED);
        Reply down = seq(putfh(fh), e -> {
            e.writeInt(OP_OPEN_DOWNGRADE);
            readOnly.encode(e);
            e.writeInt(0).writeInt(OPEN4_SHARE_ACCESS_READ).writeInt(0);
        });
        down.op(OP_PUTFH);
        assertThat(down.op(OP_OPEN_DOWNGRADE)).isEqualTo(NFS4_OK);
        assertThat(down.stateid().seqid()).isEqualTo(2);
        Reply now = seq(putrootfh(), open("writer", "f", OPEN4_SHARE_ACCESS_WRITE, 0, false));
        now.op(OP_PUTROOTFH);
        assertThat(now.op(OP_OPEN)).isEqualTo(NFS4_OK);
    }

    @Test
    void openCreateModesAndTypes() throws Exception {
        Files.createDirectory(dir.resolve("d"));
        Files.createSymbolicLink(dir.resolve("l"), Path.of("d"));
        Reply guarded = seq(putrootfh(), e -> {
            e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0).writeHyper(0)
                    .writeOpaque(new byte[] {1}, 1024).writeEnum(OPEN4_CREATE).writeEnum(GUARDED4);
            Bitmap4.EMPTY.encode(e);
            e.writeUnsignedInt(0).writeEnum(CLAIM_NULL).writeString("d", 1024);
        });
        guarded.op(OP_PUTROOTFH);
        assertThat(guarded.op(OP_OPEN)).isEqualTo(NFS4ERR_EXIST);
        assertThat(seq(putrootfh(), open("o", "d", OPEN4_SHARE_ACCESS_READ, 0, false)).status).isEqualTo(NFS4ERR_ISDIR);
        assertThat(seq(putrootfh(), open("o", "l", OPEN4_SHARE_ACCESS_READ, 0, false)).status).isEqualTo(NFS4ERR_SYMLINK);
        assertThat(seq(putrootfh(), open("o", "nope", OPEN4_SHARE_ACCESS_READ, 0, false)).status).isEqualTo(NFS4ERR_NOENT);
        assertThat(seq(putrootfh(), open("o", "x", 0, 0, true)).status).isEqualTo(NFS4ERR_INVAL);

        for (int attempt = 0; attempt < 2; attempt++) {
            Reply excl = seq(putrootfh(), e -> {
                e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0).writeHyper(0)
                        .writeOpaque(new byte[] {2}, 1024).writeEnum(OPEN4_CREATE).writeEnum(EXCLUSIVE4_1)
                        .writeHyper(0x1234_5678_0000_0042L);
                Bitmap4.of(FATTR4_MODE).encode(e);
                e.writeUnsignedInt(4).writeInt(0600).writeEnum(CLAIM_NULL).writeString("e", 1024);
            });
            excl.op(OP_PUTROOTFH);
            assertThat(excl.op(OP_OPEN)).as("attempt " + attempt + ": a retransmission finds its own file")
                    .isEqualTo(NFS4_OK);
        }
        assertThat(Files.getAttribute(dir.resolve("e"), "unix:mode")).isEqualTo(0100600);
    }

    /** OPEN by name in the current directory, creating with {@code how} and these createattrs. */
    private static Consumer<XdrEncoder> openCreating(String owner, String name, int access, int deny, int how,
                                                     Bitmap4 attributes, byte[] values) {
        return e -> {
            e.writeInt(OP_OPEN).writeInt(0).writeInt(access).writeInt(deny).writeHyper(0)
                    .writeOpaque(owner.getBytes(StandardCharsets.UTF_8), 1024).writeEnum(OPEN4_CREATE).writeEnum(how);
            attributes.encode(e);
            e.writeOpaque(values, 4096).writeEnum(CLAIM_NULL).writeString(name, 1024);
        };
    }

    /** After OPEN's OK status: its attrset, the rest skipped. */
    private static Bitmap4 attrset(Reply r) {
        r.stateid();
        r.in.skip(20 + 4);
        Bitmap4 set = Bitmap4.decode(r.in);
        r.in.readEnum();
        return set;
    }

    private static byte[] hyper(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    /** An XDR string's octets (its length word, its UTF-8, padding). */
    private static byte[] string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + ((b.length + 3) & ~3)).putInt(b.length).put(b).array();
    }

    /** SETATTR with the anonymous stateid of these attributes ({@code values}: their attrlist4). */
    private static Consumer<XdrEncoder> setattr(Bitmap4 attributes, byte[] values) {
        return e -> {
            e.writeInt(OP_SETATTR);
            Stateid4.ANONYMOUS.encode(e);
            attributes.encode(e);
            e.writeOpaque(values, 4096);
        };
    }

    /**
     * Linux sends OPEN4_CREATE for open(O_CREAT) of a name it has not looked up, so an existing
     * name must open as open(2) would: only a name that does not exist needs write permission on
     * the directory (knfsd and POSIX check create permission only then). GUARDED4 finds the name
     * taken, and UNCHECKED4 of a directory is NFS4ERR_ISDIR, whatever the directory's mode.
     */
    @Test
    void openCreateOfAnExistingNameNeedsNoWritePermissionOnTheDirectory() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path readOnly = Files.createDirectory(dir.resolve("ro"));
        Files.writeString(readOnly.resolve("f"), "old");
        Files.setPosixFilePermissions(readOnly.resolve("f"), PosixFilePermissions.fromString("rw-rw-rw-"));
        Files.createDirectory(readOnly.resolve("d"));
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));
        h.uid = 1000;

        Reply append = seq(putrootfh(), lookup("ro"), open("appender", "f", OPEN4_SHARE_ACCESS_WRITE, 0, true),
                write(Stateid4.CURRENT, 3, FILE_SYNC4, "new".getBytes(StandardCharsets.UTF_8)));
        append.op(OP_PUTROOTFH);
        append.op(OP_LOOKUP);
        assertThat(append.op(OP_OPEN)).isEqualTo(NFS4_OK);
        append.openBody();
        assertThat(append.op(OP_WRITE)).isEqualTo(NFS4_OK);
        assertThat(readOnly.resolve("f")).hasContent("oldnew");
        assertThat(Files.getAttribute(readOnly.resolve("f"), "unix:mode")).isEqualTo(0100666);

        assertThat(seq(putrootfh(), lookup("ro"), openCreating("o", "f", OPEN4_SHARE_ACCESS_READ, 0, GUARDED4,
                Bitmap4.EMPTY, new byte[0])).status).isEqualTo(NFS4ERR_EXIST);
        assertThat(seq(putrootfh(), lookup("ro"), open("o", "d", OPEN4_SHARE_ACCESS_READ, 0, true)).status)
                .isEqualTo(NFS4ERR_ISDIR);
        assertThat(seq(putrootfh(), lookup("ro"), open("o", "new", OPEN4_SHARE_ACCESS_READ, 0, true)).status)
                .as("a new name needs write permission").isEqualTo(NFS4ERR_ACCESS);
        assertThat(readOnly.resolve("new")).doesNotExist();
    }

    /** On a read-only export OPEN4_CREATE of an existing file opens it for reading; writing, or a new name, is NFS4ERR_ROFS. */
    @Test
    void openCreateOfAnExistingFileOnAReadOnlyExportOpensItForReading() throws Exception {
        h.close();
        Files.writeString(dir.resolve("f"), "content");
        h = new Nfs4Harness(dir, ExportOptions.builder().readOnly(true).rootSquash(false).build());
        h.session();
        Reply read = seq(putrootfh(), open("o", "f", OPEN4_SHARE_ACCESS_READ, 0, true),
                read(Stateid4.CURRENT, 0, 100));
        read.op(OP_PUTROOTFH);
        assertThat(read.op(OP_OPEN)).isEqualTo(NFS4_OK);
        read.openBody();
        assertThat(read.op(OP_READ)).isEqualTo(NFS4_OK);
        read.in.readBoolean();
        assertThat(new String(read.in.readOpaque(100), StandardCharsets.UTF_8)).isEqualTo("content");
        assertThat(seq(putrootfh(), open("o", "f", OPEN4_SHARE_ACCESS_WRITE, 0, true)).status).isEqualTo(NFS4ERR_ROFS);
        assertThat(seq(putrootfh(), open("o", "new", OPEN4_SHARE_ACCESS_READ, 0, true)).status).isEqualTo(NFS4ERR_ROFS);
    }

    /**
     * UNCHECKED4 on an existing file uses no createattr but a size of 0 (RFC 8881 §18.16.3), and
     * truncates only once the share reservations admit the open and only for an open with write
     * access (NFS4ERR_INVAL otherwise, as knfsd's nfsd4_truncate). The attrset says what was set.
     */
    @Test
    void openUncheckedOfAnExistingFileTruncatesOnlyToZeroAfterTheShareCheckAndForWriting() throws Exception {
        Stateid4 a = openFile("owner-a", "f", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_WRITE);
        byte[] fh = fhOf("f");
        assertThat(seq(putfh(fh), write(a, 0, FILE_SYNC4, "data".getBytes(StandardCharsets.UTF_8))).status)
                .isEqualTo(NFS4_OK);
        Bitmap4 size = Bitmap4.of(FATTR4_SIZE);

        assertThat(seq(putrootfh(), openCreating("owner-b", "f", OPEN4_SHARE_ACCESS_READ, 0, UNCHECKED4, size,
                hyper(0))).status).as("a size of 0 by an open for reading").isEqualTo(NFS4ERR_INVAL);
        assertThat(dir.resolve("f")).hasContent("data");
        assertThat(seq(putrootfh(), openCreating("owner-b", "f", OPEN4_SHARE_ACCESS_WRITE, 0, UNCHECKED4, size,
                hyper(0))).status).as("owner-a denies writing").isEqualTo(NFS4ERR_SHARE_DENIED);
        assertThat(dir.resolve("f")).hasContent("data");

        byte[] tebibyteAndMode = ByteBuffer.allocate(12).putLong(1L << 40).putInt(0600).array();
        Reply extend = seq(putrootfh(), openCreating("owner-b", "f", OPEN4_SHARE_ACCESS_READ, 0, UNCHECKED4,
                Bitmap4.of(FATTR4_SIZE, FATTR4_MODE), tebibyteAndMode));
        extend.op(OP_PUTROOTFH);
        assertThat(extend.op(OP_OPEN)).isEqualTo(NFS4_OK);
        assertThat(attrset(extend).isEmpty()).as("nothing set").isTrue();
        assertThat(Files.size(dir.resolve("f"))).isEqualTo(4);
        assertThat(Files.getAttribute(dir.resolve("f"), "unix:mode")).isEqualTo(0100644);

        assertThat(seq(putfh(fh), close(a)).status).isEqualTo(NFS4_OK);
        Reply truncate = seq(putrootfh(), openCreating("owner-b", "f", OPEN4_SHARE_ACCESS_WRITE, 0, UNCHECKED4,
                size, hyper(0)));
        truncate.op(OP_PUTROOTFH);
        assertThat(truncate.op(OP_OPEN)).isEqualTo(NFS4_OK);
        assertThat(attrset(truncate)).isEqualTo(size);
        assertThat(Files.size(dir.resolve("f"))).isZero();
    }

    /** A file of uid 1000 with mode {@code mode} (setuid, setgid and more) holding "#!/bin/true". */
    private Path setuidProgram(String name, int mode) throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path p = Files.writeString(dir.resolve(name), "#!/bin/true");
        Files.setAttribute(p, "unix:uid", 1000);
        Files.setAttribute(p, "unix:gid", 1000);
        Files.setAttribute(p, "unix:mode", mode);
        return p;
    }

    /**
     * A WRITE by a caller that is not root clears setuid and setgid (with group execute): the
     * server writes as itself, root here, for which the kernel would keep them, where knfsd and a
     * local unprivileged writer lose them. Root keeps them.
     */
    @Test
    @NeedsRoot
    void writeByANonRootCallerClearsSetuidAndSetgid() throws Exception {
        Path prog = setuidProgram("prog", 06777);
        Path roots = setuidProgram("roots", 06777);
        openAndWriteAs(1001, "o", "prog");
        assertThat(Files.getAttribute(prog, "unix:mode")).isEqualTo(0100777);
        assertThat(Files.getAttribute(prog, "unix:uid")).isEqualTo(1000);

        openAndWriteAs(0, "r", "roots");
        assertThat(Files.getAttribute(roots, "unix:mode")).isEqualTo(0106777);
    }

    /** As {@code uid}, OPEN {@code name} for writing and WRITE "#!/bin/sh" at 0 in one COMPOUND, both NFS4_OK. */
    private void openAndWriteAs(int uid, String owner, String name) {
        h.uid = uid;
        Reply w = seq(putrootfh(), open(owner, name, OPEN4_SHARE_ACCESS_WRITE, 0, false),
                write(Stateid4.CURRENT, 0, UNSTABLE4, "#!/bin/sh".getBytes(StandardCharsets.UTF_8)));
        w.op(OP_PUTROOTFH);
        assertThat(w.op(OP_OPEN)).isEqualTo(NFS4_OK);
        w.openBody();
        assertThat(w.op(OP_WRITE)).isEqualTo(NFS4_OK);
    }

    /** OPEN's truncation (UNCHECKED4, size 0) by a caller that is not root clears them as a WRITE does. */
    @Test
    @NeedsRoot
    void openTruncationByANonRootCallerClearsSetuidAndSetgid() throws Exception {
        Path prog = setuidProgram("prog", 06777);
        h.uid = 1001;
        Reply t = seq(putrootfh(), openCreating("o", "prog", OPEN4_SHARE_ACCESS_WRITE, 0, UNCHECKED4,
                Bitmap4.of(FATTR4_SIZE), hyper(0)));
        t.op(OP_PUTROOTFH);
        assertThat(t.op(OP_OPEN)).isEqualTo(NFS4_OK);
        assertThat(Files.size(prog)).isZero();
        assertThat(Files.getAttribute(prog, "unix:mode")).isEqualTo(0100777);
    }

    /** As {@code uid}, OPEN creating {@code name} with mode 0600 and this owner: the attrset answered. */
    private Bitmap4 createWithModeAndOwner(int uid, String name, String owner) {
        h.uid = uid;
        byte[] values = ByteBuffer.allocate(4 + string(owner).length).putInt(0600).put(string(owner)).array();
        Reply r = seq(putrootfh(), openCreating("o", name, OPEN4_SHARE_ACCESS_BOTH, 0, UNCHECKED4,
                Bitmap4.of(FATTR4_MODE, FATTR4_OWNER), values));
        r.op(OP_PUTROOTFH);
        assertThat(r.op(OP_OPEN)).isEqualTo(NFS4_OK);
        return attrset(r);
    }

    /** A new file's attrset holds what was set: owner and owner_group only when root creates it (as knfsd, others' are dropped). */
    @Test
    @NeedsRoot
    void openCreateAnswersTheAttributesSetOnTheNewFile() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThat(createWithModeAndOwner(1000, "new", "0")).isEqualTo(Bitmap4.of(FATTR4_MODE));
        assertThat(Files.getAttribute(dir.resolve("new"), "unix:uid")).isEqualTo(1000);
        assertThat(Files.getAttribute(dir.resolve("new"), "unix:mode")).isEqualTo(0100600);

        assertThat(createWithModeAndOwner(0, "root's", "1000")).isEqualTo(Bitmap4.of(FATTR4_MODE, FATTR4_OWNER));
        assertThat(Files.getAttribute(dir.resolve("root's"), "unix:uid")).isEqualTo(1000);
    }

    /**
     * owner and owner_group are taken as ids only in the numeric form of RFC 8881 §5.9 — decimal,
     * no leading zeros — and within a uid_t other than (uid_t) -1; anything else is
     * NFS4ERR_BADOWNER, in SETATTR and in OPEN's createattrs, and changes nothing.
     */
    @Test
    @NeedsRoot
    void ownerStringsAreDecimalIdsWithoutSignOrLeadingZeros() throws Exception {
        Path f = Files.writeString(dir.resolve("f"), "x");
        Files.setAttribute(f, "unix:uid", 1000);
        Files.setAttribute(f, "unix:gid", 1000);
        byte[] fh = fhOf("f");
        for (String bad : List.of("4294967296", "4294967295", "-1", "+5", "007", "00", "", " 5", "5 ", "1e3",
                "99999999999999999999", "bob@x", "٣")) {
            for (int attribute : new int[] {FATTR4_OWNER, FATTR4_OWNER_GROUP}) {
                assertThat(seq(putfh(fh), setattr(Bitmap4.of(attribute), string(bad))).status).as("attribute %d '%s'", attribute, bad).isEqualTo(NFS4ERR_BADOWNER);
            }
        }
        assertThat(Files.getAttribute(f, "unix:uid")).isEqualTo(1000);
        assertThat(Files.getAttribute(f, "unix:gid")).isEqualTo(1000);

        assertThat(seq(putfh(fh), setattr(Bitmap4.of(FATTR4_OWNER, FATTR4_OWNER_GROUP),
                ByteBuffer.allocate(16).put(string("0")).put(string("2000")).array())).status).isEqualTo(NFS4_OK);
        assertThat(Files.getAttribute(f, "unix:uid")).isEqualTo(0);
        assertThat(Files.getAttribute(f, "unix:gid")).isEqualTo(2000);

        assertThat(seq(putrootfh(), openCreating("o", "g", OPEN4_SHARE_ACCESS_BOTH, 0, UNCHECKED4,
                Bitmap4.of(FATTR4_OWNER), string("-1"))).status).isEqualTo(NFS4ERR_BADOWNER);
        assertThat(dir.resolve("g")).doesNotExist();
    }

    /**
     * owner and owner_group to set, even to the values the file has, are the owner's (or root's):
     * the server's chown would clear setuid and setgid (Linux's chown_ok and chgrp_ok, NFS4ERR_PERM).
     */
    @Test
    @NeedsRoot
    void onlyTheOwnerMaySetOwnerOrOwnerGroupEvenToTheCurrentValues() throws Exception {
        Path prog = setuidProgram("prog", 04755);
        byte[] fh = fhOf("prog");
        h.uid = 1001;
        assertThat(seq(putfh(fh), setattr(Bitmap4.of(FATTR4_OWNER), string("1000"))).status)
                .isEqualTo(NFS4ERR_PERM);
        assertThat(seq(putfh(fh), setattr(Bitmap4.of(FATTR4_OWNER_GROUP), string("1000"))).status)
                .isEqualTo(NFS4ERR_PERM);
        assertThat(Files.getAttribute(prog, "unix:mode")).isEqualTo(0104755);

        h.uid = 1000;
        assertThat(seq(putfh(fh), setattr(Bitmap4.of(FATTR4_OWNER_GROUP), string("1000"))).status)
                .isEqualTo(NFS4_OK);
    }

    /** A directory {@code name} of the export's 0755 root, of {@code uid}:{@code gid} with {@code mode}. */
    private Path directory(String name, int uid, int gid, int mode) throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path d = Files.createDirectory(dir.resolve(name));
        Files.setAttribute(d, "unix:uid", uid);
        Files.setAttribute(d, "unix:gid", gid);
        Files.setAttribute(d, "unix:mode", mode);
        return d;
    }

    /** An EXCLUSIVE4 create's file is its creator's alone (0600) until the client sets its attributes. */
    @Test
    @NeedsRoot
    void anExclusiveCreatesFileIsItsCreatorsAlone() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        h.uid = 1000;
        Reply excl = seq(putrootfh(), e -> e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0)
                .writeHyper(0).writeOpaque(new byte[] {3}, 1024).writeEnum(OPEN4_CREATE).writeEnum(EXCLUSIVE4)
                .writeHyper(42).writeEnum(CLAIM_NULL).writeString("e", 1024));
        assertThat(excl.status).isEqualTo(NFS4_OK);
        assertThat(Files.getAttribute(dir.resolve("e"), "unix:uid")).isEqualTo(1000);
        assertThat(Files.getAttribute(dir.resolve("e"), "unix:mode")).isEqualTo(0100600);
    }

    /** CREATE of a directory in a setgid directory keeps the setgid bit the kernel gave it, whatever the caller's groups. */
    @Test
    @NeedsRoot
    void aDirectoryMadeInASetgidDirectoryIsSetgid() throws Exception {
        Path shared = directory("shared", 0, 500, 02777);
        h.uid = 1000;
        Reply mk = seq(putrootfh(), lookup("shared"), e -> {
            e.writeInt(OP_CREATE).writeEnum(NF4DIR).writeString("sub", 1024);
            Bitmap4.of(FATTR4_MODE).encode(e);
            e.writeUnsignedInt(4).writeInt(0775);
        });
        assertThat(mk.status).isEqualTo(NFS4_OK);
        assertThat(Files.getAttribute(shared.resolve("sub"), "unix:gid")).isEqualTo(500);
        assertThat(Files.getAttribute(shared.resolve("sub"), "unix:mode")).isEqualTo(042775);
    }

    /** ACCESS on a directory grants MODIFY, EXTEND and DELETE only with write and search permission, as CREATE needs. */
    @Test
    @NeedsRoot
    void accessOnADirectoryGrantsChangesOnlyWithWriteAndSearchPermission() throws Exception {
        directory("bobs", 1001, 1001, 0772);
        h.uid = 1000;
        Reply access = seq(putrootfh(), lookup("bobs"), e -> e.writeInt(OP_ACCESS).writeInt(0x3F));
        access.op(OP_PUTROOTFH);
        access.op(OP_LOOKUP);
        assertThat(access.op(OP_ACCESS)).isEqualTo(NFS4_OK);
        access.in.readInt();
        assertThat(access.in.readInt() & (ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_DELETE)).isZero();
        assertThat(seq(putrootfh(), lookup("bobs"), open("o", "x", OPEN4_SHARE_ACCESS_BOTH, 0, true)).status)
                .isEqualTo(NFS4ERR_ACCESS);
    }

    /** OPEN of the current handle (CLAIM_FH), without creating. */
    private static Consumer<XdrEncoder> openFh(String owner, int access, int deny) {
        return e -> e.writeInt(OP_OPEN).writeInt(0).writeInt(access).writeInt(deny).writeHyper(0)
                .writeOpaque(owner.getBytes(StandardCharsets.UTF_8), 1024).writeEnum(OPEN4_NOCREATE)
                .writeEnum(CLAIM_FH);
    }

    /**
     * An open that denies reading shuts every other reader out, so it needs write permission,
     * as knfsd's do_open_permission asks (NFSD_MAY_WRITE for OPEN4_SHARE_DENY_READ): a reader
     * alone could otherwise keep everyone else from reading. Denying writing needs nothing more.
     */
    @Test
    @NeedsRoot
    void anOpenDenyingReadingNeedsWritePermission() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path f = Files.writeString(dir.resolve("f"), "data");
        Files.setAttribute(f, "unix:uid", 1000);
        Files.setAttribute(f, "unix:mode", 0644);
        byte[] fh = fhOf("f");
        h.uid = 1000;
        Reply owner = seq(putfh(fh), openFh("w1", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_READ));
        owner.op(OP_PUTFH);
        assertThat(owner.op(OP_OPEN)).as("the owner, who may write").isEqualTo(NFS4_OK);
        assertThat(seq(putfh(fh), close(owner.openBody())).status).isEqualTo(NFS4_OK);

        h.uid = 1001;
        assertThat(seq(putrootfh(), open("r1", "f", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_READ, false)).status)
                .isEqualTo(NFS4ERR_ACCESS);
        assertThat(seq(putrootfh(), open("r1", "f", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_BOTH, false)).status)
                .isEqualTo(NFS4ERR_ACCESS);
        assertThat(seq(putfh(fh), openFh("r1", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_READ)).status)
                .as("CLAIM_FH").isEqualTo(NFS4ERR_ACCESS);
        assertThat(seq(putrootfh(), open("r1", "f", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE, false)).status)
                .isEqualTo(NFS4_OK);
    }

    /** A FIFO made by mkfifo(1) (java.nio cannot make one), of uid and gid 1000, mode 0644. */
    private Path fifo(String name) throws Exception {
        Path p = dir.resolve(name);
        Process mkfifo = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
        assertThat(mkfifo.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).as("mkfifo ran").isTrue();
        assertThat(mkfifo.exitValue()).as("mkfifo's status").isZero();
        fifos.add(p);
        Files.setAttribute(p, "unix:uid", 1000, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", 1000, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:mode", 0644); // chmod(2): with NOFOLLOW_LINKS java.nio would open the FIFO
        return p;
    }

    /** The status of a COMPOUND run on another thread, which must end within 5 s (a blocked open never would). */
    @SafeVarargs
    private int statusWithin5s(Consumer<XdrEncoder>... ops) {
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "compound");
            t.setDaemon(true);
            return t;
        });
        try {
            return assertThat(java.util.concurrent.CompletableFuture.supplyAsync(() -> seq(ops).status, thread))
                    .as("answered within 5 s").succeedsWithin(java.time.Duration.ofSeconds(5)).actual();
        } finally {
            thread.shutdown();
        }
    }

    /**
     * SETATTR of a FIFO's mode by its owner never opens it (java.nio's chmod without following
     * links opened it O_RDONLY, which blocks for want of a writer, holding the namespace lock);
     * its times, which java.nio would set through such an open, are NFS4ERR_ATTRNOTSUPP.
     */
    @Test
    @NeedsRoot
    void setattrOfAFifoNeverOpensIt() throws Exception {
        Path fifo = fifo("fifo");
        byte[] fh = fhOf("fifo");
        h.uid = 1000;

        assertThat(statusWithin5s(putfh(fh), setattr(Bitmap4.of(FATTR4_MODE), ByteBuffer.allocate(4).putInt(0600)
                .array()))).isEqualTo(NFS4_OK);
        assertThat(Files.getAttribute(fifo, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS)).isEqualTo(010600);
        assertThat(statusWithin5s(putfh(fh), setattr(Bitmap4.of(FATTR4_MODE, FATTR4_TIME_MODIFY_SET),
                ByteBuffer.allocate(8).putInt(0640).putInt(SET_TO_SERVER_TIME4).array())))
                .isEqualTo(NFS4ERR_ATTRNOTSUPP);
        assertThat(Files.getAttribute(fifo, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS))
                .as("nothing of a refused SETATTR is set").isEqualTo(010600);
        h.uid = 0;
        assertThat(statusWithin5s(putrootfh(), e -> {
            e.writeInt(OP_CREATE).writeEnum(NF4DIR).writeString("after", 1024);
            Bitmap4.EMPTY.encode(e);
            e.writeUnsignedInt(0);
        })).isEqualTo(NFS4_OK);
    }

    /** LOCKT only tests (RFC 8881 §18.11): a lock owner it names is not made, so a loop of LOCKTs leaves nothing. */
    @Test
    void locktLeavesNoLockOwnerBehind() throws Exception {
        openFile("owner-a", "f", OPEN4_SHARE_ACCESS_BOTH, 0);
        byte[] fh = fhOf("f");
        int before = h.ctx.states().ownersHeld();
        for (int i = 0; i < 20; i++) {
            String owner = "tester-" + i;
            Reply test = seq(putfh(fh), e -> e.writeInt(OP_LOCKT).writeEnum(WRITE_LT).writeHyper(0).writeHyper(1)
                    .writeHyper(h.clientId).writeOpaque(owner.getBytes(StandardCharsets.UTF_8), 1024));
            test.op(OP_PUTFH);
            assertThat(test.op(OP_LOCKT)).as("nothing locked").isEqualTo(NFS4_OK);
        }
        assertThat(h.ctx.states().ownersHeld()).isEqualTo(before);
    }

    /**
     * DESTROY_CLIENTID drops what the client still holds without state (RFC 8881 §18.50): the
     * open owner of a file it opened and closed does not outlive the client.
     */
    @Test
    void destroyClientIdDropsTheOwnersLeftWithoutState() throws Exception {
        Stateid4 a = openFile("owner-a", "f", OPEN4_SHARE_ACCESS_BOTH, 0);
        assertThat(seq(putfh(fhOf("f")), close(a)).status).isEqualTo(NFS4_OK);
        assertThat(h.ctx.states().ownersHeld()).as("the open owner stays after CLOSE").isEqualTo(1);
        assertThat(h.compound(e -> e.writeInt(OP_DESTROY_SESSION).writeFixedOpaque(h.sessionId))
                .op(OP_DESTROY_SESSION)).isEqualTo(NFS4_OK);
        assertThat(h.compound(e -> e.writeInt(OP_DESTROY_CLIENTID).writeHyper(h.clientId))
                .op(OP_DESTROY_CLIENTID)).isEqualTo(NFS4_OK);
        assertThat(h.ctx.states().ownersHeld()).isZero();
    }

    @Test
    void byteRangeLocks() throws Exception {
        Stateid4 a = openFile("owner-a", "f", OPEN4_SHARE_ACCESS_BOTH, 0);
        Stateid4 b = openFile("owner-b", "f", OPEN4_SHARE_ACCESS_BOTH, 0);
        byte[] fh = fhOf("f");
        Reply la = seq(putfh(fh), lockNew(a, "lock-a", WRITE_LT, 0, 100));
        la.op(OP_PUTFH);
        assertThat(la.op(OP_LOCK)).isEqualTo(NFS4_OK);
        Stateid4 lockA = la.stateid();
        assertThat(lockA.seqid()).isEqualTo(1);

        Reply lb = seq(putfh(fh), lockNew(b, "lock-b", READ_LT, 50, 10));
        lb.op(OP_PUTFH);
        assertThat(lb.op(OP_LOCK)).isEqualTo(NFS4ERR_DENIED);
        assertThat(lb.in.readHyper()).isZero();
        assertThat(lb.in.readHyper()).isEqualTo(100);
        assertThat(lb.in.readEnum()).isEqualTo(WRITE_LT);
        assertThat(lb.in.readHyper()).isEqualTo(h.clientId);
        assertThat(new String(lb.in.readOpaque(1024), StandardCharsets.UTF_8)).isEqualTo("lock-a");

        Reply nonOverlapping = seq(putfh(fh), lockNew(b, "lock-b", WRITE_LT, 100, -1L));
        nonOverlapping.op(OP_PUTFH);
        assertThat(nonOverlapping.op(OP_LOCK)).as("to the end, after a's range").isEqualTo(NFS4_OK);
        Stateid4 lockB = nonOverlapping.stateid();

        Reply test = seq(putfh(fh), e -> e.writeInt(OP_LOCKT).writeEnum(READ_LT).writeHyper(10).writeHyper(1)
                .writeHyper(h.clientId).writeOpaque("lock-c".getBytes(StandardCharsets.UTF_8), 1024));
        test.op(OP_PUTFH);
        assertThat(test.op(OP_LOCKT)).isEqualTo(NFS4ERR_DENIED);

        assertThat(seq(putfh(fh), close(a)).status).as("CLOSE with locks held").isEqualTo(NFS4ERR_LOCKS_HELD);
        assertThat(seq(e -> {
            e.writeInt(OP_FREE_STATEID);
            lockA.encode(e);
        }).status).isEqualTo(NFS4ERR_LOCKS_HELD);

        Reply un = seq(putfh(fh), locku(lockA, 0, 100));
        un.op(OP_PUTFH);
        assertThat(un.op(OP_LOCKU)).isEqualTo(NFS4_OK);
        Stateid4 lockA2 = un.stateid();
        assertThat(lockA2.seqid()).isEqualTo(2);
        assertThat(seq(putfh(fh), lockExisting(lockA, WRITE_LT, 0, 1)).status).isEqualTo(NFS4ERR_OLD_STATEID);
        assertThat(seq(putfh(fh), lockExisting(lockA2, WRITE_LT, 0, 0)).status).as("length 0").isEqualTo(NFS4ERR_INVAL);
        assertThat(seq(putfh(fh), lockExisting(lockA2, WRITE_LT, -2L, 5)).status).as("beyond 2^64")
                .isEqualTo(NFS4ERR_INVAL);
        Reply now = seq(putfh(fh), lockNew(b, "lock-b", READ_LT, 50, 10));
        assertThat(now.status).isEqualTo(NFS4_OK);
        now.op(OP_PUTFH);
        now.op(OP_LOCK);
        Stateid4 lockB2 = now.stateid();
        assertThat(lockB2.sameOther(lockB)).as("the lock owner's state on the file").isTrue();
        assertThat(lockB2.seqid()).isEqualTo(2);
        assertThat(seq(putfh(fh), locku(lockB, 0, -1L)).status).isEqualTo(NFS4ERR_OLD_STATEID);

        assertThat(seq(e -> {
            e.writeInt(OP_FREE_STATEID);
            lockA2.encode(e);
        }).status).isEqualTo(NFS4_OK);
        assertThat(seq(putfh(fh), close(a)).status).isEqualTo(NFS4_OK);
        assertThat(seq(putfh(fh), locku(lockB2, 0, -1L)).status).isEqualTo(NFS4_OK);
        assertThat(seq(e -> {
            e.writeInt(OP_DELEGRETURN);
            lockB.encode(e);
        }).status).isEqualTo(NFS4ERR_NOFILEHANDLE);
        assertThat(seq(putfh(fh), e -> {
            e.writeInt(OP_DELEGRETURN);
            lockB.encode(e);
        }).status).as("no delegations are granted").isEqualTo(NFS4ERR_BAD_STATEID);
    }

    /**
     * What an NFSv4.1 operation changed is forced before the COMPOUND answers it, outside the
     * namespace lock, as in NFSv3 (MetadataCommitsTest); a force that fails is NFS4ERR_IO.
     */
    @Test
    void namesAnOperationChangedAreForcedBeforeItsResultAndAFailedForceIsIo() throws Exception {
        java.util.List<java.nio.file.Path> forced = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean fail = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean underLock = new java.util.concurrent.atomic.AtomicBoolean();
        h.base.metadata().forcing((path, channel) -> {
            underLock.compareAndSet(false, h.base.namespace().held());
            if (fail.get()) {
                throw new java.io.IOException("a failing disk, for the test");
            }
            forced.add(path);
        });
        Reply mk = seq(putrootfh(), e -> {
            e.writeInt(OP_CREATE).writeEnum(NF4DIR).writeString("sub", 1024);
            Bitmap4.of(FATTR4_MODE).encode(e);
            e.writeUnsignedInt(4).writeInt(0750);
        });
        assertThat(mk.status).isEqualTo(NFS4_OK);
        java.nio.file.Path root = h.base.export().root();
        assertThat(forced).containsExactly(root, root.resolve("sub"));
        assertThat(underLock).as("forced outside the namespace lock").isFalse();

        fail.set(true);
        Reply failed = seq(putrootfh(), e -> {
            e.writeInt(OP_CREATE).writeEnum(NF4DIR).writeString("sub2", 1024);
            Bitmap4.EMPTY.encode(e);
            e.writeUnsignedInt(0);
        });
        assertThat(failed.status).isEqualTo(NFS4ERR_IO);
    }

    @Test
    void namespaceOperations() throws Exception {
        Reply mk = seq(putrootfh(), e -> {
            e.writeInt(OP_CREATE).writeEnum(NF4DIR).writeString("sub", 1024);
            Bitmap4.of(FATTR4_MODE).encode(e);
            e.writeUnsignedInt(4).writeInt(0750);
        }, op(OP_SAVEFH), e -> {
            e.writeInt(OP_CREATE).writeEnum(NF4LNK).writeString("target/path", 4096).writeString("ln", 1024);
            Bitmap4.EMPTY.encode(e);
            e.writeUnsignedInt(0);
        }, op(OP_READLINK));
        assertThat(mk.status).isEqualTo(NFS4_OK);
        mk.op(OP_PUTROOTFH);
        mk.op(OP_CREATE);
        mk.in.skip(20);
        assertThat(Bitmap4.decode(mk.in)).isEqualTo(Bitmap4.of(FATTR4_MODE));
        mk.op(OP_SAVEFH);
        mk.op(OP_CREATE);
        mk.in.skip(20);
        Bitmap4.decode(mk.in);
        mk.op(OP_READLINK);
        assertThat(mk.in.readString(4096)).isEqualTo("target/path");
        assertThat(Files.getAttribute(dir.resolve("sub"), "unix:mode")).isEqualTo(040750);
        assertThat(Files.readSymbolicLink(dir.resolve("sub/ln")).toString()).isEqualTo("target/path");

        Files.writeString(dir.resolve("file"), "content");
        Reply ren = seq(putrootfh(), op(OP_SAVEFH), lookup("sub"), e -> e.writeInt(OP_RENAME)
                .writeString("file", 1024).writeString("moved", 1024));
        assertThat(ren.status).isEqualTo(NFS4_OK);
        assertThat(dir.resolve("sub/moved")).hasContent("content");

        Reply link = seq(putrootfh(), lookup("sub"), lookup("moved"), op(OP_SAVEFH), putrootfh(),
                e -> e.writeInt(OP_LINK).writeString("hard", 1024));
        assertThat(link.status).isEqualTo(NFS4_OK);
        assertThat(Files.getAttribute(dir.resolve("hard"), "unix:nlink")).isEqualTo(2);

        assertThat(seq(putrootfh(), e -> e.writeInt(OP_REMOVE).writeString("sub", 1024)).status)
                .isEqualTo(NFS4ERR_NOTEMPTY);
        Reply rm = seq(putrootfh(), lookup("sub"), e -> e.writeInt(OP_REMOVE).writeString("ln", 1024),
                e -> e.writeInt(OP_REMOVE).writeString("moved", 1024), op(OP_LOOKUPP),
                e -> e.writeInt(OP_REMOVE).writeString("sub", 1024));
        assertThat(rm.status).isEqualTo(NFS4_OK);
        assertThat(dir.resolve("sub")).doesNotExist();
        assertThat(seq(putrootfh(), e -> e.writeInt(OP_REMOVE).writeString("sub", 1024)).status)
                .isEqualTo(NFS4ERR_NOENT);
    }

    @Test
    void readdirReturnsEveryEntryOnceAcrossCalls() throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            names.add("entry-" + i);
            Files.writeString(dir.resolve("entry-" + i), "x".repeat(i));
        }
        List<String> seen = new ArrayList<>();
        long cookie = 0;
        boolean eof = false;
        int calls = 0;
        while (!eof) {
            long c = cookie;
            Reply r = seq(putrootfh(), e -> {
                e.writeInt(OP_READDIR).writeHyper(c).writeHyper(0).writeUnsignedInt(512).writeUnsignedInt(600);
                Bitmap4.of(FATTR4_SIZE, FATTR4_FILEID).encode(e);
            });
            r.op(OP_PUTROOTFH);
            assertThat(r.op(OP_READDIR)).isEqualTo(NFS4_OK);
            assertThat(r.in.readHyper()).as("cookie verifier: the snapshot's").isNotZero();
            while (r.in.readBoolean()) {
                cookie = r.in.readHyper();
                assertThat(cookie).isGreaterThan(2);
                String name = r.in.readString(255);
                assertThat(Bitmap4.decode(r.in)).isEqualTo(Bitmap4.of(FATTR4_SIZE, FATTR4_FILEID));
                assertThat(r.in.readInt()).isEqualTo(16);
                assertThat(r.in.readHyper()).isEqualTo(Files.size(dir.resolve(name)));
                r.in.readHyper();
                seen.add(name);
            }
            eof = r.in.readBoolean();
            calls++;
        }
        assertThat(calls).as("maxcount 600 needs several calls").isGreaterThan(2);
        assertThat(seen).containsExactlyInAnyOrderElementsOf(names);

        Reply tooSmall = seq(putrootfh(), e -> {
            e.writeInt(OP_READDIR).writeHyper(0).writeHyper(0).writeUnsignedInt(10).writeUnsignedInt(20);
            Bitmap4.EMPTY.encode(e);
        });
        assertThat(tooSmall.status).isEqualTo(NFS4ERR_TOOSMALL);
    }

    @Test
    void setattrAccessSecinfoAndSeek() throws Exception {
        Files.writeString(dir.resolve("f"), "0123456789");
        Stateid4 s = openFile("o", "f", OPEN4_SHARE_ACCESS_BOTH, 0);
        byte[] fh = fhOf("f");
        Reply set = seq(putfh(fh), e -> {
            e.writeInt(OP_SETATTR);
            s.encode(e);
            Bitmap4.of(FATTR4_SIZE, FATTR4_MODE).encode(e);
            e.writeUnsignedInt(12).writeHyper(4).writeInt(0600);
        });
        set.op(OP_PUTFH);
        assertThat(set.op(OP_SETATTR)).isEqualTo(NFS4_OK);
        assertThat(Bitmap4.decode(set.in)).isEqualTo(Bitmap4.of(FATTR4_SIZE, FATTR4_MODE));
        assertThat(dir.resolve("f")).hasContent("0123");

        Reply readOnlyAttr = seq(putfh(fh), e -> {
            e.writeInt(OP_SETATTR);
            Stateid4.ANONYMOUS.encode(e);
            Bitmap4.of(FATTR4_TYPE).encode(e);
            e.writeUnsignedInt(4).writeInt(NF4REG);
        });
        readOnlyAttr.op(OP_PUTFH);
        assertThat(readOnlyAttr.op(OP_SETATTR)).isEqualTo(NFS4ERR_INVAL);
        assertThat(Bitmap4.decode(readOnlyAttr.in).isEmpty()).isTrue();
        Reply acl = seq(putfh(fh), e -> {
            e.writeInt(OP_SETATTR);
            Stateid4.ANONYMOUS.encode(e);
            Bitmap4.of(FATTR4_ACL).encode(e);
            e.writeUnsignedInt(4).writeInt(0);
        });
        assertThat(acl.status).isEqualTo(NFS4ERR_ATTRNOTSUPP);
        Reply owner = seq(putfh(fh), e -> {
            e.writeInt(OP_SETATTR);
            Stateid4.ANONYMOUS.encode(e);
            Bitmap4.of(FATTR4_OWNER).encode(e);
            e.writeUnsignedInt(12).writeString("bob@x", 64);
        });
        assertThat(owner.status).isEqualTo(NFS4ERR_BADOWNER);

        Reply access = seq(putfh(fh), e -> e.writeInt(OP_ACCESS).writeInt(0xFF));
        access.op(OP_PUTFH);
        assertThat(access.op(OP_ACCESS)).isEqualTo(NFS4_OK);
        assertThat(access.in.readInt()).as("supported").isEqualTo(0x3F);
        assertThat(access.in.readInt() & (ACCESS4_READ | ACCESS4_MODIFY)).isEqualTo(ACCESS4_READ | ACCESS4_MODIFY);

        Reply sec = seq(putrootfh(), e -> e.writeInt(OP_SECINFO_NO_NAME).writeEnum(0), op(OP_GETFH));
        sec.op(OP_PUTROOTFH);
        assertThat(sec.op(OP_SECINFO_NO_NAME)).isEqualTo(NFS4_OK);
        assertThat(sec.in.readIntArray(4)).containsExactly(AUTH_SYS);
        assertThat(sec.op(OP_GETFH)).as("SECINFO_NO_NAME consumes the handle").isEqualTo(NFS4ERR_NOFILEHANDLE);

        Reply seek = h.compound(2, List.of(sequence(h.sessionId, 99, 9), putfh(fh), e -> {
            e.writeInt(OP_SEEK);
            s.encode(e);
            e.writeHyper(1).writeEnum(NFS4_CONTENT_HOLE);
        }, e -> {
            e.writeInt(OP_SEEK);
            s.encode(e);
            e.writeHyper(4).writeEnum(NFS4_CONTENT_DATA);
        }));
        assertThat(seek.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_SEQ_MISORDERED);
        Reply seek2 = h.compound(2, List.of(sequence(h.sessionId, 1, 9), putfh(fh), e -> {
            e.writeInt(OP_SEEK);
            s.encode(e);
            e.writeHyper(1).writeEnum(NFS4_CONTENT_HOLE);
        }, e -> {
            e.writeInt(OP_SEEK);
            s.encode(e);
            e.writeHyper(4).writeEnum(NFS4_CONTENT_DATA);
        }));
        seek2.op(OP_SEQUENCE);
        seek2.skipSequence();
        seek2.op(OP_PUTFH);
        assertThat(seek2.op(OP_SEEK)).isEqualTo(NFS4_OK);
        assertThat(seek2.in.readBoolean()).isTrue();
        assertThat(seek2.in.readHyper()).as("the hole at the end").isEqualTo(4);
        assertThat(seek2.op(OP_SEEK)).as("at the end").isEqualTo(NFS4ERR_NXIO);
    }
}
