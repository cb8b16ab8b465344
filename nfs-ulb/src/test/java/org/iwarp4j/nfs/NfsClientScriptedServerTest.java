package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.nfs.v3.Nfs3Constants.*;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.netty.buffer.Unpooled;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.IntUnaryOperator;
import org.iwarp4j.nfs.mount.MountConstants;
import org.iwarp4j.nfs.mount.MountStat3;
import org.iwarp4j.nfs.mount.Mountres3;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Fsinfo3Res;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.NfsTime3;
import org.iwarp4j.nfs.v3.Read3Args;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.Readdirplus3Res;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.WccData;
import org.iwarp4j.nfs.v3.Write3Args;
import org.iwarp4j.nfs.v3.Write3Res;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcProcedure;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.RpcTcpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Our NFSv3 client against a scripted server (MOUNT and NFS on one TCP port, one file in memory)
 * whose replies are legal but unkind, or break the protocol: FSINFO transfer sizes of 0, READs and
 * WRITEs that move fewer octets than asked (RFC 1813 §3.3.6, §3.3.7), a READDIRPLUS listing that
 * loops.
 */
class NfsClientScriptedServerTest {

    private static final NfsFh3 ROOT = new NfsFh3(new byte[] {1});
    private static final NfsFh3 FILE = new NfsFh3(new byte[] {2});
    private static final long VERIFIER = 42;

    private final byte[] file = new byte[1 << 16];
    private volatile int fileLength;
    /** How many of the octets a READ asks for, or a WRITE carries, the server moves (all by default). */
    private volatile IntUnaryOperator moved = n -> n;
    private RpcTcpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private NfsClient connect() throws Exception {
        RpcProgram mount = RpcProgram.builder(MountConstants.PROGRAM, MountConstants.VERSION)
                .procedure(MountConstants.MOUNTPROC3_MNT, RpcProcedure.of((ctx, args, out) ->
                        new Mountres3(MountStat3.MNT3_OK, ROOT, List.of(1)).encode(out)))
                .build();
        RpcProgram nfs = RpcProgram.builder(PROGRAM, VERSION)
                .procedure(NFSPROC3_FSINFO, RpcProcedure.of((ctx, args, out) ->
                        new Fsinfo3Res(Nfs3Status.NFS3_OK, null, 0, 0, 0, 0, 0, 0, 0, 1L << 40, new NfsTime3(0, 1), 0)
                                .encode(out)))
                .procedure(NFSPROC3_LOOKUP, RpcProcedure.of((ctx, args, out) ->
                        new Lookup3Res(Nfs3Status.NFS3_OK, FILE, null, null).encode(out)))
                .procedure(NFSPROC3_CREATE, RpcProcedure.of((ctx, args, out) -> {
                    fileLength = 0;
                    new Create3Res(Nfs3Status.NFS3_OK, FILE, null, WccData.EMPTY).encode(out);
                }))
                .procedure(NFSPROC3_WRITE, RpcProcedure.of((ctx, args, out) -> {
                    Write3Args w = Write3Args.decode(args, 1 << 20);
                    int n = moved.applyAsInt((int) w.count());
                    w.data().getBytes(w.data().readerIndex(), file, (int) w.offset(), n);
                    w.data().release();
                    synchronized (this) {
                        fileLength = Math.max(fileLength, (int) w.offset() + n);
                    }
                    new Write3Res(Nfs3Status.NFS3_OK, WccData.EMPTY, n, StableHow.UNSTABLE, VERIFIER).encode(out);
                }))
                .procedure(NFSPROC3_COMMIT, RpcProcedure.of((ctx, args, out) ->
                        new Commit3Res(Nfs3Status.NFS3_OK, WccData.EMPTY, VERIFIER).encode(out)))
                .procedure(NFSPROC3_READ, RpcProcedure.of((ctx, args, out) -> {
                    Read3Args r = Read3Args.decode(args);
                    int from = (int) Math.min(r.offset(), fileLength);
                    int n = Math.min(moved.applyAsInt((int) r.count()), fileLength - from);
                    new Read3Res(Nfs3Status.NFS3_OK, null, n, from + n == fileLength,
                            Unpooled.copiedBuffer(file, from, n)).encode(out);
                }))
                .procedure(NFSPROC3_READDIRPLUS, RpcProcedure.of((ctx, args, out) ->
                        new Readdirplus3Res(Nfs3Status.NFS3_OK, null, 1,
                                List.of(new EntryPlus3(5, "x", 7, null, null)), false).encode(out)))
                .build();
        server = RpcTcpServer.builder(new RpcDispatcher().register(mount).register(nfs))
                .bind(new InetSocketAddress("127.0.0.1", 0));
        return NfsClient.builder((InetSocketAddress) server.localAddress()).timeout(Duration.ofSeconds(10))
                .connect();
    }

    /**
     * FSINFO's rtpref, rtmax, wtpref and wtmax all 0: the client READs and WRITEs 4096 octets (as
     * Linux's nfs_io_size takes a size under 1024), not 0 for ever.
     */
    @Test
    void fsinfoTransferSizesOfNothingAreTakenAs4096() throws Exception {
        try (NfsClient client = connect()) {
            assertThat(client.readSize()).isEqualTo(4096);
            assertThat(client.writeSize()).isEqualTo(4096);
            byte[] data = new byte[10_000];
            new Random(3).nextBytes(data);
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                assertThat(client.upload(new ByteArrayInputStream(data), "f")).isEqualTo(data.length);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                assertThat(client.download("f", out)).isEqualTo(data.length);
                assertThat(out.toByteArray()).isEqualTo(data);
            });
        }
    }

    /**
     * The preferred size, else the largest; no more than a largest of at least 512 (Linux ignores a
     * smaller one); a size under 1024 becomes 4096; never more than the client's limit.
     */
    @Test
    void transferSizesFromFsinfo() {
        int limit = 1 << 20;
        assertThat(NfsClient.Builder.transferSize(limit, 65536, 1 << 20)).isEqualTo(65536);
        assertThat(NfsClient.Builder.transferSize(limit, 0, 32768)).as("no preference").isEqualTo(32768);
        assertThat(NfsClient.Builder.transferSize(limit, 65536, 8192)).as("above the largest").isEqualTo(8192);
        assertThat(NfsClient.Builder.transferSize(limit, 65536, 100)).as("a largest under 512").isEqualTo(65536);
        assertThat(NfsClient.Builder.transferSize(limit, 0, 0)).isEqualTo(4096);
        assertThat(NfsClient.Builder.transferSize(limit, 1, 1)).isEqualTo(4096);
        assertThat(NfsClient.Builder.transferSize(limit, 1023, 600)).isEqualTo(4096);
        assertThat(NfsClient.Builder.transferSize(limit, 1024, 4096)).isEqualTo(1024);
        assertThat(NfsClient.Builder.transferSize(8192, 0xFFFF_FFFFL, 0xFFFF_FFFFL)).isEqualTo(8192);
    }

    /** Every READ and WRITE moves at most 1000 octets: the client goes on from where each stopped. */
    @Test
    void shortReadsAndWritesStillMoveTheWholeFile() throws Exception {
        moved = n -> Math.min(n, 1000);
        byte[] data = new byte[10_000];
        new Random(4).nextBytes(data);
        try (NfsClient client = connect()) {
            assertThat(client.upload(new ByteArrayInputStream(data), "f")).isEqualTo(data.length);
            assertThat(Arrays.copyOf(file, fileLength)).isEqualTo(data);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertThat(client.download("f", out)).isEqualTo(data.length);
            assertThat(out.toByteArray()).isEqualTo(data);
        }
    }

    @Test
    void aWriteOfNothingFailsTheUploadWithNfs3errIo() throws Exception {
        moved = n -> 0;
        try (NfsClient client = connect()) {
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                assertThatThrownBy(() -> client.upload(new ByteArrayInputStream(new byte[100]), "f"))
                        .isInstanceOfSatisfying(NfsStatusException.class,
                                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_IO))
                        .hasMessage("WRITE f (a WRITE of 100 octets at offset 0 answered count 0): NFS3ERR_IO");
            });
        }
    }

    /** A READDIRPLUS listing whose every reply ends on cookie 7: the listing loops. */
    @Test
    void aListingThatLoopsFailsWithNfs3errIo() throws Exception {
        try (NfsClient client = connect()) {
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                assertThatThrownBy(() -> client.list("/"))
                        .isInstanceOfSatisfying(NfsStatusException.class,
                                e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_IO))
                        .hasMessage("READDIRPLUS / (cookie 7 again after 2 entries: the listing loops): NFS3ERR_IO");
            });
        }
    }
}
