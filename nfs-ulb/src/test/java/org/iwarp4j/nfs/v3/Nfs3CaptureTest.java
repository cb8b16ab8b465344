package org.iwarp4j.nfs.v3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.iwarp4j.nfs.binding.LegacyNfsBinding;
import org.iwarp4j.nfs.binding.ReplySizeLimits;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.iwarp4j.testkit.SharedFiles;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Known answers from Linux: every NFSv3 call and reply that Linux's xprtrdma client and svcrdma
 * server exchanged in shared/pcaps/nfs3-rdma-siw.pcap (kernel 6.1, RPC-over-RDMA over siw) decodes
 * with our decoders, to exactly its end, and re-encodes to the same octets. Field values are those
 * tshark 4.0 shows for the same frames (frame numbers in the comments).
 */
class Nfs3CaptureTest {

    private static List<CapturedRpc> messages;
    private static final Map<Integer, Integer> PROCEDURE_BY_XID = new HashMap<>();
    private static final Map<Integer, CapturedRpc> CALL_BY_XID = new HashMap<>();

    @BeforeAll
    static void readCapture() throws Exception {
        messages = CapturedRpc.read(SharedFiles.pcap("nfs3-rdma-siw.pcap"));
        for (CapturedRpc m : messages) {
            if (m.fromClient() && m.rpc().length >= 24 && m.isCall() && m.callProcedure()[0] == Nfs3Constants.PROGRAM) {
                PROCEDURE_BY_XID.put(m.xid(), m.callProcedure()[2]);
                CALL_BY_XID.put(m.xid(), m);
            }
        }
    }

    private static List<CapturedRpc> calls() {
        return messages.stream().filter(m -> CALL_BY_XID.get(m.xid()) == m).toList();
    }

    private static List<CapturedRpc> replies() {
        return messages.stream().filter(m -> !m.fromClient() && m.proc() == 0 && PROCEDURE_BY_XID.containsKey(m.xid()))
                .toList();
    }

    private static CapturedRpc reply(int xid) {
        return messages.stream().filter(m -> !m.fromClient() && m.proc() == 0 && m.xid() == xid).findFirst()
                .orElseThrow();
    }

    @Test
    void captureHoldsTheNfsTraffic() {
        assertThat(calls()).hasSizeGreaterThanOrEqualTo(25);
        assertThat(replies()).hasSizeGreaterThanOrEqualTo(20);
        assertThat(PROCEDURE_BY_XID.values()).contains(0, 1, 2, 3, 4, 6, 7, 8, 17, 19, 20);
    }

    /** Every call's arguments: decoded to their end, re-encoded to the same (reduced) stream. */
    @Test
    void everyCallRoundTrips() {
        for (CapturedRpc call : calls()) {
            int procedure = call.callProcedure()[2];
            ByteBuf body = call.body();
            try {
                byte[] original = ByteBufUtil.getBytes(body);
                XdrMessage encoded = reencodeArgs(procedure, body);
                assertThat(body.isReadable()).as("xid %08x proc %d fully decoded", call.xid(), procedure).isFalse();
                try {
                    assertThat(reducedStream(encoded)).as("xid %08x proc %d", call.xid(), procedure).isEqualTo(original);
                } finally {
                    encoded.release();
                }
            } finally {
                body.release();
            }
        }
    }

    /** Every reply's results: decoded to their end, re-encoded to the same octets. */
    @Test
    void everyReplyRoundTrips() {
        for (CapturedRpc reply : replies()) {
            int procedure = PROCEDURE_BY_XID.get(reply.xid());
            assertThat(reply.acceptStat()).isZero();
            ByteBuf body = reply.body();
            try {
                byte[] original = ByteBufUtil.getBytes(body);
                XdrMessage encoded = reencodeResults(procedure, body);
                assertThat(body.isReadable()).as("xid %08x proc %d fully decoded", reply.xid(), procedure).isFalse();
                try {
                    assertThat(reducedStream(encoded)).as("xid %08x proc %d", reply.xid(), procedure).isEqualTo(original);
                } finally {
                    encoded.release();
                }
                // ULB-R-001: Linux's reply never exceeds the binding's estimate for the call.
                long count = countArgument(procedure, CALL_BY_XID.get(reply.xid()));
                assertThat((long) original.length).isLessThanOrEqualTo(LegacyNfsBinding.NFS_V3.procedure(procedure)
                        .orElseThrow().maxResultOctets(count, ReplySizeLimits.defaults()));
            } finally {
                body.release();
            }
        }
    }

    /** Frame 11: FSINFO reply of Linux nfsd. */
    @Test
    void fsinfoReply() {
        Fsinfo3Res r = decodeReply(0x88a9cb9c, Fsinfo3Res::decode);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.objAttributes()).isNull();
        assertThat(List.of(r.rtmax(), r.rtpref(), r.rtmult(), r.wtmax(), r.wtpref(), r.wtmult(), r.dtpref()))
                .containsExactly(262144L, 262144L, 4096L, 262144L, 262144L, 4096L, 262144L);
        assertThat(r.maxfilesize()).isEqualTo(17592186040320L);
        assertThat(r.timeDelta()).isEqualTo(new NfsTime3(1, 0));
        assertThat(r.properties()).isEqualTo(Nfs3Constants.FSF3_CANSETTIME | Nfs3Constants.FSF3_HOMOGENEOUS
                | Nfs3Constants.FSF3_SYMLINK | Nfs3Constants.FSF3_LINK);
    }

    /** Frame 13: PATHCONF reply. */
    @Test
    void pathconfReply() {
        Pathconf3Res r = decodeReply(0x89a9cb9c, Pathconf3Res::decode);
        assertThat(r).isEqualTo(new Pathconf3Res(Nfs3Status.NFS3_OK, null, 32000, 255, false, true, false, true));
    }

    /** Frame 15: GETATTR reply for the export's root directory. */
    @Test
    void getattrReply() {
        Getattr3Res r = decodeReply(0x8aa9cb9c, Getattr3Res::decode);
        assertThat(r.objAttributes()).isEqualTo(exportRoot(new NfsTime3(1795314460, 0)));
    }

    /** Frames 26, 27: LOOKUP of test-nfs3.bin before it exists -> NFS3ERR_NOENT with the directory's attributes. */
    @Test
    void lookupNoent() {
        DirOpArgs3 what = decodeCall(0x8fa9cb9c, DirOpArgs3::decode);
        assertThat(what.name()).isEqualTo("test-nfs3.bin");
        assertThat(what.dir()).isEqualTo(ROOT_FH);
        Lookup3Res r = decodeReply(0x8fa9cb9c, Lookup3Res::decode);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
        assertThat(r.object()).isNull();
        assertThat(r.dirAttributes()).isEqualTo(exportRoot(new NfsTime3(1795314460, 0)));
    }

    /**
     * Frames 32, 33: CREATE EXCLUSIVE. Linux nfsd keeps the verifier in the new file's mtime and
     * atime: each 4-octet half read as a little-endian word, masked to 31 bits.
     */
    @Test
    void createExclusive() {
        Create3Args args = decodeCall(0x91a9cb9c, Create3Args::decode);
        assertThat(args.mode()).isEqualTo(CreateMode3.EXCLUSIVE);
        assertThat(args.where()).isEqualTo(new DirOpArgs3(ROOT_FH, "test-nfs3.bin"));
        Create3Res r = decodeReply(0x91a9cb9c, Create3Res::decode);
        assertThat(r.obj()).isEqualTo(FILE_FH);
        assertThat(r.objAttributes().type()).isEqualTo(Ftype3.NF3REG);
        assertThat(r.objAttributes().fileid()).isEqualTo(8819);
        assertThat(r.objAttributes().atime()).isEqualTo(new NfsTime3(922812416, 0));
        assertThat(r.objAttributes().mtime()).isEqualTo(new NfsTime3(537264127, 0));
        assertThat(Integer.reverseBytes((int) (args.verf() >>> 32)) & 0x7fffffff).isEqualTo(537264127);
        assertThat(Integer.reverseBytes((int) args.verf()) & 0x7fffffff).isEqualTo(922812416);
        assertThat(r.dirWcc().before()).isEqualTo(new WccAttr(4096, new NfsTime3(1795314460, 0),
                new NfsTime3(1795314714, 584000000)));
        assertThat(r.dirWcc().after().mtime()).isEqualTo(new NfsTime3(1795314718, 336000000));
    }

    /** Frames 34, 35: SETATTR mode 0644, atime and mtime to server time, no guard. */
    @Test
    void setattr() {
        Setattr3Args args = decodeCall(0x92a9cb9c, Setattr3Args::decode);
        assertThat(args).isEqualTo(new Setattr3Args(FILE_FH, new Sattr3(0644, null, null, null,
                SetTime3.SERVER_TIME, SetTime3.SERVER_TIME), null));
        WccRes3 r = decodeReply(0x92a9cb9c, WccRes3::decode);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.wcc().after().mode()).isEqualTo(0644);
    }

    /**
     * The WRITE calls: UNSTABLE 262144 + 45056 octets, data moved to a Read chunk at Position 132
     * (RPC-R-017, RPC-R-021, RPC-R-022): our encoder puts the data at that same Position.
     */
    @Test
    void writeCallsMoveTheirDataToAReadChunkAtTheDataPosition() {
        List<CapturedRpc> writes = calls().stream().filter(c -> c.callProcedure()[2] == Nfs3Constants.NFSPROC3_WRITE)
                .toList();
        assertThat(writes).hasSize(2);
        long total = 0;
        for (CapturedRpc call : writes) {
            assertThat(call.readChunkPositions()).containsOnly(132);
            ByteBuf body = call.body();
            int header = call.rpc().length - body.readableBytes();
            long count = body.getUnsignedInt(body.readerIndex() + 4 + 36 + 8);
            Write3Args args = Write3Args.decode(new XdrDecoder(body, List.of(Unpooled.buffer().writeZero((int) count))),
                    1 << 20);
            try {
                assertThat(args.file()).isEqualTo(FILE_FH);
                assertThat(args.stable()).isEqualTo(StableHow.UNSTABLE);
                total += args.count();
                XdrEncoder out = XdrEncoder.create();
                args.encode(out);
                XdrMessage encoded = out.toMessage();
                try {
                    int piece = indexOfDdpPiece(encoded);
                    assertThat(header + encoded.position(piece)).isEqualTo(132);
                } finally {
                    encoded.release();
                }
            } finally {
                body.release();
            }
        }
        assertThat(total).isEqualTo(300 * 1024);
        Write3Res r = decodeReply(writes.get(0).xid(), Write3Res::decode);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.committed()).isEqualTo(StableHow.UNSTABLE);
    }

    /**
     * Frame 57: the COMMIT reply carries the same verifier as the WRITE replies (the call, frame
     * 56, is in the part of the client's stream the capture lost).
     */
    @Test
    void commitCarriesTheWriteVerifier() {
        Commit3Res commit = decodeReply(0x95a9cb9c, Commit3Res::decode);
        Write3Res write = decodeReply(0x93a9cb9c, Write3Res::decode);
        assertThat(commit.verf()).isEqualTo(write.verf());
        assertThat(commit.fileWcc().after().size()).isEqualTo(307200);
    }

    /** Frame 91: READ of 262144 octets with a Write chunk of exactly that size (ULB-R-001, RPC-R-027). */
    @Test
    void readCallsProvideAWriteChunkOfTheirCount() {
        List<CapturedRpc> reads = calls().stream().filter(c -> c.callProcedure()[2] == Nfs3Constants.NFSPROC3_READ)
                .toList();
        assertThat(reads).hasSize(2);
        for (CapturedRpc call : reads) {
            ByteBuf body = call.body();
            try {
                Read3Args args = Read3Args.decode(new XdrDecoder(body));
                assertThat(call.writeChunkLengths()).containsExactly(args.count());
                assertThat(LegacyNfsBinding.NFS_V3.procedure(6).orElseThrow()
                        .writeChunkOctets(args.count(), ReplySizeLimits.defaults())).isEqualTo(args.count());
            } finally {
                body.release();
            }
        }
        assertThat(decodeCall(0x3910e50f, Read3Args::decode)).isEqualTo(new Read3Args(FILE_FH, 0, 262144));
        assertThat(decodeCall(0x3a10e50f, Read3Args::decode)).isEqualTo(new Read3Args(FILE_FH, 262144, 45056));
    }

    /** Frame 148: READDIRPLUS with dircount = maxcount = 65536 comes with a Reply chunk (ULB-R-001, RPC-R-054). */
    @Test
    void readdirplusCallProvidesAReplyChunk() {
        assertThat(decodeCall(0x3d10e50f, Readdirplus3Args::decode))
                .isEqualTo(new Readdirplus3Args(ROOT_FH, 0, 0, 65536, 65536));
        assertThat(CALL_BY_XID.get(0x3d10e50f).replyChunk()).isTrue();
    }

    private static final NfsFh3 ROOT_FH = new NfsFh3(HexFormat.of().parseHex(
            "01000700540100000000000072140d64402e4a049bad5af3cfd545ca"));
    private static final NfsFh3 FILE_FH = new NfsFh3(HexFormat.of().parseHex(
            "01000701540100000000000072140d64402e4a049bad5af3cfd545ca7322000083ed17db"));

    private static Fattr3 exportRoot(NfsTime3 mtime) {
        return new Fattr3(Ftype3.NF3DIR, 0777, 2, 0, 0, 4096, 4096, SpecData3.NONE, 0xce0ffb8f9757b9e9L, 340,
                new NfsTime3(1795314460, 0), mtime, new NfsTime3(1795314714, 584000000));
    }

    private static <T> T decodeCall(int xid, Function<XdrDecoder, T> decoder) {
        ByteBuf body = CALL_BY_XID.get(xid).body();
        try {
            XdrDecoder in = new XdrDecoder(body);
            T value = decoder.apply(in);
            assertThat(in.isEmpty()).isTrue();
            return value;
        } finally {
            body.release();
        }
    }

    private static <T> T decodeReply(int xid, Function<XdrDecoder, T> decoder) {
        ByteBuf body = reply(xid).body();
        try {
            XdrDecoder in = new XdrDecoder(body);
            T value = decoder.apply(in);
            assertThat(in.isEmpty()).isTrue();
            return value;
        } finally {
            body.release();
        }
    }

    private static int indexOfDdpPiece(XdrMessage m) {
        for (int i = 0; i < m.pieces().size(); i++) {
            if (m.pieces().get(i).ddpEligible()) {
                return i;
            }
        }
        throw new AssertionError("no DDP-eligible piece");
    }

    /** The stream without DDP-eligible pieces and their padding, as RPC-over-RDMA sends it when they are reduced. */
    private static byte[] reducedStream(XdrMessage m) {
        ByteBuf out = Unpooled.buffer();
        for (XdrPiece piece : m.pieces()) {
            if (!piece.ddpEligible()) {
                out.writeBytes(piece.data(), piece.data().readerIndex(), piece.data().readableBytes());
            }
        }
        return ByteBufUtil.getBytes(out);
    }

    private static long countArgument(int procedure, CapturedRpc call) {
        ByteBuf body = call.body();
        try {
            XdrDecoder in = new XdrDecoder(body);
            return switch (procedure) {
                case Nfs3Constants.NFSPROC3_READ -> Read3Args.decode(in).count();
                case Nfs3Constants.NFSPROC3_READDIR -> Readdir3Args.decode(in).count();
                case Nfs3Constants.NFSPROC3_READDIRPLUS -> Readdirplus3Args.decode(in).maxcount();
                default -> 0;
            };
        } finally {
            body.release();
        }
    }

    /** Decodes a call's arguments (a reduced WRITE gets zero-filled data of its count) and encodes them again. */
    private static XdrMessage reencodeArgs(int procedure, ByteBuf body) {
        XdrDecoder in = new XdrDecoder(body);
        XdrEncoder out = XdrEncoder.create();
        switch (procedure) {
            case 0 -> { }
            case 1, 5, 18, 19, 20 -> NfsFh3.decode(in).encode(out);
            case 2 -> Setattr3Args.decode(in).encode(out);
            case 3, 12, 13 -> DirOpArgs3.decode(in).encode(out);
            case 4 -> Access3Args.decode(in).encode(out);
            case 6 -> Read3Args.decode(in).encode(out);
            case 7 -> {
                long count = body.getUnsignedInt(body.readerIndex() + 4 + body.getInt(body.readerIndex()) + 8);
                Write3Args.decode(new XdrDecoder(body, List.of(Unpooled.buffer().writeZero((int) count))), 1 << 20)
                        .encode(out);
            }
            case 8 -> Create3Args.decode(in).encode(out);
            case 9 -> Mkdir3Args.decode(in).encode(out);
            case 10 -> Symlink3Args.decode(in).encode(out);
            case 14 -> Rename3Args.decode(in).encode(out);
            case 15 -> Link3Args.decode(in).encode(out);
            case 16 -> Readdir3Args.decode(in).encode(out);
            case 17 -> Readdirplus3Args.decode(in).encode(out);
            case 21 -> Commit3Args.decode(in).encode(out);
            default -> throw new AssertionError("procedure " + procedure);
        }
        return out.toMessage();
    }

    private static XdrMessage reencodeResults(int procedure, ByteBuf body) {
        XdrDecoder in = new XdrDecoder(body);
        XdrEncoder out = XdrEncoder.create();
        switch (procedure) {
            case 0 -> { }
            case 1 -> Getattr3Res.decode(in).encode(out);
            case 2, 12, 13 -> WccRes3.decode(in).encode(out);
            case 3 -> Lookup3Res.decode(in).encode(out);
            case 4 -> Access3Res.decode(in).encode(out);
            case 5 -> Readlink3Res.decode(in).encode(out);
            case 7 -> Write3Res.decode(in).encode(out);
            case 8, 9, 10, 11 -> Create3Res.decode(in).encode(out);
            case 14 -> Rename3Res.decode(in).encode(out);
            case 15 -> Link3Res.decode(in).encode(out);
            case 16 -> Readdir3Res.decode(in).encode(out);
            case 17 -> Readdirplus3Res.decode(in).encode(out);
            case 18 -> Fsstat3Res.decode(in).encode(out);
            case 19 -> Fsinfo3Res.decode(in).encode(out);
            case 20 -> Pathconf3Res.decode(in).encode(out);
            case 21 -> Commit3Res.decode(in).encode(out);
            default -> throw new AssertionError("procedure " + procedure);
        }
        return out.toMessage();
    }
}
