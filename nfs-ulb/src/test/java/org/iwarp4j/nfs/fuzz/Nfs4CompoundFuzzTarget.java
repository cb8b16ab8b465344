package org.iwarp4j.nfs.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.internal.Export;
import org.iwarp4j.nfs.internal.Nfs3Context;
import org.iwarp4j.nfs.internal.Nfs3Limits;
import org.iwarp4j.nfs.internal.v4.CompoundProcessor;
import org.iwarp4j.nfs.internal.v4.Nfs4Context;
import org.iwarp4j.nfs.internal.v4.Nfs4Settings;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallContext;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the operations of an NFSv4.1/4.2 COMPOUND (RFC 8881 §16.2, §18) as the server
 * decodes and runs them, on a temporary export with a session already made. Input layout: octet 0
 * = the number of operations after SEQUENCE (low 4 bits), octet 1 bit 0 = minor version 1 or 2,
 * then the operations' octets (opcode and arguments each), after a valid SEQUENCE the target
 * writes itself.
 *
 * <p>Properties: no exception comes out (argument errors are the operation's NFS4ERR_BADXDR or
 * another nfsstat4); the reply is a COMPOUND4res whose first result is SEQUENCE's NFS4_OK, holding
 * no more results than operations; nothing allocated for the reply is held once it is released.
 */
class Nfs4CompoundFuzzTarget {

    private static Nfs4Context ctx;
    private static CompoundProcessor processor;
    private static byte[] session;
    private static int seq;

    private static RpcCallContext rpc(UnpooledByteBufAllocator alloc) {
        return new RpcCallContext(new RpcCallInfo(1, PROGRAM, VERSION, NFSPROC4_COMPOUND), OpaqueAuth.NONE,
                OpaqueAuth.NONE, new AuthSys(0, "fuzz", 0, 0, new int[0]), new RpcTransportInfo("fuzz",
                new InetSocketAddress("127.0.0.1", 2049), new InetSocketAddress("127.0.0.1", 700), alloc));
    }

    private static synchronized void setUp() {
        if (processor != null) {
            return;
        }
        try {
            Path export = Files.createTempDirectory("nfs4-fuzz");
            // One export for the whole run (Jazzer has no teardown): removed, with what the inputs made, at exit.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(export), "nfs4-fuzz-cleanup"));
            Nfs3Context base = new Nfs3Context(new Export(export, "/export"),
                    ExportOptions.builder().readWrite().rootSquash(false).build(), Nfs3Limits.defaults());
            ctx = new Nfs4Context(base, Nfs4Settings.defaults());
            processor = new CompoundProcessor(ctx);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        XdrDecoder x = run(e -> e.writeString("", 16).writeUnsignedInt(1).writeUnsignedInt(1).writeInt(OP_EXCHANGE_ID)
                .writeHyper(1).writeOpaque("fuzz".getBytes(StandardCharsets.UTF_8), 1024).writeInt(0)
                .writeEnum(SP4_NONE).writeUnsignedInt(0), (r, in) -> {
                    in.skip(4 + 4 + 4 + 4 + 4);
                    long clientId = in.readHyper();
                    int s = in.readInt();
                    run(e -> {
                        e.writeString("", 16).writeUnsignedInt(1).writeUnsignedInt(1).writeInt(OP_CREATE_SESSION)
                                .writeHyper(clientId).writeInt(s).writeInt(0);
                        for (int i = 0; i < 2; i++) {
                            e.writeInt(0).writeInt(1 << 20).writeInt(1 << 20).writeInt(8192).writeInt(16).writeInt(4)
                                    .writeUnsignedInt(0);
                        }
                        e.writeInt(0x40000000).writeUnsignedInt(0);
                    }, (r2, in2) -> {
                        in2.skip(4 + 4 + 4 + 4 + 4);
                        session = in2.readFixedOpaque(16);
                    });
                });
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort at exit: a temporary directory left behind is all that is lost
        }
    }

    private interface Reading {
        void read(XdrMessage reply, XdrDecoder in);
    }

    private static XdrDecoder run(Consumer<XdrEncoder> args, Reading reading) {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        XdrEncoder e = XdrEncoder.create(alloc);
        args.accept(e);
        XdrMessage m = e.toMessage();
        ByteBuf in = m.stream();
        m.release();
        try {
            XdrMessage reply = processor.compound(rpc(alloc), new XdrDecoder(in));
            ByteBuf out = reply.stream();
            try {
                reading.read(reply, new XdrDecoder(out));
            } finally {
                out.release();
                reply.release();
            }
        } finally {
            in.release();
        }
        return null;
    }

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 2) {
            return;
        }
        setUp();
        int operations = input[0] & 0x0F;
        int minor = 1 + (input[1] & 1);
        int sequence = ++seq;
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        XdrEncoder e = XdrEncoder.create(alloc);
        e.writeString("", 16).writeUnsignedInt(minor).writeUnsignedInt(1 + operations);
        e.writeInt(OP_SEQUENCE).writeFixedOpaque(session).writeInt(sequence).writeInt(0).writeInt(0).writeBoolean(false);
        e.writeFixedOpaque(java.util.Arrays.copyOfRange(input, 2, 2 + ((input.length - 2) & ~3)));
        XdrMessage m = e.toMessage();
        ByteBuf in = m.stream();
        m.release();
        try {
            XdrMessage reply = processor.compound(rpc(alloc), new XdrDecoder(in));
            ByteBuf out = reply.stream();
            try {
                XdrDecoder r = new XdrDecoder(out);
                int status = r.readInt();
                r.readOpaque(16);
                long count = r.readUnsignedInt();
                assertThat(count).isBetween(1L, 1L + operations);
                assertThat(r.readInt()).isEqualTo(OP_SEQUENCE);
                assertThat(r.readInt()).as("SEQUENCE").isEqualTo(NFS4_OK);
                if (count == 1) {
                    assertThat(status).isEqualTo(NFS4_OK);
                }
            } finally {
                out.release();
                reply.release();
            }
        } finally {
            in.release();
        }
        FuzzInput.assertNothingHeld(alloc);
    }
}
