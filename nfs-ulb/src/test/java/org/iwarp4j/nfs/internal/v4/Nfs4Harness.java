package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.internal.DirectoryListings;
import org.iwarp4j.nfs.internal.Export;
import org.iwarp4j.nfs.internal.FileHandles;
import org.iwarp4j.nfs.internal.Nfs3Context;
import org.iwarp4j.nfs.internal.Nfs3Limits;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallContext;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;

/**
 * Test helper: the NFSv4.1 COMPOUND processor on a directory, fed COMPOUND4args octets as a client
 * would send them (AUTH_SYS root from loopback, on a read-write export without root squash) and
 * answering COMPOUND4res octets, which {@link Reply} walks. The clock is the test's.
 */
final class Nfs4Harness implements AutoCloseable {

    static final ExportOptions TRUSTED_ROOT = ExportOptions.builder().readWrite().rootSquash(false).build();

    final Path dir;
    final AtomicLong clock = new AtomicLong(1_000_000);
    final Nfs3Context base;
    final Nfs4Context ctx;
    final CompoundProcessor processor;
    private final List<Reply> replies = new ArrayList<>();
    long clientId;
    byte[] sessionId;
    /** The AUTH_SYS uid (and gid) of the next calls: the principal of NFSv4's client records. */
    int uid;
    /** Where the next calls come from (the export admits only this host). */
    InetSocketAddress from = new InetSocketAddress("127.0.0.1", 700);
    private final int[] slotSeq = new int[64];
    private int xid;

    Nfs4Harness(Path dir, Nfs4Settings settings) throws IOException {
        this(dir, settings, null);
    }

    /** A server whose client records live in {@code stateDirectory} (null: none). */
    Nfs4Harness(Path dir, Nfs4Settings settings, Path stateDirectory) throws IOException {
        this(dir, settings, stateDirectory, FileHandles::new);
    }

    /** A server whose file handles {@code handles} makes for the export (tests count their file-system calls). */
    Nfs4Harness(Path dir, Nfs4Settings settings, Path stateDirectory,
                java.util.function.Function<Export, FileHandles> handles) throws IOException {
        this(dir, settings, stateDirectory, handles, new DirectoryListings());
    }

    /** A server whose directory snapshots {@code listings} keeps (tests give it a clock). */
    Nfs4Harness(Path dir, Nfs4Settings settings, Path stateDirectory,
                java.util.function.Function<Export, FileHandles> handles, DirectoryListings listings)
            throws IOException {
        this(dir, settings, stateDirectory, handles, listings, TRUSTED_ROOT);
    }

    /** A server on an export with these options (a read-only export, say). */
    Nfs4Harness(Path dir, ExportOptions options) throws IOException {
        this(dir, Nfs4Settings.defaults(), null, FileHandles::new, new DirectoryListings(), options);
    }

    private Nfs4Harness(Path dir, Nfs4Settings settings, Path stateDirectory,
                java.util.function.Function<Export, FileHandles> handles, DirectoryListings listings,
                ExportOptions options) throws IOException {
        this.dir = dir;
        Export export = new Export(dir, "/export");
        this.base = new Nfs3Context(export, options, Nfs3Limits.defaults(), handles.apply(export), listings);
        this.ctx = new Nfs4Context(base, settings, clock::get, stateDirectory);
        this.processor = new CompoundProcessor(ctx);
    }

    Nfs4Harness(Path dir) throws IOException {
        this(dir, Nfs4Settings.defaults());
    }

    RpcCallContext rpc() {
        return new RpcCallContext(new RpcCallInfo(++xid, PROGRAM, VERSION, NFSPROC4_COMPOUND), OpaqueAuth.NONE,
                OpaqueAuth.NONE, new AuthSys(0, "test", uid, uid, new int[0]),
                RpcTransportInfo.of("test", new InetSocketAddress("127.0.0.1", 2049), from));
    }

    /** COMPOUND4args octets. */
    static ByteBuf args(int minor, String tag, List<Consumer<XdrEncoder>> ops) {
        XdrEncoder e = XdrEncoder.create(ByteBufAllocator.DEFAULT);
        e.writeString(tag, 1024).writeUnsignedInt(minor).writeUnsignedInt(ops.size());
        ops.forEach(op -> op.accept(e));
        XdrMessage m = e.toMessage();
        ByteBuf b = m.stream();
        m.release();
        return b;
    }

    /** Runs a COMPOUND of these operations. */
    Reply compound(int minor, List<Consumer<XdrEncoder>> ops) {
        ByteBuf in = args(minor, "t", ops);
        try {
            return run(in);
        } finally {
            in.release();
        }
    }

    Reply run(ByteBuf in) {
        XdrMessage out = processor.compound(rpc(), new XdrDecoder(in));
        Reply r = new Reply(out);
        replies.add(r);
        return r;
    }

    @SafeVarargs
    final Reply compound(Consumer<XdrEncoder>... ops) {
        return compound(1, List.of(ops));
    }

    /** A COMPOUND that starts with SEQUENCE on slot 0 with its next sequenceid. */
    @SafeVarargs
    final Reply sequenced(Consumer<XdrEncoder>... ops) {
        List<Consumer<XdrEncoder>> all = new ArrayList<>();
        all.add(sequence(sessionId, ++slotSeq[0], 0));
        all.addAll(List.of(ops));
        Reply r = compound(1, all);
        r.op(OP_SEQUENCE);
        return r;
    }

    /** The file handle of {@code name} in the export's root (in the session). */
    byte[] fhOf(String name) {
        Reply r = sequenced(putrootfh(), lookup(name), op(OP_GETFH));
        r.skipSequence();
        r.op(OP_PUTROOTFH);
        r.op(OP_LOOKUP);
        assertThat(r.op(OP_GETFH)).as("LOOKUP %s", name).isEqualTo(NFS4_OK);
        return r.in.readOpaque(128);
    }

    /** A client id and the sequenceid of its next CREATE_SESSION, as EXCHANGE_ID answers them. */
    record Exchanged(long clientId, int seq) {
    }

    /** EXCHANGE_ID, which must succeed, for {@code owner} with verifier 1. */
    Exchanged exchange(String owner) {
        Reply x = compound(exchangeId(owner, 1));
        assertThat(x.op(OP_EXCHANGE_ID)).as("EXCHANGE_ID of %s", owner).isEqualTo(NFS4_OK);
        return new Exchanged(x.in.readHyper(), x.in.readInt());
    }

    /** EXCHANGE_ID and CREATE_SESSION; remembers the client id and session id. */
    void session() {
        java.util.Arrays.fill(slotSeq, 0); // a new session's slots start again
        Reply x = compound(exchangeId("client-1", 1));
        assertThat(x.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        clientId = x.in.readHyper();
        int seq = x.in.readInt();
        Reply c = compound(createSession(clientId, seq));
        assertThat(c.op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        sessionId = c.in.readFixedOpaque(16);
    }

    // --- operation arguments ---

    static Consumer<XdrEncoder> op(int opcode) {
        return e -> e.writeInt(opcode);
    }

    static Consumer<XdrEncoder> exchangeId(String owner, long verifier) {
        return e -> {
            e.writeInt(OP_EXCHANGE_ID).writeHyper(verifier).writeOpaque(owner.getBytes(StandardCharsets.UTF_8), 1024);
            e.writeInt(0).writeEnum(SP4_NONE).writeUnsignedInt(0);
        };
    }

    static Consumer<XdrEncoder> channel(int maxReq, int maxResp, int cached, int ops, int reqs) {
        return e -> e.writeInt(0).writeInt(maxReq).writeInt(maxResp).writeInt(cached).writeInt(ops).writeInt(reqs)
                .writeUnsignedInt(0);
    }

    static Consumer<XdrEncoder> createSession(long clientId, int seq) {
        return e -> {
            e.writeInt(OP_CREATE_SESSION).writeHyper(clientId).writeInt(seq).writeInt(CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
            channel(1 << 20, 1 << 20, 4096, 8, 16).accept(e);
            channel(4096, 4096, 0, 2, 4).accept(e);
            e.writeInt(0x40000000).writeUnsignedInt(1).writeInt(AUTH_NONE);
        };
    }

    /** CREATE_SESSION asking for no back channel, these fore channel attributes and a minimal back channel. */
    static Consumer<XdrEncoder> createSession(long clientId, int seq, Consumer<XdrEncoder> fore) {
        return e -> {
            e.writeInt(OP_CREATE_SESSION).writeHyper(clientId).writeInt(seq).writeInt(0);
            fore.accept(e);
            channel(4096, 4096, 0, 2, 1).accept(e);
            e.writeInt(0x40000000).writeUnsignedInt(0);
        };
    }

    static Consumer<XdrEncoder> sequence(byte[] sessionId, int seq, int slot) {
        return sequence(sessionId, seq, slot, false);
    }

    /** SEQUENCE with sa_cachethis as given. */
    static Consumer<XdrEncoder> sequence(byte[] sessionId, int seq, int slot, boolean cacheThis) {
        return e -> e.writeInt(OP_SEQUENCE).writeFixedOpaque(sessionId).writeInt(seq).writeInt(slot).writeInt(slot)
                .writeBoolean(cacheThis);
    }

    static Consumer<XdrEncoder> destroySession(byte[] sessionId) {
        return e -> e.writeInt(OP_DESTROY_SESSION).writeFixedOpaque(sessionId);
    }

    static Consumer<XdrEncoder> bindConnToSession(byte[] sessionId, int dir) {
        return e -> e.writeInt(OP_BIND_CONN_TO_SESSION).writeFixedOpaque(sessionId).writeEnum(dir).writeBoolean(false);
    }

    static Consumer<XdrEncoder> putrootfh() {
        return op(OP_PUTROOTFH);
    }

    static Consumer<XdrEncoder> putfh(byte[] fh) {
        return e -> e.writeInt(OP_PUTFH).writeOpaque(fh, 128);
    }

    static Consumer<XdrEncoder> lookup(String name) {
        return e -> e.writeInt(OP_LOOKUP).writeString(name, 1024);
    }

    static Consumer<XdrEncoder> getattr(int... bits) {
        return e -> {
            e.writeInt(OP_GETATTR);
            Bitmap4.of(bits).encode(e);
        };
    }

    /** OPEN by name in the current directory; create UNCHECKED4 with mode 0644 if {@code create}. */
    static Consumer<XdrEncoder> open(String owner, String name, int access, int deny, boolean create) {
        return e -> {
            e.writeInt(OP_OPEN).writeInt(0).writeInt(access).writeInt(deny).writeHyper(0)
                    .writeOpaque(owner.getBytes(StandardCharsets.UTF_8), 1024);
            if (create) {
                e.writeEnum(OPEN4_CREATE).writeEnum(UNCHECKED4);
                Bitmap4.of(FATTR4_MODE).encode(e);
                e.writeUnsignedInt(4).writeInt(0644);
            } else {
                e.writeEnum(OPEN4_NOCREATE);
            }
            e.writeEnum(CLAIM_NULL).writeString(name, 1024);
        };
    }

    static Consumer<XdrEncoder> write(Stateid4 s, long offset, int stable, byte[] data) {
        return e -> {
            e.writeInt(OP_WRITE);
            s.encode(e);
            e.writeHyper(offset).writeEnum(stable).writeOpaque(data, Integer.MAX_VALUE);
        };
    }

    static Consumer<XdrEncoder> read(Stateid4 s, long offset, int count) {
        return e -> {
            e.writeInt(OP_READ);
            s.encode(e);
            e.writeHyper(offset).writeUnsignedInt(count);
        };
    }

    static Consumer<XdrEncoder> close(Stateid4 s) {
        return e -> {
            e.writeInt(OP_CLOSE).writeInt(0);
            s.encode(e);
        };
    }

    static Consumer<XdrEncoder> lockNew(Stateid4 open, String owner, int type, long offset, long length) {
        return e -> {
            e.writeInt(OP_LOCK).writeEnum(type).writeBoolean(false).writeHyper(offset).writeHyper(length)
                    .writeBoolean(true).writeInt(0);
            open.encode(e);
            e.writeInt(0).writeHyper(0).writeOpaque(owner.getBytes(StandardCharsets.UTF_8), 1024);
        };
    }

    static Consumer<XdrEncoder> lockExisting(Stateid4 lock, int type, long offset, long length) {
        return e -> {
            e.writeInt(OP_LOCK).writeEnum(type).writeBoolean(false).writeHyper(offset).writeHyper(length)
                    .writeBoolean(false);
            lock.encode(e);
            e.writeInt(0);
        };
    }

    static Consumer<XdrEncoder> locku(Stateid4 lock, long offset, long length) {
        return e -> {
            e.writeInt(OP_LOCKU).writeEnum(WRITE_LT).writeInt(0);
            lock.encode(e);
            e.writeHyper(offset).writeHyper(length);
        };
    }

    /** COMPOUND4res, walked operation by operation. */
    static final class Reply {
        final ByteBuf octets;
        final XdrDecoder in;
        final int status;
        final String tag;
        final int count;

        Reply(XdrMessage m) {
            this.octets = m.stream();
            m.release();
            this.in = new XdrDecoder(octets.duplicate());
            this.status = in.readInt();
            this.tag = in.readString(1024);
            this.count = in.readInt();
        }

        /** The next result's status, which must be for {@code opcode}. */
        int op(int opcode) {
            assertThat(in.readInt()).as("result opcode").isEqualTo(opcode);
            return in.readInt();
        }

        byte[] bytes() {
            byte[] b = new byte[octets.readableBytes()];
            octets.getBytes(octets.readerIndex(), b);
            return b;
        }

        /** After OP_SEQUENCE's OK status: skips its body. */
        Reply skipSequence() {
            in.readFixedOpaque(16);
            in.skip(20);
            return this;
        }

        Stateid4 stateid() {
            return Stateid4.decode(in);
        }

        /** After OPEN's OK status: its stateid, the rest skipped. */
        Stateid4 openBody() {
            Stateid4 s = Stateid4.decode(in);
            in.skip(20 + 4);
            Bitmap4.decode(in);
            assertThat(in.readEnum()).as("no delegation").isEqualTo(OPEN_DELEGATE_NONE);
            return s;
        }
    }

    @Override
    public void close() {
        replies.forEach(r -> r.octets.release());
        base.close();
    }
}
