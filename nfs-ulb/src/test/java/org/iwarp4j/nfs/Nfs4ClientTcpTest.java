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
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v4.DirEntry4;
import org.iwarp4j.nfs.v4.FileAttributes4;
import org.iwarp4j.nfs.v4.Nfs4Constants;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.rdmap.Rnic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our NFSv4 client against our server over TCP: the session set up at the highest minor version
 * the server offers (4.2) or at 4.1 when asked; put and get of a file larger than a WRITE with
 * SHA-256 on both sides; ls with attributes; REMOVE; NFS4ERR_NOENT as an exception naming the
 * operation; the server forgets the client's session on close (DESTROY_SESSION, DESTROY_CLIENTID).
 */
class Nfs4ClientTcpTest {

    @TempDir
    Path dir;

    static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    private NfsServer server() throws Exception {
        return NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2).start();
    }

    @Test
    void putGetLsRemoveAtTheHighestMinorVersion() throws Exception {
        byte[] data = new byte[3 * 256 * 1024 + 4321];
        new Random(4).nextBytes(data);
        try (NfsServer server = server();
             Nfs4Client nfs = Nfs4Client.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                     .maxTransfer(256 * 1024).window(4).connect()) {
            assertThat(nfs.minorVersion()).as("4.2, the highest our server offers").isEqualTo(2);
            assertThat(nfs.transport()).isInstanceOf(RpcTcpClientTransport.class);
            assertThat(nfs.writeSize()).isEqualTo(256 * 1024);
            assertThat(nfs.rootHandle()).isEqualTo(server.rootHandle().data());

            Files.createDirectory(dir.resolve("d"));
            assertThat(nfs.upload(new ByteArrayInputStream(data), "d/file.bin")).isEqualTo(data.length);
            assertThat(sha256(Files.readAllBytes(dir.resolve("d/file.bin")))).isEqualTo(sha256(data));

            ByteArrayOutputStream back = new ByteArrayOutputStream();
            assertThat(nfs.download("d/file.bin", back)).isEqualTo(data.length);
            assertThat(sha256(back.toByteArray())).isEqualTo(sha256(data));

            // a second upload truncates: OPEN4_CREATE UNCHECKED4 with size 0
            assertThat(nfs.upload(new ByteArrayInputStream(new byte[] {1, 2, 3}), "d/file.bin")).isEqualTo(3);
            assertThat(Files.readAllBytes(dir.resolve("d/file.bin"))).containsExactly(1, 2, 3);

            FileAttributes4 a = nfs.stat("d/file.bin");
            assertThat(a.isRegularFile()).isTrue();
            assertThat(a.size()).isEqualTo(3);
            assertThat(a.mode()).isEqualTo(0644);
            assertThat(nfs.stat("d").isDirectory()).isTrue();

            for (int i = 0; i < 300; i++) {
                Files.createFile(dir.resolve("d/a-somewhat-longer-entry-name-" + i));
            }
            assertThat(nfs.list("d")).as("READDIR continued with cookies past one 32 KiB reply")
                    .hasSize(301).extracting(DirEntry4::name).contains("file.bin", "a-somewhat-longer-entry-name-299");
            assertThat(nfs.list("d").stream().filter(e -> e.name().equals("file.bin")).findFirst().orElseThrow()
                    .attributes().size()).isEqualTo(3);

            nfs.remove("d/file.bin");
            assertThat(dir.resolve("d/file.bin")).doesNotExist();
            assertThatThrownBy(() -> nfs.download("d/file.bin", new ByteArrayOutputStream()))
                    .isInstanceOfSatisfying(Nfs4StatusException.class, e -> {
                        assertThat(e.nfs4Status()).isEqualTo(Nfs4Constants.NFS4ERR_NOENT);
                        assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
                        assertThat(e.operation()).isEqualTo("OPEN file.bin");
                        assertThat(e).hasMessage("OPEN file.bin: NFS4ERR_NOENT");
                    });
            assertThatThrownBy(() -> nfs.stat("nowhere/x")).isInstanceOf(NfsStatusException.class)
                    .hasMessage("LOOKUP nowhere: NFS4ERR_NOENT");
            assertThatThrownBy(() -> nfs.remove("d")).isInstanceOfSatisfying(Nfs4StatusException.class,
                    e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Constants.NFS4ERR_NOTEMPTY));
        }
    }

    /**
     * Many 1 MiB READs in flight at once over one TCP connection, while the same server also
     * serves an RPC-over-RDMA session (as in {@code iwarp nfs bench}): every reply's data must be
     * the file's octets at that READ's offset (a mix-up shows as the right length with wrong content).
     */
    @Test
    void pipelinedOneMebibyteReadsReturnTheFilesContent() throws Exception {
        byte[] data = new byte[16 * 1024 * 1024 + 777];
        new Random(11).nextBytes(data);
        try (Rnic serverRnic = Rnic.builder().name("server").build();
             Rnic clientRnic = Rnic.builder().name("client").build();
             NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                     .tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                     .rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(serverRnic)
                     .maxReadWrite(1 << 20, 1 << 20).start();
             Nfs4Client rdma = Nfs4Client.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                     .rdma(clientRnic, new InetSocketAddress("127.0.0.1", server.rdmaPort()))
                     .minorVersion(1).maxTransfer(1024 * 1024).window(8).connect();
             Nfs4Client tcp = Nfs4Client.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                     .minorVersion(1).maxTransfer(1024 * 1024).window(8).connect()) {
            assertThat(tcp.readSize()).isEqualTo(1024 * 1024);
            for (Nfs4Client nfs : List.of(rdma, tcp, tcp)) {
                String name = nfs == rdma ? "rdma.bin" : "tcp.bin";
                assertThat(nfs.upload(new ByteArrayInputStream(data), name)).isEqualTo(data.length);
                assertThat(sha256(Files.readAllBytes(dir.resolve(name)))).isEqualTo(sha256(data));
                ByteArrayOutputStream back = new ByteArrayOutputStream();
                assertThat(nfs.download(name, back)).isEqualTo(data.length);
                assertThat(sha256(back.toByteArray())).as("download of %s", name).isEqualTo(sha256(data));
            }
        }
    }

    @Test
    void minorVersionOneWhenAskedAndARootBelowTheServers() throws Exception {
        Files.createDirectories(dir.resolve("sub/inner"));
        Files.write(dir.resolve("sub/inner/x"), new byte[] {42});
        try (NfsServer server = server();
             Nfs4Client nfs = Nfs4Client.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                     .minorVersion(1).root("/sub").connect()) {
            assertThat(nfs.minorVersion()).isEqualTo(1);
            assertThat(nfs.list("")).extracting(DirEntry4::name).containsExactly("inner");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertThat(nfs.download("inner/x", out)).isEqualTo(1);
            assertThat(out.toByteArray()).containsExactly(42);
            ByteArrayOutputStream empty = new ByteArrayOutputStream();
            assertThat(nfs.upload(new ByteArrayInputStream(new byte[0]), "inner/empty")).isZero();
            assertThat(nfs.download("inner/empty", empty)).isZero();
            assertThat(dir.resolve("sub/inner/empty")).isEmptyFile();
        }
    }

    /** RFC 8881 §8.4.2: OPEN in the server's grace period is NFS4ERR_GRACE; the client asks again until it ends. */
    @Test
    void openIsRetriedThroughTheGracePeriod() throws Exception {
        // Before the server starts, and so its 2 s grace period: counted from after the connect, the
        // time left of it depended on how long the connect took (under 1.5 s, or the test failed).
        long start = System.nanoTime();
        try (NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT).nfs4Lease(90, 2)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2).start();
             Nfs4Client nfs = Nfs4Client.builder(new InetSocketAddress("127.0.0.1", server.tcpPort())).connect()) {
            assertThat(nfs.upload(new ByteArrayInputStream(new byte[] {5}), "g")).isEqualTo(1);
            // the grace period is counted on the millisecond wall clock: over after more than 1999 ms
            assertThat(System.nanoTime() - start).as("OPEN succeeded only once the grace period was over")
                    .isGreaterThan(1_999_000_000L);
            assertThat(Files.readAllBytes(dir.resolve("g"))).containsExactly(5);
        }
    }

    @Test
    void aMinorVersionTheServerDoesNotServeIsRefusedByIt() {
        assertThatThrownBy(() -> Nfs4Client.builder(new InetSocketAddress("127.0.0.1", 1)).minorVersion(0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
