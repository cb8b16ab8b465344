package org.iwarp4j.nfs.fuzz;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.iwarp4j.nfs.mount.ExportNode;
import org.iwarp4j.nfs.mount.MountBody;
import org.iwarp4j.nfs.mount.MountStat3;
import org.iwarp4j.nfs.mount.Mountres3;
import org.iwarp4j.nfs.v3.Access3Res;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.Entry3;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Fsinfo3Res;
import org.iwarp4j.nfs.v3.Fsstat3Res;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Getattr3Res;
import org.iwarp4j.nfs.v3.Link3Res;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.NfsTime3;
import org.iwarp4j.nfs.v3.Pathconf3Res;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.Readdir3Res;
import org.iwarp4j.nfs.v3.Readdirplus3Res;
import org.iwarp4j.nfs.v3.Readlink3Res;
import org.iwarp4j.nfs.v3.Rename3Res;
import org.iwarp4j.nfs.v3.SpecData3;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.WccData;
import org.iwarp4j.nfs.v3.WccRes3;
import org.iwarp4j.nfs.v3.Write3Res;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader.Accepted;
import org.iwarp4j.testkit.FuzzSeeds;
import org.junit.jupiter.api.Test;

/**
 * The {@code enc-*} seeds of {@link Nfs3ResultsFuzzTarget} (a result of every NFSv3 and MOUNT
 * procedure, written by the server's encoders, with failures and reduced READ and READLINK), of
 * {@link Nfs4CompoundReplyFuzzTarget} (COMPOUND replies the NFSv4.2 capture lacks, written with the
 * XDR encoder) and of {@link Nfs4CallbackReplyFuzzTarget} (replies to the back channel probe).
 * Fails if the committed files are not what the encoders write now ({@link FuzzSeeds}).
 */
class NfsClientReplySeedsTest {

    private static final NfsTime3 TIME = new NfsTime3(1_700_000_000L, 5);
    private static final Fattr3 ATTR = new Fattr3(Ftype3.NF3REG, 0644, 1, 1000, 1000, 4, 4096, SpecData3.NONE, 4049,
            42, TIME, TIME, TIME);
    private static final NfsFh3 FH = new NfsFh3(new byte[] {1, 0, 1, 0, 0x0f, (byte) 0xd1, 0, 42});
    private static final WccData WCC = new WccData(ATTR.toWccAttr(), ATTR);
    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);
    private static final int REDUCED = 0x40;

    @Test
    void theEncoderMadeSeedsAreCurrent() {
        FuzzSeeds.check(Nfs3ResultsFuzzTarget.class, nfs3());
        FuzzSeeds.check(Nfs4CompoundReplyFuzzTarget.class, nfs4());
        FuzzSeeds.check(Nfs4CallbackReplyFuzzTarget.class, callback());
    }

    // ---- NFSv3 and MOUNT: octet 0 the procedure, then the results ----

    private static Map<String, byte[]> nfs3() {
        Map<String, byte[]> seeds = new TreeMap<>();
        seeds.put("null", new byte[] {0});
        seeds.put("getattr", v3(1, new Getattr3Res(Nfs3Status.NFS3_OK, ATTR)::encode));
        seeds.put("getattr-stale", v3(1, Getattr3Res.fail(Nfs3Status.NFS3ERR_STALE)::encode));
        seeds.put("setattr", v3(2, new WccRes3(Nfs3Status.NFS3_OK, WCC)::encode));
        seeds.put("lookup", v3(3, new Lookup3Res(Nfs3Status.NFS3_OK, FH, ATTR, ATTR)::encode));
        seeds.put("lookup-noent", v3(3, Lookup3Res.fail(Nfs3Status.NFS3ERR_NOENT, ATTR)::encode));
        seeds.put("access", v3(4, new Access3Res(Nfs3Status.NFS3_OK, ATTR, 0x3f)::encode));
        seeds.put("readlink", v3(5, new Readlink3Res(Nfs3Status.NFS3_OK, ATTR, "target")::encode));
        seeds.put("readlink-reduced", reduced(5, out -> {
            out.writeEnum(Nfs3Status.NFS3_OK.value());
            Fattr3.encodePostOpAttr(out, ATTR);
        }));
        seeds.put("read", v3(6, new Read3Res(Nfs3Status.NFS3_OK, ATTR, DATA.length, true,
                Unpooled.wrappedBuffer(DATA))::encode));
        seeds.put("read-reduced", reduced(6, out -> {
            out.writeEnum(Nfs3Status.NFS3_OK.value());
            Fattr3.encodePostOpAttr(out, ATTR);
            out.writeUnsignedInt(DATA.length).writeBoolean(true);
        }));
        seeds.put("read-io", v3(6, Read3Res.fail(Nfs3Status.NFS3ERR_IO, null)::encode));
        seeds.put("write", v3(7, new Write3Res(Nfs3Status.NFS3_OK, WCC, 4, StableHow.UNSTABLE, 0x0102030405060708L)::encode));
        seeds.put("write-nospc", v3(7, Write3Res.fail(Nfs3Status.NFS3ERR_NOSPC, WCC)::encode));
        seeds.put("create", v3(8, new Create3Res(Nfs3Status.NFS3_OK, FH, ATTR, WCC)::encode));
        seeds.put("mkdir", v3(9, new Create3Res(Nfs3Status.NFS3_OK, FH, null, WCC)::encode));
        seeds.put("symlink", v3(10, new Create3Res(Nfs3Status.NFS3_OK, null, null, WccData.EMPTY)::encode));
        seeds.put("mknod-exist", v3(11, Create3Res.fail(Nfs3Status.NFS3ERR_EXIST, WCC)::encode));
        seeds.put("remove", v3(12, new WccRes3(Nfs3Status.NFS3_OK, new WccData(null, ATTR))::encode));
        seeds.put("rmdir-notempty", v3(13, new WccRes3(Nfs3Status.NFS3ERR_NOTEMPTY, WccData.EMPTY)::encode));
        seeds.put("rename", v3(14, new Rename3Res(Nfs3Status.NFS3_OK, WCC, WCC)::encode));
        seeds.put("link", v3(15, new Link3Res(Nfs3Status.NFS3_OK, ATTR, WCC)::encode));
        seeds.put("readdir", v3(16, new Readdir3Res(Nfs3Status.NFS3_OK, ATTR, 7, List.of(new Entry3(1, ".", 1),
                new Entry3(42, "file", 2)), true)::encode));
        seeds.put("readdirplus", v3(17, new Readdirplus3Res(Nfs3Status.NFS3_OK, ATTR, 7, List.of(
                new EntryPlus3(42, "file", 2, ATTR, FH), new EntryPlus3(43, "dir", 3, null, null)), false)::encode));
        seeds.put("fsstat", v3(18, new Fsstat3Res(Nfs3Status.NFS3_OK, ATTR, 1L << 30, 1L << 29, 1L << 29, 1000, 900, 900,
                0)::encode));
        seeds.put("fsinfo", v3(19, new Fsinfo3Res(Nfs3Status.NFS3_OK, ATTR, 1 << 20, 1 << 20, 4096, 1 << 20, 1 << 20, 4096,
                8192, Long.MAX_VALUE, new NfsTime3(0, 1), 0x1b)::encode));
        seeds.put("pathconf", v3(20, new Pathconf3Res(Nfs3Status.NFS3_OK, ATTR, 255, 255, true, true, false, true)::encode));
        seeds.put("commit", v3(21, new Commit3Res(Nfs3Status.NFS3_OK, WCC, 0x0102030405060708L)::encode));
        seeds.put("mount-null", new byte[] {32});
        seeds.put("mount-mnt", v3(33, new Mountres3(MountStat3.MNT3_OK, FH, List.of(1, 0))::encode));
        seeds.put("mount-mnt-acces", v3(33, Mountres3.fail(MountStat3.MNT3ERR_ACCES)::encode));
        seeds.put("mount-dump", v3(34, out -> MountBody.encodeList(out, List.of(new MountBody("client", "/export")))));
        seeds.put("mount-umnt", new byte[] {35});
        seeds.put("mount-umntall", new byte[] {36});
        seeds.put("mount-export", v3(37, out -> ExportNode.encodeList(out, List.of(new ExportNode("/export",
                List.of("192.0.2.0/24", "*")), new ExportNode("/other", List.of())))));
        return seeds;
    }

    private static byte[] v3(int selector, Consumer<XdrEncoder> results) {
        return concat(new byte[] {(byte) selector}, XdrRoundTrip.octets(results));
    }

    /** READ's data or READLINK's path ({@link #DATA}) as the reduced item after the reduced stream. */
    private static byte[] reduced(int selector, Consumer<XdrEncoder> before) {
        byte[] stream = XdrRoundTrip.octets(out -> {
            before.accept(out);
            out.writeUnsignedInt(DATA.length); // the length word stays in the stream (RFC 8166 §3.4.6.1)
        });
        return concat(new byte[] {(byte) (REDUCED | selector), 0, (byte) DATA.length}, stream, DATA);
    }

    // ---- NFSv4: octet 0 the operation count - 1 and flags, the opcodes, then COMPOUND4res ----

    private static Map<String, byte[]> nfs4() {
        Map<String, byte[]> seeds = new TreeMap<>();
        seeds.put("readlink", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_READLINK), NFS4_OK, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            out.writeInt(OP_READLINK).writeInt(NFS4_OK).writeString("target", 4096);
        }));
        seeds.put("remove", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_REMOVE), NFS4_OK, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            out.writeInt(OP_REMOVE).writeInt(NFS4_OK).writeBoolean(true).writeHyper(1).writeHyper(2); // change_info4
        }));
        seeds.put("lookup-noent", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_LOOKUP, OP_GETFH), NFS4ERR_NOENT, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            out.writeInt(OP_LOOKUP).writeInt(NFS4ERR_NOENT);
        }));
        seeds.put("open-write-delegation", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_OPEN, OP_GETFH, OP_GETATTR), NFS4_OK,
                5, out -> {
                    sequence(out, 15, 15, 0);
                    out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
                    openHead(out);
                    out.writeEnum(2); // OPEN_DELEGATE_WRITE
                    stateid(out, 2);
                    out.writeBoolean(false).writeEnum(1).writeHyper(1L << 20); // recall, NFS_LIMIT_SIZE
                    out.writeInt(0).writeInt(0).writeInt(0).writeString("EVERYONE@", 1024); // nfsace4
                    out.writeInt(OP_GETFH).writeInt(NFS4_OK).writeOpaque(FH.data(), 128);
                    out.writeInt(OP_GETATTR).writeInt(NFS4_OK);
                    fattr(out);
                }));
        seeds.put("open-no-delegation-contention", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_OPEN), NFS4_OK, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            openHead(out);
            out.writeEnum(OPEN_DELEGATE_NONE_EXT).writeEnum(WND4_CONTENTION).writeBoolean(false);
        }));
        seeds.put("ok-short-of-results", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_GETATTR), NFS4_OK, 2, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
        }));
        seeds.put("delay-with-results-ok", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_GETATTR), NFS4ERR_DELAY, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            out.writeInt(OP_GETATTR).writeInt(NFS4_OK);
            fattr(out);
        }));
        seeds.put("illegal", v4(0, ops(OP_SEQUENCE, OP_PUTFH), NFS4ERR_OP_ILLEGAL, 2, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_ILLEGAL).writeInt(NFS4ERR_OP_ILLEGAL);
        }));
        seeds.put("read", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_READ), NFS4_OK, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            out.writeInt(OP_READ).writeInt(NFS4_OK).writeBoolean(true).writeOpaque(DATA, 64);
        }));
        byte[] readReduced = v4(REDUCED, ops(OP_SEQUENCE, OP_PUTFH, OP_READ), NFS4_OK, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            out.writeInt(OP_READ).writeInt(NFS4_OK).writeBoolean(true).writeUnsignedInt(DATA.length);
        });
        // The reduced item's length goes right after the opcodes, the item after the stream.
        seeds.put("read-reduced", concat(java.util.Arrays.copyOf(readReduced, 4), new byte[] {0, (byte) DATA.length},
                java.util.Arrays.copyOfRange(readReduced, 4, readReduced.length), DATA));
        seeds.put("write", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_WRITE), NFS4_OK, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            out.writeInt(OP_WRITE).writeInt(NFS4_OK).writeUnsignedInt(4).writeEnum(UNSTABLE4).writeHyper(7);
        }));
        seeds.put("readdir", v4(0, ops(OP_SEQUENCE, OP_PUTFH, OP_READDIR), NFS4_OK, 3, out -> {
            sequence(out, 15, 15, 0);
            out.writeInt(OP_PUTFH).writeInt(NFS4_OK);
            out.writeInt(OP_READDIR).writeInt(NFS4_OK).writeHyper(9);
            for (String name : new String[] {"a", "file"}) {
                out.writeBoolean(true).writeHyper(name.length()).writeString(name, 1024);
                fattr(out);
            }
            out.writeBoolean(false).writeBoolean(true);
        }));
        seeds.put("exchange-id-impl-id", v4(0, ops(OP_EXCHANGE_ID), NFS4_OK, 1, out -> {
            out.writeInt(OP_EXCHANGE_ID).writeInt(NFS4_OK).writeHyper(0x1122334455667788L).writeInt(1).writeInt(0)
                    .writeEnum(SP4_NONE).writeHyper(0).writeOpaque("server".getBytes(StandardCharsets.US_ASCII), 1024)
                    .writeOpaque("scope".getBytes(StandardCharsets.US_ASCII), 1024).writeUnsignedInt(1)
                    .writeOpaque("example.org".getBytes(StandardCharsets.US_ASCII), 1024)
                    .writeOpaque("iwarp4j".getBytes(StandardCharsets.US_ASCII), 1024).writeHyper(0).writeInt(0);
        }));
        seeds.put("sequence-revoked-fewer-slots", v4(0, ops(OP_SEQUENCE), NFS4_OK, 1,
                out -> sequence(out, 0, -1, 0x008)));
        return seeds;
    }

    // ---- the back channel: the client's reply to CB_COMPOUND (CB_SEQUENCE), from the xid on ----

    private static Map<String, byte[]> callback() {
        Map<String, byte[]> seeds = new TreeMap<>();
        seeds.put("ok", cbReply(NFS4_OK, 1, out -> {
            out.writeInt(OP_CB_SEQUENCE).writeInt(NFS4_OK).writeFixedOpaque(new byte[NFS4_SESSIONID_SIZE]).writeInt(1)
                    .writeInt(0).writeInt(0).writeInt(0);
        }));
        seeds.put("delay", cbReply(NFS4ERR_DELAY, 1, out -> out.writeInt(OP_CB_SEQUENCE).writeInt(NFS4ERR_DELAY)));
        seeds.put("other-operation", cbReply(NFS4_OK, 1, out -> out.writeInt(OP_CB_RECALL).writeInt(NFS4_OK)));
        seeds.put("no-results", cbReply(NFS4ERR_BADXDR, 0, out -> { }));
        seeds.put("cut-short", cbReply(NFS4_OK, 1, out -> out.writeInt(OP_CB_SEQUENCE)));
        seeds.put("prog-unavail", XdrRoundTrip.octets(new Accepted(0, OpaqueAuth.NONE, AcceptStat.PROG_UNAVAIL, 0, 0)::encode));
        return seeds;
    }

    private static byte[] cbReply(int status, int results, Consumer<XdrEncoder> body) {
        return XdrRoundTrip.octets(out -> {
            Accepted.success(0, OpaqueAuth.NONE).encode(out);
            out.writeInt(status).writeString("", 1024).writeUnsignedInt(results);
            body.accept(out);
        });
    }

    private static int[] ops(int... opcodes) {
        return opcodes;
    }

    private static byte[] v4(int flags, int[] opcodes, int status, int results, Consumer<XdrEncoder> body) {
        byte[] head = new byte[1 + opcodes.length];
        head[0] = (byte) (flags | (opcodes.length - 1));
        for (int i = 0; i < opcodes.length; i++) {
            head[1 + i] = (byte) opcodes[i];
        }
        return concat(head, XdrRoundTrip.octets(out -> {
            out.writeInt(status).writeString("", 1024).writeUnsignedInt(results);
            body.accept(out);
        }));
    }

    private static void sequence(XdrEncoder out, int highest, int target, int flags) {
        out.writeInt(OP_SEQUENCE).writeInt(NFS4_OK).writeFixedOpaque(new byte[NFS4_SESSIONID_SIZE]).writeInt(1)
                .writeInt(0).writeInt(highest).writeInt(target).writeInt(flags);
    }

    private static void stateid(XdrEncoder out, int seqid) {
        out.writeInt(seqid).writeFixedOpaque(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    }

    /** OPEN4resok up to the delegation: stateid, change_info4, rflags, attrset. */
    private static void openHead(XdrEncoder out) {
        out.writeInt(OP_OPEN).writeInt(NFS4_OK);
        stateid(out, 1);
        out.writeBoolean(true).writeHyper(1).writeHyper(2).writeInt(OPEN4_RESULT_LOCKTYPE_POSIX);
        Bitmap4.EMPTY.encode(out);
    }

    /** An fattr4 of type, size and mode. */
    private static void fattr(XdrEncoder out) {
        Bitmap4.of(FATTR4_TYPE, FATTR4_SIZE, FATTR4_MODE).encode(out);
        out.writeOpaque(XdrRoundTrip.octets(v -> v.writeInt(NF4REG).writeHyper(4).writeInt(0644)), 1024);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
