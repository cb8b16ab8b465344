package org.iwarp4j.nfs.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.iwarp4j.nfs.mount.ExportNode;
import org.iwarp4j.nfs.mount.MountBody;
import org.iwarp4j.nfs.mount.MountConstants;
import org.iwarp4j.nfs.mount.Mountres3;
import org.iwarp4j.nfs.v3.Access3Res;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.Fsinfo3Res;
import org.iwarp4j.nfs.v3.Fsstat3Res;
import org.iwarp4j.nfs.v3.Getattr3Res;
import org.iwarp4j.nfs.v3.Link3Res;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Pathconf3Res;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.Readdir3Res;
import org.iwarp4j.nfs.v3.Readdirplus3Res;
import org.iwarp4j.nfs.v3.Readlink3Res;
import org.iwarp4j.nfs.v3.Rename3Res;
import org.iwarp4j.nfs.v3.WccRes3;
import org.iwarp4j.nfs.v3.Write3Res;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the result decoders of the NFSv3 client ({@code NfsClient}, RFC 1813 §3.3: the
 * decoder each procedure's call hands the RPC client) and of its MOUNT v3 calls (RFC 1813 App. I:
 * MNT as the client mounts, DUMP and EXPORT), on a server's reply after its RPC header. Input
 * layout: octet 0 = the procedure (bits 0-5: 0-21 NFSv3, 32-37 MOUNT 0-5, other values wrap onto
 * NFSv3; bit 6: the READ data or READLINK path comes as a reduced data item, see {@link
 * ReplyInput}), then the results. READ is decoded as a call for {@value #READ_COUNT} octets.
 * Seeds: the results of the first reply to each NFSv3 procedure on each connection of the Linux
 * NFS-over-RDMA capture in {@code testdata/captures/} (READDIRPLUS put together from its Reply
 * chunk; READ with its Write chunk data as the reduced item, cut to 1024 octets, count and length
 * made to match), and one result per procedure written by the project's encoders, failures and
 * reduced READ and READLINK among them ({@code enc-*}, {@link NfsClientReplySeedsTest}).
 *
 * <p>Properties: the only exception is {@link XdrException} (which the RPC client hands the caller
 * as the call's failure); a decoded result re-encodes to octets that decode and re-encode to the
 * same octets again, never longer than what was consumed (but for names that are not UTF-8, and a
 * reduced reply, whose data the encoding writes inline); READ's data is the caller's to release,
 * and once it is released nothing allocated for the reply is held.
 */
class Nfs3ResultsFuzzTarget {

    static final int READ_COUNT = 1 << 16;

    /** The result decoders of NFSv3 procedures 0-21, as {@code NfsClient} passes them. */
    private static final List<Decoder<?>> NFS3 = List.of(
            new Decoder<>(in -> null, (r, out) -> { }),
            new Decoder<>(Getattr3Res::decode, Getattr3Res::encode),
            new Decoder<>(WccRes3::decode, WccRes3::encode),
            new Decoder<>(Lookup3Res::decode, Lookup3Res::encode),
            new Decoder<>(Access3Res::decode, Access3Res::encode),
            new Decoder<>(Readlink3Res::decode, Readlink3Res::encode),
            new Decoder<>(in -> Read3Res.decode(in, READ_COUNT), Read3Res::encode),
            new Decoder<>(Write3Res::decode, Write3Res::encode),
            new Decoder<>(Create3Res::decode, Create3Res::encode), // CREATE
            new Decoder<>(Create3Res::decode, Create3Res::encode), // MKDIR
            new Decoder<>(Create3Res::decode, Create3Res::encode), // SYMLINK
            new Decoder<>(Create3Res::decode, Create3Res::encode), // MKNOD
            new Decoder<>(WccRes3::decode, WccRes3::encode), // REMOVE
            new Decoder<>(WccRes3::decode, WccRes3::encode), // RMDIR
            new Decoder<>(Rename3Res::decode, Rename3Res::encode),
            new Decoder<>(Link3Res::decode, Link3Res::encode),
            new Decoder<>(Readdir3Res::decode, Readdir3Res::encode),
            new Decoder<>(Readdirplus3Res::decode, Readdirplus3Res::encode),
            new Decoder<>(Fsstat3Res::decode, Fsstat3Res::encode),
            new Decoder<>(Fsinfo3Res::decode, Fsinfo3Res::encode),
            new Decoder<>(Pathconf3Res::decode, Pathconf3Res::encode),
            new Decoder<>(Commit3Res::decode, Commit3Res::encode));

    /** MOUNT 0-5: NULL, MNT, DUMP, UMNT, UMNTALL (void results) and EXPORT. */
    private static final List<Decoder<?>> MOUNT = List.of(
            new Decoder<>(in -> null, (r, out) -> { }),
            new Decoder<>(Mountres3::decode, Mountres3::encode),
            new Decoder<List<MountBody>>(MountBody::decodeList, (list, out) -> MountBody.encodeList(out, list)),
            new Decoder<>(in -> null, (r, out) -> { }),
            new Decoder<>(in -> null, (r, out) -> { }),
            new Decoder<List<ExportNode>>(ExportNode::decodeList, (list, out) -> ExportNode.encodeList(out, list)));

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 1) {
            return;
        }
        int procedure = input[0] & 0x3F;
        Decoder<?> decoder = procedure >= 32 && procedure < 32 + MOUNT.size() ? MOUNT.get(procedure - 32)
                : NFS3.get(procedure % NFS3.size());
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ReplyInput reply = ReplyInput.of(alloc, input, 1, (input[0] & 0x40) != 0);
        try {
            decoder.check(reply);
        } catch (XdrException e) {
            // documented: the call fails with it
        }
        reply.release();
        FuzzInput.assertNothingHeld(alloc);
    }

    /** A result decoder and the server's encoder of the same result, for the round trip. */
    private record Decoder<R>(Function<XdrDecoder, R> decode, BiConsumer<R, XdrEncoder> encode) {

        void check(ReplyInput reply) {
            // READ's encoder hands its data to the encoding: what was decoded is released there.
            XdrRoundTrip.check(reply.decoder(), decode, encode, reply.reduced());
        }
    }
}
