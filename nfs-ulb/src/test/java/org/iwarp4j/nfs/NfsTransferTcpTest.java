package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.iwarp4j.nfs.mount.ExportNode;
import org.iwarp4j.nfs.mount.MountBody;
import org.iwarp4j.nfs.mount.MountConstants;
import org.iwarp4j.nfs.mount.MountStat3;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whole files through {@link NfsClient} over TCP, checked with SHA-256 on both sides; MOUNT v3. */
class NfsTransferTcpTest {

    @TempDir
    Path dir;

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /** 1 MiB plus an odd tail, in 64 KiB pipelined WRITEs (UNSTABLE + COMMIT) and READs. */
    @Test
    void uploadAndDownloadOneMebibyteWithChecksums() throws Exception {
        byte[] data = new byte[(1 << 20) + 4321];
        new Random(7).nextBytes(data);
        try (NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                .maxReadWrite(64 * 1024, 64 * 1024).workerThreads(2).start();
             NfsClient client = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort())).connect()) {
            assertThat(client.readSize()).isEqualTo(64 * 1024);
            client.lookupPath("");
            assertThat(client.upload(new ByteArrayInputStream(data), "big.bin")).isEqualTo(data.length);
            assertThat(sha256(Files.readAllBytes(dir.resolve("big.bin")))).isEqualTo(sha256(data));

            ByteArrayOutputStream back = new ByteArrayOutputStream();
            assertThat(client.download("big.bin", back)).isEqualTo(data.length);
            assertThat(sha256(back.toByteArray())).isEqualTo(sha256(data));

            Fattr3 attrs = client.stat("big.bin");
            assertThat(attrs.size()).isEqualTo(data.length);
            assertThat(client.list("")).extracting(e -> e.name()).containsExactly("big.bin");

            // Uploading again truncates first.
            client.upload(new ByteArrayInputStream(new byte[] {1, 2, 3}), "big.bin");
            assertThat(Files.readAllBytes(dir.resolve("big.bin"))).containsExactly(1, 2, 3);
            assertThatThrownBy(() -> client.download("nope", new ByteArrayOutputStream()))
                    .isInstanceOf(NfsStatusException.class)
                    .satisfies(e -> assertThat(((NfsStatusException) e).status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT));
        }
    }

    @Test
    void emptyFileAndSubdirectoryPaths() throws Exception {
        Files.createDirectories(dir.resolve("a/b"));
        try (NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).start();
             NfsClient client = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort())).connect()) {
            assertThat(client.upload(new ByteArrayInputStream(new byte[0]), "a/b/empty")).isZero();
            assertThat(Files.size(dir.resolve("a/b/empty"))).isZero();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertThat(client.download("/a/b/empty", out)).isZero();
            assertThat(client.list("a")).extracting(e -> e.name()).containsExactly("b");
        }
    }

    /** MOUNT v3 (RFC 1813 Appendix I) over TCP, as RFC 8267 §5.1 requires (ULB-R-010). */
    @Test
    void mountProtocol() throws Exception {
        try (NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .exportName("/data").tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                .start()) {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.tcpPort());
            assertThatThrownBy(() -> NfsClient.builder(address).export("/other").connect())
                    .isInstanceOf(NfsMountException.class)
                    .satisfies(e -> assertThat(((NfsMountException) e).status()).isEqualTo(MountStat3.MNT3ERR_NOENT));
            try (NfsClient client = NfsClient.builder(address).export("/data/").connect()) {
                assertThat(client.root()).isEqualTo(server.rootHandle());
            }
            try (RpcClient mount = RpcClient.builder(RpcTcpClientTransport.connect(address).get()).build()) {
                List<ExportNode> exports = mount.call(MountConstants.PROGRAM, MountConstants.VERSION,
                        MountConstants.MOUNTPROC3_EXPORT, o -> { }, ExportNode::decodeList).get();
                // the groups are the admitted client networks (loopback by default)
                assertThat(exports).containsExactly(new ExportNode("/data", List.of("127.0.0.0/8", "::1/128")));
                List<MountBody> dump = mount.call(MountConstants.PROGRAM, MountConstants.VERSION,
                        MountConstants.MOUNTPROC3_DUMP, o -> { }, MountBody::decodeList).get();
                assertThat(dump).containsExactly(new MountBody("127.0.0.1", "/data"));
                mount.call(MountConstants.PROGRAM, MountConstants.VERSION, MountConstants.MOUNTPROC3_UMNT,
                        o -> o.writeString("/data", 1024), in -> null).get();
                assertThat(mount.call(MountConstants.PROGRAM, MountConstants.VERSION, MountConstants.MOUNTPROC3_DUMP,
                        o -> { }, MountBody::decodeList).get()).isEmpty();
            }
        }
    }
}
