package org.iwarp4j.nfs.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.iwarp4j.nfs.internal.Nfs3Context;
import org.iwarp4j.nfs.mount.MountConstants;
import org.iwarp4j.nfs.v3.Access3Args;
import org.iwarp4j.nfs.v3.Commit3Args;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Link3Args;
import org.iwarp4j.nfs.v3.Mkdir3Args;
import org.iwarp4j.nfs.v3.Mknod3Args;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Read3Args;
import org.iwarp4j.nfs.v3.Readdir3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.Rename3Args;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.iwarp4j.nfs.v3.Symlink3Args;
import org.iwarp4j.nfs.v3.Write3Args;
import org.iwarp4j.oncrpc.RpcGarbageArgsException;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the argument XDR of every NFSv3 procedure (RFC 1813 §3.3) and every MOUNT v3
 * procedure (RFC 1813 §5.2), decoded as the server does, including its file-name syntax check.
 * Input layout: octet 0 = the procedure (0-21 NFSv3, 32-37 MOUNT 0-5; other values wrap onto
 * NFSv3), then the arguments. Seeds: the arguments of the first call of each NFSv3 procedure on
 * each connection of the Linux NFS-over-RDMA capture in {@code testdata/captures/} (NULL, GETATTR,
 * SETATTR, LOOKUP, ACCESS, READ, WRITE as sent with a Read chunk, CREATE, COMMIT, READDIRPLUS,
 * FSINFO, PATHCONF), and hand-made MOUNT calls.
 *
 * <p>Properties: the only exceptions are the ones the server maps to GARBAGE_ARGS: {@link
 * XdrException} and, from the file-name check, {@link RpcGarbageArgsException}; decoded arguments
 * re-encode to octets that decode and re-encode to the same octets again, never longer than what
 * was consumed; WRITE's data buffer is released.
 */
class Nfs3ArgumentsFuzzTarget {

    private static final int MAX_WRITE = 1 << 16;

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 1) {
            return;
        }
        int selector = input[0] & 0xFF;
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ByteBuf in = alloc.buffer(input.length).writeBytes(input, 1, input.length - 1);
        try {
            if (selector >= 32 && selector < 32 + 6) {
                mount(selector - 32, in);
            } else {
                nfs3(selector % 22, in);
            }
        } catch (XdrException | RpcGarbageArgsException e) {
            // documented: the server answers GARBAGE_ARGS
        } finally {
            assertThat(in.release()).as("nothing kept a reference to the arguments").isTrue();
        }
        FuzzInput.assertNothingHeld(alloc);
    }

    private static void nfs3(int procedure, ByteBuf in) {
        switch (procedure) {
            case 0 -> { }
            case 1, 5, 18, 19, 20 -> check(in, NfsFh3::decode, NfsFh3::encode);
            case 2 -> check(in, Setattr3Args::decode, Setattr3Args::encode);
            case 3, 12, 13 -> check(in, x -> Nfs3Context.checkSyntax(DirOpArgs3.decode(x)), DirOpArgs3::encode);
            case 4 -> check(in, Access3Args::decode, Access3Args::encode);
            case 6 -> check(in, Read3Args::decode, Read3Args::encode);
            case 7 -> write(in);
            case 8 -> check(in, x -> named(Create3Args.decode(x), Create3Args::where), Create3Args::encode);
            case 9 -> check(in, x -> named(Mkdir3Args.decode(x), Mkdir3Args::where), Mkdir3Args::encode);
            case 10 -> check(in, x -> named(Symlink3Args.decode(x), Symlink3Args::where), Symlink3Args::encode);
            case 11 -> check(in, x -> named(Mknod3Args.decode(x), Mknod3Args::where), Mknod3Args::encode);
            case 14 -> check(in, x -> named(named(Rename3Args.decode(x), Rename3Args::from), Rename3Args::to),
                    Rename3Args::encode);
            case 15 -> check(in, x -> named(Link3Args.decode(x), Link3Args::link), Link3Args::encode);
            case 16 -> check(in, Readdir3Args::decode, Readdir3Args::encode);
            case 17 -> check(in, Readdirplus3Args::decode, Readdirplus3Args::encode);
            default -> check(in, Commit3Args::decode, Commit3Args::encode);
        }
    }

    private static void mount(int procedure, ByteBuf in) {
        if (procedure == MountConstants.MOUNTPROC3_MNT || procedure == MountConstants.MOUNTPROC3_UMNT) {
            check(in, x -> x.readString(MountConstants.MNTPATHLEN), (path, out) -> out.writeString(path, MountConstants.MNTPATHLEN));
        }
        // NULL, DUMP, UMNTALL and EXPORT take no arguments.
    }

    private static <A> A named(A args, Function<A, DirOpArgs3> where) {
        Nfs3Context.checkSyntax(where.apply(args));
        return args;
    }

    private static void write(ByteBuf in) {
        Write3Args args = Write3Args.decode(new XdrDecoder(in), MAX_WRITE);
        int consumed = in.readerIndex();
        byte[] once = XdrRoundTrip.octets(args::encode);
        assertThat(once.length).isLessThanOrEqualTo(consumed);
        Write3Args again = Write3Args.decode(new XdrDecoder(Unpooled.wrappedBuffer(once)), MAX_WRITE);
        try {
            assertThat(XdrRoundTrip.octets(again::encode)).isEqualTo(once);
        } catch (Throwable t) {
            again.release();
            throw t;
        }
    }

    /** Decodes, then checks that the encoding of what was decoded is stable. */
    private static <A> void check(ByteBuf in, Function<XdrDecoder, A> decoder, BiConsumer<A, XdrEncoder> encoder) {
        XdrRoundTrip.check(new XdrDecoder(in), decoder, encoder, false);
    }
}
