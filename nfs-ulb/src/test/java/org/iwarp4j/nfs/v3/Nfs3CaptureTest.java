package org.iwarp4j.nfs.v3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Known answers from Linux: every NFSv3 call and reply that Linux's xprtrdma client and svcrdma
 * server exchanged in testdata/captures/nfs3-rdma-siw.pcap (kernel 6.1, RPC-over-RDMA over siw;
 * the capture is complete) decodes with our decoders, to exactly its end, and re-encodes to the
 * same octets; the data the WRITEs' Read chunks and the READs' Write chunks moved by RDMA is the
 * file that was copied, {@code seq -f 'iwarp4j capture line %08g' 1 10240} (307200 octets).
 * Field values are those tshark 4.0 shows for the same frames (frame numbers in the comments).
 */
class Nfs3CaptureTest {

    private static List<CapturedRpc> messages;
    private static final Map<Integer, Integer> PROCEDURE_BY_XID = new HashMap<>();
    private static final Map<Integer, CapturedRpc> CALL_BY_XID = new HashMap<>();

    @BeforeAll
    static void readCapture() throws Exception {
        messages = CapturedRpc.read(TestData.capture("nfs3-rdma-siw.pcap"));
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

    /** Replies in the Send (RDMA_MSG) or, for RDMA_NOMSG, in the Reply chunk. */
    private static boolean isReply(CapturedRpc m) {
        return !m.fromClient() && (m.proc() == 0 || m.proc() == 1 && m.rpc().length > 0);
    }

    private static List<CapturedRpc> replies() {
        return messages.stream().filter(m -> isReply(m) && PROCEDURE_BY_XID.containsKey(m.xid())).toList();
    }

    private static CapturedRpc reply(int xid) {
        return messages.stream().filter(m -> isReply(m) && m.xid() == xid).findFirst().orElseThrow();
    }

    /** The file the capture's client copied to the server and read back. */
    private static byte[] copiedFile(long offset, long count) {
        StringBuilder s = new StringBuilder();
        for (int line = 1; line <= 10240; line++) {
            s.append(String.format("iwarp4j capture line %08d", line)).append('\n');
        }
        return Arrays.copyOfRange(s.toString().getBytes(StandardCharsets.US_ASCII), (int) offset, (int) (offset + count));
    }

    @Test
    void captureHoldsTheNfsTraffic() {
        // 26 NFS calls (the other 5 are NFSACL's), each answered: 25 in a Send, READDIRPLUS's in its Reply chunk.
        assertThat(calls()).hasSize(26);
        assertThat(replies()).hasSize(26);
        assertThat(replies()).extracting(CapturedRpc::xid)
                .containsExactlyInAnyOrderElementsOf(calls().stream().map(CapturedRpc::xid).toList());
        assertThat(PROCEDURE_BY_XID.values()).containsOnly(0, 1, 2, 3, 4, 6, 7, 8, 17, 19, 20, 21);
    }

    /** Every call's arguments: decoded to their end, re-encoded to the same (reduced) stream. */
    @Test
    void everyCallRoundTrips() {
        for (CapturedRpc call : calls()) {
            int procedure = call.callProcedure()[2];
            ByteBuf body = call.body();
            try {
                byte[] original = ByteBufUtil.getBytes(body);
                XdrMessage encoded = reencodeArgs(procedure, body, call.reducedItems());
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
                XdrMessage encoded = reencodeResults(procedure, body, reply.reducedItems());
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

    /** Frame 14: FSINFO reply of Linux nfsd exporting a tmpfs. */
    @Test
    void fsinfoReply() {
        Fsinfo3Res r = decodeReply(0xa237727f, Fsinfo3Res::decode);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.objAttributes()).isNull();
        assertThat(List.of(r.rtmax(), r.rtpref(), r.rtmult(), r.wtmax(), r.wtpref(), r.wtmult(), r.dtpref()))
                .containsExactly(262144L, 262144L, 4096L, 262144L, 262144L, 4096L, 262144L);
        assertThat(r.maxfilesize()).isEqualTo(Long.MAX_VALUE);
        assertThat(r.timeDelta()).isEqualTo(new NfsTime3(1, 0));
        assertThat(r.properties()).isEqualTo(Nfs3Constants.FSF3_CANSETTIME | Nfs3Constants.FSF3_HOMOGENEOUS
                | Nfs3Constants.FSF3_SYMLINK | Nfs3Constants.FSF3_LINK);
    }

    /** Frame 17: PATHCONF reply. */
    @Test
    void pathconfReply() {
        Pathconf3Res r = decodeReply(0xa337727f, Pathconf3Res::decode);
        assertThat(r).isEqualTo(new Pathconf3Res(Nfs3Status.NFS3_OK, null, 255, 255, false, true, false, true));
    }

    /** Frame 19: GETATTR reply for the export's root directory. */
    @Test
    void getattrReply() {
        Getattr3Res r = decodeReply(0xa437727f, Getattr3Res::decode);
        assertThat(r.objAttributes()).isEqualTo(exportRoot(40, ROOT_CREATED));
    }

    /** Frames 30, 31: LOOKUP of test-nfs3.bin before it exists -> NFS3ERR_NOENT with the directory's attributes. */
    @Test
    void lookupNoent() {
        DirOpArgs3 what = decodeCall(0xa937727f, DirOpArgs3::decode);
        assertThat(what.name()).isEqualTo("test-nfs3.bin");
        assertThat(what.dir()).isEqualTo(ROOT_FH);
        Lookup3Res r = decodeReply(0xa937727f, Lookup3Res::decode);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
        assertThat(r.object()).isNull();
        assertThat(r.dirAttributes()).isEqualTo(exportRoot(40, ROOT_CREATED));
    }

    /**
     * Frames 37, 38: CREATE EXCLUSIVE. Linux nfsd keeps the verifier in the new file's mtime and
     * atime: each 4-octet half read as a little-endian word, masked to 31 bits.
     */
    @Test
    void createExclusive() {
        Create3Args args = decodeCall(0xab37727f, Create3Args::decode);
        assertThat(args.mode()).isEqualTo(CreateMode3.EXCLUSIVE);
        assertThat(args.where()).isEqualTo(new DirOpArgs3(ROOT_FH, "test-nfs3.bin"));
        Create3Res r = decodeReply(0xab37727f, Create3Res::decode);
        assertThat(r.obj()).isEqualTo(FILE_FH);
        assertThat(r.objAttributes().type()).isEqualTo(Ftype3.NF3REG);
        assertThat(r.objAttributes().fileid()).isEqualTo(2);
        assertThat(r.objAttributes().atime()).isEqualTo(new NfsTime3(1224802304, 0));
        assertThat(r.objAttributes().mtime()).isEqualTo(new NfsTime3(207880191, 0));
        assertThat(Integer.reverseBytes((int) (args.verf() >>> 32)) & 0x7fffffff).isEqualTo(207880191);
        assertThat(Integer.reverseBytes((int) args.verf()) & 0x7fffffff).isEqualTo(1224802304);
        assertThat(r.dirWcc().before()).isEqualTo(new WccAttr(40, ROOT_CREATED, ROOT_CREATED));
        assertThat(r.dirWcc().after()).isEqualTo(exportRoot(60, new NfsTime3(1795632275, 416000000)));
    }

    /** Frames 39, 40: SETATTR mode 0644, atime and mtime to server time, no guard. */
    @Test
    void setattr() {
        Setattr3Args args = decodeCall(0xac37727f, Setattr3Args::decode);
        assertThat(args).isEqualTo(new Setattr3Args(FILE_FH, new Sattr3(0644, null, null, null,
                SetTime3.SERVER_TIME, SetTime3.SERVER_TIME), null));
        WccRes3 r = decodeReply(0xac37727f, WccRes3::decode);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.wcc().after().mode()).isEqualTo(0644);
    }

    /**
     * Frames 42 and 60 (tshark shows the calls at 59 and 63, once it has the data): the WRITE calls,
     * UNSTABLE 262144 + 45056 octets, data moved to a Read chunk at Position 120 (RPC-R-017,
     * RPC-R-021, RPC-R-022): our encoder puts the data at that same Position. The data the server
     * pulled with RDMA Read is the file, each call's part at its offset.
     */
    @Test
    void writeCallsMoveTheirDataToAReadChunkAtTheDataPosition() {
        List<CapturedRpc> writes = calls().stream().filter(c -> c.callProcedure()[2] == Nfs3Constants.NFSPROC3_WRITE)
                .toList();
        assertThat(writes).hasSize(2);
        long total = 0;
        for (CapturedRpc call : writes) {
            assertThat(call.readChunkPositions()).containsOnly(120);
            ByteBuf body = call.body();
            int header = call.rpc().length - body.readableBytes();
            Write3Args args = Write3Args.decode(new XdrDecoder(body, call.reducedItems()), 1 << 20);
            try {
                assertThat(args.file()).isEqualTo(FILE_FH);
                assertThat(args.stable()).isEqualTo(StableHow.UNSTABLE);
                assertThat(args.offset()).isEqualTo(total);
                assertThat(ByteBufUtil.getBytes(args.data())).isEqualTo(copiedFile(args.offset(), args.count()));
                total += args.count();
                XdrEncoder out = XdrEncoder.create();
                args.encode(out);
                XdrMessage encoded = out.toMessage();
                try {
                    int piece = indexOfDdpPiece(encoded);
                    assertThat(header + encoded.position(piece)).isEqualTo(120);
                } finally {
                    encoded.release();
                }
            } finally {
                body.release();
            }
        }
        assertThat(total).isEqualTo(300 * 1024);
        // Frames 64, 65: both UNSTABLE, the file 262144 and then 307200 octets long.
        Write3Res first = decodeReply(writes.get(0).xid(), Write3Res::decode);
        Write3Res second = decodeReply(writes.get(1).xid(), Write3Res::decode);
        assertThat(List.of(first.status(), second.status())).containsOnly(Nfs3Status.NFS3_OK);
        assertThat(List.of(first.committed(), second.committed())).containsOnly(StableHow.UNSTABLE);
        assertThat(List.of(first.count(), second.count())).containsExactly(262144L, 45056L);
        assertThat(List.of(first.fileWcc().after().size(), second.fileWcc().after().size()))
                .containsExactly(262144L, 307200L);
    }

    /** Frames 67, 68: COMMIT of the whole file; the reply carries the same verifier as both WRITE replies. */
    @Test
    void commitCarriesTheWriteVerifier() {
        assertThat(decodeCall(0xaf37727f, Commit3Args::decode)).isEqualTo(new Commit3Args(FILE_FH, 0, 0));
        Commit3Res commit = decodeReply(0xaf37727f, Commit3Res::decode);
        assertThat(commit.verf()).isEqualTo(decodeReply(0xad37727f, Write3Res::decode).verf())
                .isEqualTo(decodeReply(0xae37727f, Write3Res::decode).verf());
        assertThat(commit.fileWcc().after().size()).isEqualTo(307200);
    }

    /** Frames 104, 126: READs of 262144 and 45056 octets with a Write chunk of exactly that size (ULB-R-001, RPC-R-027). */
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
        assertThat(decodeCall(0x1d2f65b5, Read3Args::decode)).isEqualTo(new Read3Args(FILE_FH, 0, 262144));
        assertThat(decodeCall(0x1e2f65b5, Read3Args::decode)).isEqualTo(new Read3Args(FILE_FH, 262144, 45056));
    }

    /**
     * Frames 125, 131 (tshark 4.0 calls them malformed: it does not follow the data into the Write
     * chunk): the READ replies report the counts and EOF, and the RDMA Writes into their Write
     * chunks carry the file, each part at the READ's offset (RFC 8267 §4, RPC-R-027).
     */
    @Test
    void readRepliesCarryTheFileInTheirWriteChunks() {
        long[][] offsetCountEof = {{0, 262144, 0}, {262144, 45056, 1}};
        int[] xids = {0x1d2f65b5, 0x1e2f65b5};
        for (int i = 0; i < xids.length; i++) {
            CapturedRpc reply = reply(xids[i]);
            assertThat(reply.writeChunkLengths()).containsExactly(offsetCountEof[i][1]);
            ByteBuf body = reply.body();
            try {
                XdrDecoder in = new XdrDecoder(body, reply.reducedItems());
                Read3Res r = Read3Res.decode(in, 1 << 20);
                try {
                    assertThat(in.isEmpty()).isTrue();
                    assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
                    assertThat(r.count()).isEqualTo(offsetCountEof[i][1]);
                    assertThat(r.eof()).isEqualTo(offsetCountEof[i][2] == 1);
                    assertThat(r.fileAttributes().size()).isEqualTo(307200);
                    assertThat(ByteBufUtil.getBytes(r.data()))
                            .isEqualTo(copiedFile(offsetCountEof[i][0], offsetCountEof[i][1]));
                } finally {
                    r.release();
                }
            } finally {
                body.release();
            }
        }
    }

    /**
     * Frames 139, 144: READDIRPLUS with dircount = maxcount = 65536 comes with a Reply chunk
     * (ULB-R-001, RPC-R-054), and svcrdma answers through it (RDMA_NOMSG): ".", ".." and the file.
     */
    @Test
    void readdirplusCallProvidesAReplyChunk() {
        assertThat(decodeCall(0x212f65b5, Readdirplus3Args::decode))
                .isEqualTo(new Readdirplus3Args(ROOT_FH, 0, 0, 65536, 65536));
        assertThat(CALL_BY_XID.get(0x212f65b5).replyChunk()).isTrue();
        assertThat(reply(0x212f65b5).proc()).isEqualTo(1);
        Readdirplus3Res r = decodeReply(0x212f65b5, Readdirplus3Res::decode);
        assertThat(r.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(r.entries()).extracting(EntryPlus3::name).containsExactly(".", "..", "test-nfs3.bin");
        assertThat(r.entries().get(2).nameHandle()).isEqualTo(FILE_FH);
        assertThat(r.entries().get(2).nameAttributes().size()).isEqualTo(307200);
    }

    private static final NfsFh3 ROOT_FH = new NfsFh3(HexFormat.of().parseHex("01000100d10f0000"));
    private static final NfsFh3 FILE_FH = new NfsFh3(HexFormat.of().parseHex(
            "01000101d10f0000be79a1860200000000000000"));

    /** When the export's tmpfs root was made (frame 19): its atime, mtime and ctime until the file was created. */
    private static final NfsTime3 ROOT_CREATED = new NfsTime3(1795632258, 448000000);

    private static Fattr3 exportRoot(long size, NfsTime3 mtimeAndCtime) {
        return new Fattr3(Ftype3.NF3DIR, 0777, 2, 0, 0, size, 0, SpecData3.NONE, 4049, 1,
                ROOT_CREATED, mtimeAndCtime, mtimeAndCtime);
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

    /** Decodes a call's arguments (a reduced WRITE's data from its Read chunk) and encodes them again. */
    private static XdrMessage reencodeArgs(int procedure, ByteBuf body, List<ByteBuf> chunkData) {
        XdrDecoder in = new XdrDecoder(body, chunkData);
        XdrEncoder out = XdrEncoder.create();
        switch (procedure) {
            case 0 -> { }
            case 1, 5, 18, 19, 20 -> NfsFh3.decode(in).encode(out);
            case 2 -> Setattr3Args.decode(in).encode(out);
            case 3, 12, 13 -> DirOpArgs3.decode(in).encode(out);
            case 4 -> Access3Args.decode(in).encode(out);
            case 6 -> Read3Args.decode(in).encode(out);
            case 7 -> Write3Args.decode(in, 1 << 20).encode(out);
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

    /** Decodes a reply's results (a READ's data from its Write chunk) and encodes them again. */
    private static XdrMessage reencodeResults(int procedure, ByteBuf body, List<ByteBuf> chunkData) {
        XdrDecoder in = new XdrDecoder(body, chunkData);
        XdrEncoder out = XdrEncoder.create();
        switch (procedure) {
            case 0 -> { }
            case 1 -> Getattr3Res.decode(in).encode(out);
            case 2, 12, 13 -> WccRes3.decode(in).encode(out);
            case 3 -> Lookup3Res.decode(in).encode(out);
            case 4 -> Access3Res.decode(in).encode(out);
            case 5 -> Readlink3Res.decode(in).encode(out);
            case 6 -> Read3Res.decode(in, 1 << 20).encode(out);
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
